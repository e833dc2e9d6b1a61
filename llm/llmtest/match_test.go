package llmtest_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/llm/llmtest"
)

func TestFirstNotExhaustedStepInFileOrder(t *testing.T) {
	srv := serve(t, `
name: order
steps:
  - id: one
    reply: {text: first}
  - id: two
    reply: {text: second}
  - id: spare
    optional: true
    match: {contains: never-sent}
    reply: {text: spare}
`)
	c := client(t, srv)
	for _, want := range []string{"first", "second"} {
		resp, err := c.Stream(t.Context(), llm.Request{Messages: msgs("director", user("hi"))})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Message.Content != want {
			t.Errorf("answer = %q; want %q", resp.Message.Content, want)
		}
	}
	_, err := c.Stream(t.Context(), llm.Request{Messages: msgs("director", user("one more"))})
	want := `llmtest: no step matches request #3 (agent=director, last message: "one more")`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("third request: err = %v; want it to carry %q", err, want)
	}
	var ft fakeTB
	srv.AssertDone(&ft)
	wantFail := "llmtest: scenario order not done\n\tunmatched " + want[len("llmtest: no step matches "):]
	if diff := cmp.Diff([]string{wantFail}, ft.errs); diff != "" {
		t.Errorf("AssertDone failures (-want +got):\n%s", diff)
	}
	if got := srv.Pending(); len(got) != 0 {
		t.Errorf("Pending = %v; want none (spare is optional)", got)
	}
	reqs := srv.Requests()
	if reqs[0].StepID != "one" || reqs[1].StepID != "two" || !reqs[2].Unmatched || reqs[2].Status != 400 {
		t.Errorf("recorded %+v", reqs)
	}
}

func TestAssertDoneListsPendingSteps(t *testing.T) {
	srv := serve(t, "name: p\nsteps:\n  - {id: a, reply: {text: x}}\n  - {times: 2, reply: {text: y}}\n  - {repeat: true, reply: {text: z}}\n")
	if _, err := client(t, srv).Stream(t.Context(), llm.Request{Messages: msgs("d", user("x"))}); err != nil {
		t.Fatal(err)
	}
	var ft fakeTB
	srv.AssertDone(&ft)
	if diff := cmp.Diff([]string{"llmtest: scenario p not done\n\tpending steps: steps[1]"}, ft.errs); diff != "" {
		t.Errorf("AssertDone (-want +got):\n%s", diff)
	}
}

