package llm_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/llm/llmtest"
)

func TestStreamTextDeltasInOrder(t *testing.T) {
	srv := llmtest.NewTestServer(t, scenarioPath("basic-text.yaml"))
	c := newClient(t, srv.URL(), nil)
	var ev events
	resp, err := c.Stream(t.Context(), llm.Request{Messages: director(user("hello there")), OnEvent: ev.add})
	if err != nil {
		t.Fatal(err)
	}
	var deltas []string
	for _, e := range ev.list() {
		if e.Kind != llm.EventText || e.Attempt != 1 {
			t.Fatalf("unexpected event %+v", e)
		}
		deltas = append(deltas, e.Text)
	}
	want := []string{"Hello! ", "I ", "am ", "a ", "scripted ", "model, ", "streaming ", "one ", "word ", "at ", "a ", "time."}
	if diff := cmp.Diff(want, deltas); diff != "" {
		t.Errorf("text deltas (-want +got):\n%s", diff)
	}
	if got, want := resp.Message.Content, strings.Join(want, ""); got != want {
		t.Errorf("Content = %q; want %q", got, want)
	}
	if resp.Message.Role != llm.RoleAssistant || resp.FinishReason != "stop" || resp.Attempts != 1 || resp.Model != "test-model" {
		t.Errorf("response = %+v; want assistant, stop, 1 attempt, model test-model", resp)
	}
}

