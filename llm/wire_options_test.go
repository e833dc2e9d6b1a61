package llm_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/llm/llmtest"
)

// TestEscapeHatches pins models.<name>.extra_body (adds or replaces
// top-level fields, in place), drop_params (removes them, after everything
// else) and extra_headers.
func TestEscapeHatches(t *testing.T) {
	srv := inlineServer(t, "steps: [{repeat: true, reply: {text: ok}}]")
	c := newClient(t, srv.URL(), func(cfg *llm.EndpointConfig) {
		cfg.ExtraBody = map[string]any{"top_k": 20, "temperature": 0.7, "chat_template_kwargs": map[string]any{"enable_thinking": false}}
		cfg.DropParams = []string{"stream_options", "top_k"}
		cfg.ExtraHeaders = map[string]string{"HTTP-Referer": "https://yagent.dev", "X-Title": "yagent"}
	})
	temp := 0.1
	if _, err := c.Stream(t.Context(), llm.Request{Messages: director(user("x")), Temperature: &temp}); err != nil {
		t.Fatal(err)
	}
	rec := srv.Requests()[0]
	var body map[string]json.RawMessage
	if err := json.Unmarshal(rec.Body, &body); err != nil {
		t.Fatal(err)
	}
	if got := string(body["temperature"]); got != "0.7" {
		t.Errorf("temperature = %s; want extra_body's 0.7 over the request's 0.1", got)
	}
	if got := string(body["chat_template_kwargs"]); got != `{"enable_thinking":false}` {
		t.Errorf("chat_template_kwargs = %s", got)
	}
	for _, k := range []string{"stream_options", "top_k"} {
		if _, ok := body[k]; ok {
			t.Errorf("%s was sent; drop_params names it", k)
		}
	}
	if rec.Header.Get("X-Title") != "yagent" || rec.Header.Get("HTTP-Referer") != "https://yagent.dev" {
		t.Errorf("headers = %v; want the extra headers", rec.Header)
	}
}

func TestNewOpenAIRejectsUnknownProviderAndAPI(t *testing.T) {
	if _, err := llm.NewOpenAI(llm.EndpointConfig{BaseURL: "http://h/v1", Provider: "claude"}); err == nil || !strings.Contains(err.Error(), `models.<name>.provider: unknown provider "claude"`) {
		t.Errorf("unknown provider: err = %v", err)
	}
	if _, err := llm.NewOpenAI(llm.EndpointConfig{BaseURL: "http://h/v1", API: "completions"}); err == nil || !strings.Contains(err.Error(), `models.<name>.api: unknown API "completions" (want chat or responses)`) {
		t.Errorf("unknown api: err = %v", err)
	}
}

// TestReasoningIsNotTheAnswer pins, over Chat Completions, that reasoning
// comes as EventReasoning, is kept apart from the text and is counted.
func TestReasoningIsNotTheAnswer(t *testing.T) {
	srv := inlineServer(t, "steps: [{reply: {reasoning: 'Think first. Then answer.', text: 'The answer.'}}]")
	c := newClient(t, srv.URL(), nil)
	var ev events
	resp, err := c.Stream(t.Context(), llm.Request{Messages: director(user("q")), OnEvent: ev.add})
	if err != nil {
		t.Fatal(err)
	}
	var text, reasoning string
	for _, e := range ev.list() {
		switch e.Kind {
		case llm.EventText:
			text += e.Text
		case llm.EventReasoning:
			reasoning += e.Text
		}
	}
	if text != "The answer." || resp.Message.Content != text {
		t.Errorf("text = %q, content = %q; want only the answer", text, resp.Message.Content)
	}
	if reasoning != "Think first. Then answer." || resp.Message.Reasoning != reasoning {
		t.Errorf("reasoning = %q, kept %q", reasoning, resp.Message.Reasoning)
	}
	if resp.Usage.ReasoningTokens == 0 {
		t.Errorf("usage = %+v; want reasoning tokens counted", resp.Usage)
	}
}

