package queue

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/llm/llmtest"
)

// failingRunner is a runner whose model endpoint answers every request
// with status (a broken provider, a bad key); hits counts the requests.
func failingRunner(t *testing.T, e *env, status int) (*agents.SubRunner, func() int) {
	t.Helper()
	var mu sync.Mutex
	hits := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits++
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"error": {"message": "scripted %d", "type": "server_error"}}`, status)
	}))
	t.Cleanup(srv.Close)
	client, err := llm.NewOpenAI(llm.EndpointConfig{BaseURL: srv.URL + "/v1", Model: "scripted", MaxRetries: 1, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	r := newRunner(t, e.store, func(string) (llm.Client, string, error) { return client, "scripted", nil })
	return r, func() int { mu.Lock(); defer mu.Unlock(); return hits }
}

// runAll runs n delegations on c at once and returns their results;
// before, when set, is called once they are all enqueued.
func runAll(t *testing.T, c *Coordinator, n int, mod func(*agents.Delegation)) []agents.DelegationResult {
	t.Helper()
	results := make([]agents.DelegationResult, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := item(i)
			if mod != nil {
				mod(&d)
			}
			res, err := c.Run(t.Context(), d)
			if err != nil {
				t.Errorf("Run(%s): %v", d.CallID, err)
			}
			results[i] = res
		}()
	}
	wg.Wait()
	return results
}

// waitFor waits up to 30 s for cond, false (said) when it never held.
func waitFor(t *testing.T, what string, cond func() bool) bool {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Errorf("timed out waiting for %s", what)
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}

// saidTimes counts the workers' notices containing all of words.
func saidTimes(e *env, words ...string) int {
	n := 0
	for _, text := range notices(e.workerEvents) {
		all := true
		for _, w := range words {
			all = all && strings.Contains(text, w)
		}
		if all {
			n++
		}
	}
	return n
}

// TestModelFailureRetriedElsewhere: a worker whose model endpoint fails
// (500 after the client's own retry, or 401: a bad key) fails its
// attempts instead of landing error notes, says so once naming the
// endpoint and the status, and takes no job for a while: every delegation
// lands ok, once, from the healthy workers.
func TestModelFailureRetriedElsewhere(t *testing.T) {
	for _, tc := range []struct {
		status int
		say    string
	}{
		{http.StatusInternalServerError, "failing: gave up after 2 attempts: server error at"},
		{http.StatusUnauthorized, "unusable here"},
	} {
		t.Run(fmt.Sprint(tc.status), func(t *testing.T) {
			e := newEnv(t, llmtest.HandOver("20ms"), Options{MaxAttempts: 2})
			bad, hits := failingRunner(t, e, tc.status)
			e.serveWith(t, WorkerOptions{Runner: bad, Name: "bad", HoldOff: time.Minute})
			c := e.coordinate(t, false)
			defer c.Close(true)
			const n = 12
			started := make(chan struct{})
			go func() {
				// The healthy workers start once the bad one has failed.
				defer close(started)
				if !waitFor(t, "the bad endpoint to be called", func() bool { return hits() > 0 }) {
					return
				}
				e.serve(t, e.runner, "good1")
				e.serve(t, e.runner, "good2")
			}()
			results := runAll(t, c, n, nil)
			<-started
			for i, res := range results {
				if res.Status != blackboard.StatusOK {
					t.Errorf("%s: %+v; want ok from a healthy worker", item(i).CallID, res)
				}
			}
			notes := e.notesByID(t)
			for i := range n {
				if got := notes[item(i).CallID]; len(got) != 1 || got[0].Handoff.Status != blackboard.StatusOK {
					t.Errorf("%s has %d notes; want exactly one, ok", item(i).CallID, len(got))
				}
			}
			if got := saidTimes(e, "worker bad: model", fmt.Sprint(tc.status), "takes no job for 1m0s"); got != 1 {
				t.Errorf("the bad worker said it holds off %d times; want once:\n%s", got, strings.Join(notices(e.workerEvents), "\n"))
			}
			if got := saidTimes(e, "worker bad: model", tc.say, "127.0.0.1"); got != 1 {
				t.Errorf("the notice names not the endpoint and its failure (%q):\n%s", tc.say, strings.Join(notices(e.workerEvents), "\n"))
			}
		})
	}
}

// TestOnlyBadWorkersLandDegraded: with no healthy worker, each delegation
// is tried max_attempts times and lands one degraded note listing every
// attempt with its worker and error.
func TestOnlyBadWorkersLandDegraded(t *testing.T) {
	e := newEnv(t, llmtest.HandOver("1ms"), Options{MaxAttempts: 2})
	bad1, _ := failingRunner(t, e, http.StatusUnauthorized)
	bad2, _ := failingRunner(t, e, http.StatusUnauthorized)
	e.serveWith(t, WorkerOptions{Runner: bad1, Name: "bad1", HoldOff: 300 * time.Millisecond})
	e.serveWith(t, WorkerOptions{Runner: bad2, Name: "bad2", HoldOff: 300 * time.Millisecond})
	c := e.coordinate(t, false)
	defer c.Close(true)
	const n = 6
	for i, res := range runAll(t, c, n, nil) {
		if res.Status != blackboard.StatusDegraded {
			t.Errorf("%s: %+v; want degraded", item(i).CallID, res)
		}
	}
	notes := e.notesByID(t)
	for i := range n {
		got := notes[item(i).CallID]
		if len(got) != 1 {
			t.Errorf("%s has %d notes; want exactly one", item(i).CallID, len(got))
			continue
		}
		body := got[0].Body
		for _, want := range []string{"- attempt 1 (", "- attempt 2 (", "worker bad", "rejected the API key (401"} {
			if !strings.Contains(body, want) {
				t.Errorf("%s's degraded note lacks %q:\n%s", item(i).CallID, want, body)
			}
		}
	}
}

// TestWorkerLacksModel: a job whose model a worker lacks (not
// configured, or another model id under that name) fails that attempt
// there and runs on a worker that has it, never on another model.
func TestWorkerLacksModel(t *testing.T) {
	e := newEnv(t, llmtest.HandOver("1ms"), Options{MaxAttempts: 2})
	client, err := llm.NewOpenAI(llm.EndpointConfig{BaseURL: e.srv.URL(), Model: "scripted", MaxRetries: 0, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	// The coordinator's and the right worker's "big" is big-1; the
	// others' default model is "small-1", and one of them calls its
	// "big" big-2.
	settings := func(ids map[string]string) ModelsFunc {
		return func(name string) (ModelSettings, bool) {
			if name == "" {
				name = "default"
			}
			id, ok := ids[name]
			return ModelSettings{Name: name, ID: id, Host: "models.example"}, ok
		}
	}
	runner := func(ids map[string]string) *agents.SubRunner {
		return newRunner(t, e.store, func(name string) (llm.Client, string, error) {
			if id, ok := ids[name]; ok {
				return client, id, nil
			}
			return client, ids["default"], nil // the fallback app.Clients makes, with a warning
		})
	}
	lacks := map[string]string{"default": "small-1"}
	differs := map[string]string{"default": "small-1", "big": "big-2"}
	has := map[string]string{"default": "small-1", "big": "big-1"}
	e.serveWith(t, WorkerOptions{Runner: runner(lacks), Name: "lacks", Models: settings(lacks), HoldOff: time.Minute})
	e.serveWith(t, WorkerOptions{Runner: runner(differs), Name: "differs", Models: settings(differs), HoldOff: time.Minute})
	c, err := e.q.Coordinate(t.Context(), CoordinatorOptions{Runner: e.runner, Board: "b", Plan: "plan.yaml", Digest: "d1",
		Events: e.events, Models: settings(has)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(true)
	started := make(chan struct{})
	go func() {
		defer close(started)
		if waitFor(t, "both workers to refuse a job", func() bool {
			return saidTimes(e, "worker lacks: model big (big-1", "this worker has no model \"big\"") == 1 &&
				saidTimes(e, "worker differs: model big (big-1", "is big-2, not big-1") == 1
		}) {
			e.serveWith(t, WorkerOptions{Runner: runner(has), Name: "has", Models: settings(has)})
		}
	}()
	defer func() { <-started }()
	const n = 8
	for i, res := range runAll(t, c, n, func(d *agents.Delegation) { d.Model = "big" }) {
		if res.Status != blackboard.StatusOK {
			t.Errorf("%s: %+v; want ok from the worker that has the model", item(i).CallID, res)
		}
	}
	notes := e.notesByID(t)
	for i := range n {
		if got := notes[item(i).CallID]; len(got) != 1 {
			t.Errorf("%s has %d notes; want exactly one", item(i).CallID, len(got))
		}
	}
	reqs := e.srv.Requests()
	if len(reqs) != n {
		t.Errorf("%d model calls; want %d, one per delegation", len(reqs), n)
	}
	for _, r := range reqs {
		if r.Model != "big-1" {
			t.Errorf("a model call went to %q; every one should ask for big-1", r.Model)
		}
	}
}

// TestClientFailureHoldsOff: a worker that cannot even make its model's
// client fails the attempt as its model's failure when the reason is the
// model's (no endpoint configured here: it holds off, and the degraded
// note says the model is unusable here), as the task's otherwise (no
// hold-off).
func TestClientFailureHoldsOff(t *testing.T) {
	for _, tc := range []struct {
		name     string
		err      error
		holdsOff bool
		say      string
	}{
		{"no endpoint here", fmt.Errorf("models.default: %w", llm.ErrNoEndpoint), true, "model default unusable here"},
		{"another failure", errors.New("read the key file: permission denied"), false, "permission denied"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, llmtest.HandOver("1ms"), Options{MaxAttempts: 1})
			broken := *e.runner
			broken.Client = func(string) (llm.Client, string, error) { return nil, "", tc.err }
			e.serveWith(t, WorkerOptions{Runner: &broken, Name: "broken", HoldOff: time.Minute})
			if res := e.runFirst(t); res.Status != blackboard.StatusDegraded {
				t.Fatalf("result %s; want degraded", res.Status)
			}
			if held := saidTimes(e, "takes no job for") == 1; held != tc.holdsOff {
				t.Errorf("held off: %t; want %t:\n%s", held, tc.holdsOff, strings.Join(notices(e.workerEvents), "\n"))
			}
			if body := e.notesByID(t)[item(0).CallID][0].Body; !strings.Contains(body, tc.say) {
				t.Errorf("the degraded note lacks %q:\n%s", tc.say, body)
			}
		})
	}
}