func TestStreamUsageCachedTokens(t *testing.T) {
	srv := llmtest.NewTestServer(t, scenarioPath("basic-text.yaml"))
	c := newClient(t, srv.URL(), nil)
	msgs := director(user("hello there"))
	first, err := c.Stream(t.Context(), llm.Request{Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	if u := first.Usage; u.PromptTokens == 0 || u.CompletionTokens == 0 || u.CachedTokens != 0 {
		t.Errorf("first usage = %+v; want computed prompt and completion, nothing cached", u)
	}
	msgs = append(msgs, first.Message, user("and again"))
	second, err := c.Stream(t.Context(), llm.Request{Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	want := llm.Usage{PromptTokens: 1200, CachedTokens: 800, CompletionTokens: 40}
	if second.Usage != want {
		t.Errorf("second usage = %+v; want %+v (set by the scenario)", second.Usage, want)
	}
	srv.AssertDone(t)
}

func TestStreamParallelToolCalls(t *testing.T) {
	srv := llmtest.NewTestServer(t, scenarioPath("parallel-tools.yaml"))
	c := newClient(t, srv.URL(), nil)
	tools := []llm.ToolDef{
		{Name: "read_file", Description: "Read a file.", Parameters: []byte(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
		{Name: "grep", Description: "Search.", Parameters: []byte(`{"type":"object","properties":{"pattern":{"type":"string"}}}`)},
		{Name: "list_dir"},
	}
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: "[agent:explorer] You explore."}, user("what module is this?")}
	resp, err := c.Stream(t.Context(), llm.Request{Messages: msgs, Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.ToolCall{
		{ID: "call_read", Name: "read_file", Arguments: `{"path":"go.mod","lines":[1,20]}`},
		{ID: "call_grep", Name: "grep", Arguments: `{"pattern":"func (c \\*Client) Stream","glob":"**/*.go","ignore_case":false}`},
		{ID: "call_1_2", Name: "list_dir", Arguments: `{"path":"llm/llmtest","depth":2,"note":"unicode ✓ survives splitting"}`},
	}
	if diff := cmp.Diff(want, resp.Message.ToolCalls); diff != "" {
		t.Errorf("tool calls (-want +got):\n%s", diff)
	}
	if resp.FinishReason != "tool_calls" || resp.Message.Content != "Let me look at three things." {
		t.Errorf("finish %q, content %q", resp.FinishReason, resp.Message.Content)
	}

	// The history goes back in the shape the server reads.
	msgs = append(msgs, resp.Message)
	for _, tc := range resp.Message.ToolCalls {
		msgs = append(msgs, llm.Message{Role: llm.RoleTool, ToolCallID: tc.ID, Content: "result of " + tc.Name})
	}
	final, err := c.Stream(t.Context(), llm.Request{Messages: msgs, Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	if final.Message.Content != "The module is github.com/yagent/yagent." || len(final.Message.ToolCalls) != 0 {
		t.Errorf("final answer = %+v", final.Message)
	}
	reqs := srv.Requests()
	if diff := cmp.Diff(msgs, reqs[1].Messages); diff != "" {
		t.Errorf("messages as the server saw them (-sent +received):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"read_file", "grep", "list_dir"}, reqs[0].Tools); diff != "" {
		t.Errorf("declared tools (-want +got):\n%s", diff)
	}
	srv.AssertDone(t)
}

// TestToolSchemaSentVerbatim pins that a tool's schema reaches the wire with
// its own key order: a stable prefix is what keeps the prompt cache warm.
func TestToolSchemaSentVerbatim(t *testing.T) {
	srv := inlineServer(t, "steps: [{repeat: true, reply: {text: ok}}]")
	c := newClient(t, srv.URL(), nil)
	schema := `{"type":"object","required":["z","a"],"properties":{"z":{"type":"string"},"a":{"type":"integer","minimum":1}}}`
	req := llm.Request{Messages: director(user("hi")), Tools: []llm.ToolDef{{Name: "t", Description: "d", Parameters: []byte(schema)}}}
	for range 2 {
		if _, err := c.Stream(t.Context(), req); err != nil {
			t.Fatal(err)
		}
	}
	reqs := srv.Requests()
	wantTool := `"tools":[{"type":"function","function":{"name":"t","description":"d","parameters":` + schema + `}}]`
	if !strings.Contains(string(reqs[0].Body), wantTool) {
		t.Errorf("request body %s\ndoes not carry the schema verbatim: %s", reqs[0].Body, wantTool)
	}
	if string(reqs[0].Body) != string(reqs[1].Body) {
		t.Errorf("the same Request gave different bodies:\n%s\n%s", reqs[0].Body, reqs[1].Body)
	}
}

func TestMalformedToolArgumentsPassThrough(t *testing.T) {
	srv := llmtest.NewTestServer(t, scenarioPath("faults.yaml"))
	c := newClient(t, srv.URL(), nil)
	resp, err := c.Stream(t.Context(), llm.Request{Messages: director(user("case:bad-args")), Tools: []llm.ToolDef{{Name: "grep"}}})
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.ToolCall{{ID: "call_bad", Name: "grep", Arguments: `{"pattern": "unterminated`}}
	if diff := cmp.Diff(want, resp.Message.ToolCalls); diff != "" {
		t.Errorf("tool calls (-want +got):\n%s", diff)
	}
}

func TestUnknownToolNamePassThrough(t *testing.T) {
	srv := llmtest.NewTestServer(t, scenarioPath("faults.yaml"))
	c := newClient(t, srv.URL(), nil)
	resp, err := c.Stream(t.Context(), llm.Request{Messages: director(user("case:unknown")), Tools: []llm.ToolDef{{Name: "grep"}}})
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.ToolCall{{ID: "call_unknown", Name: "launch_rockets", Arguments: `{"count":3}`}}
	if diff := cmp.Diff(want, resp.Message.ToolCalls); diff != "" {
		t.Errorf("tool calls (-want +got):\n%s", diff)
	}
}

func TestCancelMidStream(t *testing.T) {
	srv := inlineServer(t, `
steps:
  - chunk_delay: 2s
    reply: {text: "one two three four five six seven eight nine ten"}
`)
	c := newClient(t, srv.URL(), func(cfg *llm.EndpointConfig) { cfg.Timeout = 30 * time.Second })
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var cancelledAt time.Time
	retried := false
	_, err := c.Stream(ctx, llm.Request{Messages: director(user("count")), OnEvent: func(e llm.Event) {
		if e.Kind == llm.EventRetry {
			retried = true
		}
		if e.Kind == llm.EventText && e.Text != "" && cancelledAt.IsZero() {
			cancelledAt = time.Now()
			cancel()
		}
	}})
	if retried {
		t.Error("a retry was announced after cancellation; want none")
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Stream after cancel: err = %v; want context.Canceled", err)
	}
	// Half the chunk delay: far more than a loaded machine needs to
	// return, far less than waiting for the next chunk.
	if took := time.Since(cancelledAt); took > time.Second {
		t.Errorf("Stream returned %v after cancel; want promptly (the next chunk was 2s away)", took)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("server saw %d requests; want 1 (a cancelled request is never retried)", n)
	}
}

func TestRequestValidation(t *testing.T) {
	srv := inlineServer(t, "steps: [{repeat: true, reply: {text: ok}}]")
	c := newClient(t, srv.URL(), nil)
	for _, tc := range []struct {
		name string
		req  llm.Request
		want string
	}{
		{"unknown role", llm.Request{Messages: []llm.Message{{Role: "robot"}}}, `unknown role "robot"`},
		{"tool result without id", llm.Request{Messages: []llm.Message{{Role: llm.RoleTool, Content: "x"}}}, "without tool_call_id"},
		{"invalid schema", llm.Request{Messages: director(user("x")), Tools: []llm.ToolDef{{Name: "t", Parameters: []byte(`{"type":`)}}}, "tool t: parameters are not valid JSON"},
		{"undeclared tool choice", llm.Request{Messages: director(user("x")), ToolChoice: "nope"}, `tool choice "nope"`},
	} {
		if _, err := c.Stream(t.Context(), tc.req); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v; want it to mention %q", tc.name, err, tc.want)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("server saw %d requests; want none for invalid requests", n)
	}
}

func TestRequestOptionsOnTheWire(t *testing.T) {
	srv := inlineServer(t, "steps: [{repeat: true, reply: {text: ok}}]")
	c := newClient(t, srv.URL(), nil)
	temp := 0.25
	_, err := c.Stream(t.Context(), llm.Request{
		Model: "other-model", Messages: director(user("x")), MaxTokens: 77, Temperature: &temp,
		Tools: []llm.ToolDef{{Name: "grep"}}, ToolChoice: "grep",
	})
	if err != nil {
		t.Fatal(err)
	}
	body := string(srv.Requests()[0].Body)
	for _, want := range []string{`"model":"other-model"`, `"max_tokens":77`, `"temperature":0.25`,
		`"tool_choice":{"function":{"name":"grep"},"type":"function"}`, `"stream":true`, `"stream_options":{"include_usage":true}`} {
		if !strings.Contains(body, want) {
			t.Errorf("request body lacks %s:\n%s", want, body)
		}
	}
}

// TestNotAStreamIsReportedNotRetried pins the message for an endpoint that
// answers a streaming request with something else (a web page, or a server
// ignoring "stream": true): it is not retried as if it were a cut stream.
func TestNotAStreamIsReportedNotRetried(t *testing.T) {
	srv := inlineServer(t, "steps: [{repeat: true, stream: false, reply: {text: plain JSON}}]")
	c := newClient(t, srv.URL(), nil)
	_, err := c.Stream(t.Context(), llm.Request{Messages: director(user("x"))})
	if err == nil || !strings.Contains(err.Error(), `answered "application/json" instead of an event stream: check OPENAI_BASE_URL`) {
		t.Fatalf("err = %v; want it to say the answer was not a stream", err)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("server saw %d requests; want 1", n)
	}
}
