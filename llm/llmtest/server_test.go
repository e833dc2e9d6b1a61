package llmtest_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/llm/llmtest"
)

func TestConcurrentRequestsOnRepeatStep(t *testing.T) {
	srv := serve(t, "steps:\n  - repeat: true\n    reply:\n      text: pong\n      tool_calls: [{name: echo, arguments: {n: 1}}]\n")
	c := client(t, srv)
	const n = 50
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			resp, err := c.Stream(t.Context(), llm.Request{Messages: msgs(fmt.Sprintf("a%d", i%5), user(fmt.Sprint("ping ", i)))})
			switch {
			case err != nil:
				errs <- err
			case resp.Message.Content != "pong" || len(resp.Message.ToolCalls) != 1 || resp.Message.ToolCalls[0].Arguments != `{"n":1}`:
				errs <- fmt.Errorf("request %d: answer %+v", i, resp.Message)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	reqs := srv.Requests()
	if len(reqs) != n {
		t.Fatalf("recorded %d requests; want %d", len(reqs), n)
	}
	seen := map[int]bool{}
	for _, r := range reqs {
		seen[r.N] = true
		if r.StepID != "steps[0]" || r.Unmatched {
			t.Errorf("request %d: step %q unmatched %v", r.N, r.StepID, r.Unmatched)
		}
	}
	for i := 1; i <= n; i++ {
		if !seen[i] {
			t.Errorf("request number %d missing", i)
		}
	}
	srv.AssertDone(t)
}

func TestReplayLabel(t *testing.T) {
	sc, err := llmtest.Load(filepath.Join("..", "..", "testdata", "scenarios", "basic-text.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.New(sc, llmtest.WithReplay(true))
	defer srv.Close()
	want := "replay of " + sc.Path + " (scripted model, not a live LLM)"
	if !srv.Replay() || srv.Label() != want {
		t.Errorf("Replay() = %v, Label() = %q; want true, %q", srv.Replay(), srv.Label(), want)
	}
}

func TestCloseCutsDelaysShort(t *testing.T) {
	sc, err := llmtest.Parse([]byte("steps: [{latency: 30s, reply: {text: late}}]"), "slow")
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.New(sc)
	done := make(chan error, 1)
	go func() {
		_, err := client(t, srv).Stream(t.Context(), llm.Request{Messages: msgs("d", user("x"))})
		done <- err
	}()
	for len(srv.Requests()) == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	start := time.Now()
	srv.Close()
	// The latency is 30s: a third of it is far more than a loaded machine
	// needs to cut it short.
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("Close took %v; want pending delays cut short", took)
	}
	if err := <-done; err == nil {
		t.Error("request in flight during Close succeeded; want an error")
	}
	srv.Close() // idempotent
}

func TestStartRejectsInvalidScenario(t *testing.T) {
	_, err := llmtest.Start(&llmtest.Scenario{Name: "bad", Steps: []llmtest.Step{{Fault: &llmtest.Fault{Kind: "boom"}}}})
	if err == nil || !strings.Contains(err.Error(), `steps[0].fault.kind: unknown fault kind "boom"`) {
		t.Errorf("Start: err = %v; want the validation problem", err)
	}
}