// TestResponsesReasoningRoundTrip pins the Responses API wire through the
// scripted server: reasoning streams as reasoning, the encrypted reasoning
// item comes back verbatim before its call on the next request (store
// false), reasoning.effort comes from the configuration, and usage, cached
// tokens included, is read.
func TestResponsesReasoningRoundTrip(t *testing.T) {
	srv := inlineServer(t, `
steps:
  - id: first
    reply:
      reasoning: "I need the weather first."
      text: "Let me check."
      tool_calls: [{id: call_w, name: weather, arguments: {location: Paris}}]
  - id: second
    match: {last_role: tool}
    reply: {text: "Sunny."}
`)
	c := newClient(t, srv.URL(), func(cfg *llm.EndpointConfig) {
		cfg.API, cfg.ReasoningEffort = llm.APIResponses, "medium"
	})
	tools := []llm.ToolDef{{Name: "weather", Description: "Weather.", Parameters: []byte(`{"type":"object","properties":{"location":{"type":"string"}}}`)}}
	msgs := director(user("weather in Paris?"))
	var ev events
	first, err := c.Stream(t.Context(), llm.Request{Messages: msgs, Tools: tools, OnEvent: ev.add})
	if err != nil {
		t.Fatal(err)
	}
	if first.Message.Content != "Let me check." || first.Message.Reasoning != "I need the weather first." || first.FinishReason != "tool_calls" {
		t.Errorf("first answer = %+v", first)
	}
	if n := len(ev.of(llm.EventReasoning)); n == 0 {
		t.Error("no reasoning events")
	}
	if len(first.Message.ToolCalls) != 1 || first.Message.ToolCalls[0].ID != "call_w" || first.Message.ToolCalls[0].Arguments != `{"location":"Paris"}` {
		t.Errorf("tool calls = %+v", first.Message.ToolCalls)
	}
	msgs = append(msgs, first.Message, llm.Message{Role: llm.RoleTool, ToolCallID: "call_w", Content: "sunny"})
	second, err := c.Stream(t.Context(), llm.Request{Messages: msgs, Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	if second.Message.Content != "Sunny." || second.Usage.CachedTokens == 0 {
		t.Errorf("second answer = %+v; want the text and cached tokens of the stable prefix", second)
	}
	reqs := srv.Requests()
	var body struct {
		Input     []map[string]any  `json:"input"`
		Store     *bool             `json:"store"`
		Include   []string          `json:"include"`
		Reasoning map[string]string `json:"reasoning"`
	}
	if err := json.Unmarshal(reqs[1].Body, &body); err != nil {
		t.Fatal(err)
	}
	if body.Store == nil || *body.Store || len(body.Include) != 1 || body.Reasoning["effort"] != "medium" {
		t.Errorf("store %v, include %v, reasoning %v; want false, the encrypted content, effort medium", body.Store, body.Include, body.Reasoning)
	}
	var types []string
	for _, it := range body.Input {
		typ, _ := it["type"].(string)
		if typ == "" {
			typ, _ = it["role"].(string)
		}
		types = append(types, typ)
	}
	if got := strings.Join(types, ","); got != "system,user,reasoning,assistant,function_call,function_call_output" {
		t.Errorf("input items = %s", got)
	}
	want := llmtest.EncryptedReasoning("resp_llmtest_1", "I need the weather first.")
	if got := body.Input[2]["encrypted_content"]; got != want {
		t.Errorf("reasoning item sent back with encrypted_content %v; want %q", got, want)
	}
	if reqs[1].Path != "/v1/responses" || reqs[1].StepID != "second" {
		t.Errorf("second request %s answered by %s", reqs[1].Path, reqs[1].StepID)
	}
	srv.AssertDone(t)
}

// TestResponsesRetries pins the same retry policy on the Responses API: a
// 429 and a cut stream are retried, a failed response is reported.
func TestResponsesRetries(t *testing.T) {
	srv := inlineServer(t, `
steps:
  - id: limited
    match: {contains: one}
    fault: {kind: status, status: 429}
    reply: {text: "after the limit"}
  - id: cut
    match: {contains: two}
    fault: {kind: cut_stream, after_bytes: 300}
    reply: {text: "after the cut, a longer answer that does not fit in three hundred bytes of events"}
  - id: failed
    match: {contains: three}
    reply: {text: "partial", finish_reason: error}
    repeat: true
`)
	c := newClient(t, srv.URL(), func(cfg *llm.EndpointConfig) { cfg.API = llm.APIResponses; cfg.MaxRetries = 1 })
	for _, tc := range []struct{ prompt, want string }{{"one", "after the limit"}, {"two", "after the cut"}} {
		resp, err := c.Stream(t.Context(), llm.Request{Messages: director(user(tc.prompt))})
		if err != nil || !strings.HasPrefix(resp.Message.Content, tc.want) || resp.Attempts != 2 {
			t.Errorf("%s: resp = %+v, err = %v; want %q after a retry", tc.prompt, resp, err, tc.want)
		}
	}
	_, err := c.Stream(t.Context(), llm.Request{Messages: director(user("three"))})
	if err == nil || !strings.Contains(err.Error(), "server_error") || !strings.Contains(err.Error(), "gave up after 2 attempts") {
		t.Errorf("failed response: err = %v; want the provider's error, retried once", err)
	}
}

// TestStreamEndsThatAreNotAnswers pins that a content filter or a length
// stop before any text is an error, never an empty answer, and is not
// retried (the same request would end the same way).
func TestStreamEndsThatAreNotAnswers(t *testing.T) {
	srv := inlineServer(t, `
steps:
  - {match: {contains: filter}, repeat: true, reply: {text: "I", finish_reason: content_filter}}
  - {match: {contains: long}, repeat: true, reply: {reasoning: "so much thinking", finish_reason: length}}
`)
	c := newClient(t, srv.URL(), nil)
	for _, tc := range []struct{ prompt, want string }{
		{"filter", `content filter stopped the answer (finish_reason "content_filter")`},
		{"long", "spent its whole output limit on reasoning, before any text"},
	} {
		_, err := c.Stream(t.Context(), llm.Request{Messages: director(user(tc.prompt))})
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, llm.ErrFinishedWithoutAnswer) {
			t.Errorf("%s: err = %v; want %q", tc.prompt, err, tc.want)
		}
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("server saw %d requests; want 2 (no retries)", n)
	}
}

// TestProviderRejectionSaysWhatToChange pins the hint of a refused request:
// the provider's own message, then the setting that fixes it.
func TestProviderRejectionSaysWhatToChange(t *testing.T) {
	for _, tc := range []struct{ msg, want string }{
		{"thinking is enabled but reasoning_content is missing in assistant tool call message at index 2", "set models.<name>.provider to deepseek or moonshot (now generic)"},
		{"Function call is missing a thought_signature in functionCall parts.", "set models.<name>.provider: gemini (now generic)"},
		{"Unexpected role 'user' after role 'tool'", "set models.<name>.provider: mistral (now generic)"},
	} {
		y := "steps: [{fault: {kind: status, status: 400, message: \"" + tc.msg + "\"}}]"
		srv := inlineServer(t, y)
		c := newClient(t, srv.URL(), nil)
		_, err := c.Stream(t.Context(), llm.Request{Messages: director(user("x"))})
		if err == nil || !strings.Contains(err.Error(), tc.msg) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("err = %v; want the message and %q", err, tc.want)
		}
	}
}