func TestMatchers(t *testing.T) {
	srv := serve(t, `
steps:
  - {id: agent, repeat: true, match: {agent: explorer}, reply: {text: agent}}
  - {id: last-role, repeat: true, match: {last_role: tool}, reply: {text: last-role}}
  - {id: has-tool, repeat: true, match: {has_tool: grep}, reply: {text: has-tool}}
  - {id: last-contains, repeat: true, match: {last_contains: "needle"}, reply: {text: last-contains}}
  - {id: contains, repeat: true, match: {contains: "deep", not_contains: "veto"}, reply: {text: contains}}
  - {id: gated, repeat: true, match: {after: opener}, reply: {text: gated}}
  - {id: opener, reply: {text: opener}}
  - {id: fallback, repeat: true, reply: {text: fallback}}
`)
	c := client(t, srv)
	toolTurn := []llm.Message{user("x"), {Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c", Name: "grep", Arguments: `{"q":"deep"}`}}}, {Role: llm.RoleTool, ToolCallID: "c", Content: "r"}}
	for _, tc := range []struct {
		name  string
		req   llm.Request
		want  string
		after string
	}{
		{"agent marker", llm.Request{Messages: msgs("explorer", user("x"))}, "agent", ""},
		{"last role", llm.Request{Messages: msgs("director", toolTurn...)}, "last-role", ""},
		{"declared tool", llm.Request{Messages: msgs("director", user("x")), Tools: []llm.ToolDef{{Name: "grep"}}}, "has-tool", ""},
		{"last message", llm.Request{Messages: msgs("director", user("a needle"))}, "last-contains", ""},
		{"any message", llm.Request{Messages: msgs("director", user("deep"), user("x"))}, "contains", ""},
		{"vetoed by not_contains", llm.Request{Messages: msgs("director", user("deep veto"))}, "opener", ""},
		{"after", llm.Request{Messages: msgs("director", user("x"))}, "gated", ""},
	} {
		resp, err := c.Stream(t.Context(), tc.req)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if resp.Message.Content != tc.want {
			t.Errorf("%s: answered by %q; want %q", tc.name, resp.Message.Content, tc.want)
		}
	}
	if got := srv.Requests()[0].Agent; got != "explorer" {
		t.Errorf("recorded agent = %q; want explorer", got)
	}
}

// TestAfterWait pins match.wait: a request the step would answer but for
// its unanswered after step is held until that step answers, so two
// racing clients are answered in the scenario's order; without wait (or
// past it) the request is answered as things stand.
func TestAfterWait(t *testing.T) {
	srv := serve(t, `
steps:
  - {id: second, match: {agent: director, after: first, wait: 20s}, reply: {text: second}}
  - {id: first, match: {agent: explorer}, reply: {text: first}}
  - {id: early, match: {agent: lead, after: nobody}, reply: {text: never}}
  - {id: nobody, match: {agent: nobody}, reply: {text: nobody}}
  - {id: fallback, repeat: true, reply: {text: fallback}}
`)
	c := client(t, srv)
	got := make(chan string, 1)
	go func() {
		resp, err := c.Stream(t.Context(), llm.Request{Messages: msgs("director", user("x"))})
		if err != nil {
			got <- err.Error()
			return
		}
		got <- resp.Message.Content
	}()
	select {
	case g := <-got:
		t.Fatalf("the held request was answered %q before its after step", g)
	case <-time.After(300 * time.Millisecond):
	}
	if resp, err := c.Stream(t.Context(), llm.Request{Messages: msgs("explorer", user("x"))}); err != nil || resp.Message.Content != "first" {
		t.Fatalf("explorer: %v %+v", err, resp)
	}
	select {
	case g := <-got:
		if g != "second" {
			t.Errorf("the held request was answered %q; want second", g)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the held request was not answered once its after step had")
	}
	// No wait: the request goes on to the next step at once.
	if resp, err := c.Stream(t.Context(), llm.Request{Messages: msgs("lead", user("x"))}); err != nil || resp.Message.Content != "fallback" {
		t.Errorf("lead: %v %+v; want fallback at once", err, resp)
	}
}

func TestCaptureSubstitution(t *testing.T) {
	srv := llmtest.NewTestServer(t, filepath.Join("..", "..", "testdata", "scenarios", "capture.yaml"))
	c := client(t, srv)
	history := msgs("director", user("map the llm package"))
	first, err := c.Stream(t.Context(), llm.Request{Messages: history})
	if err != nil {
		t.Fatal(err)
	}
	history = append(history, first.Message,
		llm.Message{Role: llm.RoleTool, ToolCallID: "call_delegate", Content: "status: ok\nref: explorer/old-note"},
		llm.Message{Role: llm.RoleTool, ToolCallID: "call_delegate", Content: "ref: explorer/superseded\nstatus: ok\nref: explorer/2025-01-02_map-llm"})
	second, err := c.Stream(t.Context(), llm.Request{Messages: history})
	if err != nil {
		t.Fatal(err)
	}
	if want := "Reading explorer/2025-01-02_map-llm."; second.Message.Content != want {
		t.Errorf("text = %q; want %q (the latest match wins)", second.Message.Content, want)
	}
	wantArgs := `{"ref":"explorer/2025-01-02_map-llm","quoted":"say \"explorer/2025-01-02_map-llm\""}`
	if got := second.Message.ToolCalls[0].Arguments; got != wantArgs {
		t.Errorf("arguments = %s; want %s", got, wantArgs)
	}
	history = append(history, second.Message, llm.Message{Role: llm.RoleTool, ToolCallID: "call_read", Content: "note body"})
	third, err := c.Stream(t.Context(), llm.Request{Messages: history})
	if err != nil {
		t.Fatal(err)
	}
	if want := "Done with explorer/2025-01-02_map-llm."; third.Message.Content != want {
		t.Errorf("text = %q; want %q (captures last the whole scenario)", third.Message.Content, want)
	}
	srv.AssertDone(t)
}

// TestSlowAnswerDeliveredCountsAsServed pins that a slow start the client
// waits out is an answer: the step is used up, not served twice.
func TestSlowAnswerDeliveredCountsAsServed(t *testing.T) {
	srv := serve(t, "steps: [{id: slow, fault: {kind: slow_first_byte, delay: 50ms}, reply: {text: late}}]")
	c := client(t, srv)
	resp, err := c.Stream(t.Context(), llm.Request{Messages: msgs("d", user("x"))})
	if err != nil || resp.Message.Content != "late" {
		t.Fatalf("Stream = %+v, %v; want the late answer", resp.Message, err)
	}
	if p := srv.Pending(); len(p) != 0 {
		t.Errorf("Pending = %v; want none", p)
	}
	if _, err := c.Stream(t.Context(), llm.Request{Messages: msgs("d", user("again"))}); err == nil {
		t.Error("second request answered; want it unmatched (the step served once already)")
	}
}

// TestFaultsFireThenStepAnswers pins that a fault spoils only its first
// Times requests and does not use up the step: "429 then success" is one
// step, and a cut stream is recorded as such.
func TestFaultsFireThenStepAnswers(t *testing.T) {
	srv := serve(t, `
steps:
  - id: flaky
    match: {contains: flaky}
    fault: {kind: status, status: 503, times: 2, retry_after: 2s}
    reply: {text: recovered}
  - id: cut
    match: {contains: cut}
    fault: {kind: cut_stream, after_bytes: 10}
    reply: {text: whole}
`)
	c := client(t, srv) // no retries: every attempt is visible
	for i := range 2 {
		_, err := c.Stream(t.Context(), llm.Request{Messages: msgs("d", user("flaky"))})
		if err == nil || !strings.Contains(err.Error(), "503") {
			t.Fatalf("request %d: err = %v; want the 503 fault", i+1, err)
		}
	}
	resp, err := c.Stream(t.Context(), llm.Request{Messages: msgs("d", user("flaky"))})
	if err != nil || resp.Message.Content != "recovered" {
		t.Fatalf("third request = %+v, %v; want the answer", resp.Message, err)
	}
	if _, err := c.Stream(t.Context(), llm.Request{Messages: msgs("d", user("cut"))}); err == nil {
		t.Fatal("cut stream: no error")
	}
	if resp, err := c.Stream(t.Context(), llm.Request{Messages: msgs("d", user("cut"))}); err != nil || resp.Message.Content != "whole" {
		t.Fatalf("after the cut = %+v, %v; want the answer", resp.Message, err)
	}
	var got []string
	for _, r := range srv.Requests() {
		got = append(got, fmt.Sprintf("%s %d %s", r.StepID, r.Status, r.Fault))
	}
	want := []string{"flaky 503 status", "flaky 503 status", "flaky 200 ", "cut 200 cut_stream", "cut 200 "}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("recorded (-want +got):\n%s", diff)
	}
	srv.AssertDone(t)
}
