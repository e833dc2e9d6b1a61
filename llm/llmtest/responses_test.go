package llmtest_test

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/llm/llmtest"
)

// TestResponsesWireShape pins the Responses API events llmtest streams:
// named SSE events in OpenAI's order, reasoning before text before calls,
// the encrypted reasoning only when the request includes it, and the final
// response with its usage.
func TestResponsesWireShape(t *testing.T) {
	srv := serve(t, "steps:\n  - reply:\n      reasoning: think\n      text: hi there\n      tool_calls: [{id: c1, name: grep, arguments: {q: x}}]\n")
	body := `{"model":"m","stream":true,"store":false,"include":["reasoning.encrypted_content"],"input":[{"role":"user","content":"hi"}]}`
	res, err := http.Post(srv.URL()+"/responses", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var types []string
	var last map[string]any
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(nil, 1<<20)
	event := ""
	for sc.Scan() {
		line := sc.Text()
		if name, ok := strings.CutPrefix(line, "event: "); ok {
			event = name
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		var ev map[string]any
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			t.Fatalf("event %q: %v", data, err)
		}
		if ev["type"] != event {
			t.Errorf("event name %q carries type %v", event, ev["type"])
		}
		if len(types) == 0 || types[len(types)-1] != event {
			types = append(types, event)
		}
		last = ev
	}
	want := []string{"response.created", "response.output_item.added", "response.reasoning_summary_part.added",
		"response.reasoning_summary_text.delta", "response.reasoning_summary_text.done", "response.output_item.done",
		"response.output_item.added", "response.output_text.delta", "response.output_text.done", "response.output_item.done",
		"response.output_item.added", "response.function_call_arguments.delta", "response.function_call_arguments.done",
		"response.output_item.done", "response.completed"}
	if diff := cmp.Diff(want, types); diff != "" {
		t.Errorf("event order (-want +got):\n%s", diff)
	}
	resp := last["response"].(map[string]any)
	out := resp["output"].([]any)
	if enc := out[0].(map[string]any)["encrypted_content"]; enc != llmtest.EncryptedReasoning("resp_llmtest_1", "think") {
		t.Errorf("encrypted_content = %v", enc)
	}
	if u := resp["usage"].(map[string]any); u["input_tokens"].(float64) == 0 || u["output_tokens_details"].(map[string]any)["reasoning_tokens"].(float64) == 0 {
		t.Errorf("usage = %v", u)
	}
}

// TestResponsesInputAsMessages pins how a Responses request reads for the
// matchers: input items become the conversation llm sent.
func TestResponsesInputAsMessages(t *testing.T) {
	srv := serve(t, "steps: [{match: {last_role: tool}, reply: {text: done}}]")
	body := `{"model":"m","stream":true,"instructions":"be brief","input":[
		{"role":"developer","content":"sys"},
		{"role":"user","content":[{"type":"input_text","text":"q"}]},
		{"type":"reasoning","id":"rs_1","encrypted_content":"E","summary":[]},
		{"role":"assistant","content":"checking"},
		{"type":"function_call","call_id":"c1","name":"grep","arguments":"{}"},
		{"type":"function_call_output","call_id":"c1","output":"found"}],
		"tools":[{"type":"function","name":"grep","parameters":{}}]}`
	res, err := http.Post(srv.URL()+"/responses", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	rec := srv.Requests()[0]
	want := []llm.Message{
		{Role: llm.RoleSystem, Content: "be brief"},
		{Role: llm.RoleSystem, Content: "sys"},
		{Role: llm.RoleUser, Content: "q"},
		{Role: llm.RoleAssistant, Content: "checking", ToolCalls: []llm.ToolCall{{ID: "c1", Name: "grep", Arguments: "{}"}},
			Extras: map[string]json.RawMessage{llm.ExtraReasoningItems: json.RawMessage(`[{"type":"reasoning","id":"rs_1","encrypted_content":"E","summary":[]}]`)}},
		{Role: llm.RoleTool, ToolCallID: "c1", Content: "found"},
	}
	if diff := cmp.Diff(want, rec.Messages); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	if rec.Unmatched || !cmp.Equal(rec.Tools, []string{"grep"}) {
		t.Errorf("unmatched %v, tools %v", rec.Unmatched, rec.Tools)
	}
}
