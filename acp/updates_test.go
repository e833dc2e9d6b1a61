package acp

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/yagent/yagent/event"
	"github.com/yagent/yagent/llm"
)

// TestUpdates: each event of the vocabulary maps to the session updates
// an editor shows, as JSON on the wire. A case is a run of events (the
// mapper remembers a turn's delegations); want holds the updates of the
// last event.
func TestUpdates(t *testing.T) {
	lead := func(e event.Event) event.Event { e.Agent = "director"; return e }
	sub := func(e event.Event) event.Event { e.Agent, e.Depth, e.Parent = "explorer", 1, "call_d"; return e }
	call := &event.ToolEvent{CallID: "call_1", Name: "read_file", Args: json.RawMessage(`{"path":"main.go"}`)}
	delegate := &event.DelegationEvent{CallID: "call_d", Agent: "explorer", Task: "map the repo"}
	finished := *delegate
	finished.Status, finished.Ref, finished.Conclusion = "ok", "explorer/map", "three packages"
	failed := *delegate
	failed.Status, failed.Reason = "error", "model unreachable"
	for _, tc := range []struct {
		name   string
		events []event.Event
		want   []string
	}{
		{"text delta is an agent message chunk", []event.Event{lead(event.Event{Type: event.TextDelta, Text: "Hello"})},
			[]string{`{"content":{"text":"Hello","type":"text"},"sessionUpdate":"agent_message_chunk"}`}},
		{"empty delta shows nothing", []event.Event{lead(event.Event{Type: event.TextDelta})}, nil},
		{"reasoning is a thought", []event.Event{lead(event.Event{Type: event.ReasoningDelta, Text: "hmm"})},
			[]string{`{"content":{"text":"hmm","type":"text"},"sessionUpdate":"agent_thought_chunk"}`}},
		{"tool call", []event.Event{lead(event.Event{Type: event.ToolCall, Tool: call})},
			[]string{`{"toolCallId":"call_1","title":"read_file path=main.go","kind":"read","status":"in_progress","rawInput":{"path":"main.go"},"sessionUpdate":"tool_call"}`}},
		{"tool result", []event.Event{lead(event.Event{Type: event.ToolResult, Tool: &event.ToolEvent{CallID: "call_1", Name: "read_file", Summary: "3 lines"}})},
			[]string{`{"toolCallId":"call_1","status":"completed","content":[{"content":{"text":"3 lines","type":"text"},"type":"content"}],"sessionUpdate":"tool_call_update"}`}},
		{"tool error result fails the call", []event.Event{lead(event.Event{Type: event.ToolResult, Tool: &event.ToolEvent{CallID: "call_2", Name: "shell", Summary: "declined", IsError: true}})},
			[]string{`{"toolCallId":"call_2","status":"failed","content":[{"content":{"text":"declined","type":"text"},"type":"content"}],"sessionUpdate":"tool_call_update"}`}},
		{"delegation starts under its delegate call, and is the plan", []event.Event{
			lead(event.Event{Type: event.TurnStarted}),
			lead(event.Event{Type: event.DelegationStarted, Delegation: delegate})},
			[]string{
				`{"toolCallId":"call_d","title":"⇢ explorer#1: map the repo","status":"in_progress","content":[{"content":{"text":"⇢ explorer#1: map the repo","type":"text"},"type":"content"}],"sessionUpdate":"tool_call_update"}`,
				`{"entries":[{"content":"explorer: map the repo","priority":"medium","status":"in_progress"}],"sessionUpdate":"plan"}`,
			}},
		{"a sub-agent's progress is its delegation's content", []event.Event{
			lead(event.Event{Type: event.DelegationStarted, Delegation: delegate}),
			sub(event.Event{Type: event.ToolCall, Tool: call})},
			[]string{`{"toolCallId":"call_d","content":[{"content":{"text":"▸ explorer#1: read_file path=main.go","type":"text"},"type":"content"}],"sessionUpdate":"tool_call_update"}`}},
		{"a sub-agent's text is not the lead's answer", []event.Event{sub(event.Event{Type: event.TextDelta, Text: "thinking aloud"})}, nil},
		{"delegation finishes its call and its plan entry", []event.Event{
			lead(event.Event{Type: event.DelegationStarted, Delegation: delegate}),
			lead(event.Event{Type: event.DelegationFinished, Delegation: &finished})},
			[]string{
				`{"toolCallId":"call_d","status":"completed","content":[{"content":{"text":"⇠ explorer#1 ok explorer/map — three packages","type":"text"},"type":"content"}],"sessionUpdate":"tool_call_update"}`,
				`{"entries":[{"content":"explorer: map the repo","priority":"medium","status":"completed"}],"sessionUpdate":"plan"}`,
			}},
		{"a failed delegation fails its call", []event.Event{lead(event.Event{Type: event.DelegationFinished, Delegation: &failed})},
			[]string{
				`{"toolCallId":"call_d","status":"failed","content":[{"content":{"text":"⇠ explorer error (no note) — model unreachable","type":"text"},"type":"content"}],"sessionUpdate":"tool_call_update"}`,
				`{"entries":[{"content":"explorer: map the repo","priority":"medium","status":"completed"}],"sessionUpdate":"plan"}`,
			}},
		{"a batch's report is the plan", []event.Event{lead(event.Event{Type: event.BatchFinished, Batch: &event.BatchEvent{Plan: "audit.yaml",
			Rows: []event.DelegationEvent{{ID: "scan", Agent: "explorer", Status: "ok"}, {ID: "fix", Agent: "worker", Status: "skipped"}}}})},
			[]string{`{"entries":[{"content":"scan (explorer): ok","priority":"medium","status":"completed"},{"content":"fix (worker): skipped","priority":"medium","status":"completed"}],"sessionUpdate":"plan"}`}},
		{"a notice is a thought", []event.Event{lead(event.Event{Type: event.Notice, Text: "compacted 12 messages"})},
			[]string{`{"content":{"text":"compacted 12 messages\n","type":"text"},"sessionUpdate":"agent_thought_chunk"}`}},
		{"an error is a thought", []event.Event{lead(event.Event{Type: event.Error, Error: "stream cut"})},
			[]string{`{"content":{"text":"error: stream cut\n","type":"text"},"sessionUpdate":"agent_thought_chunk"}`}},
		{"usage and a turn's end show nothing", []event.Event{lead(event.Event{Type: event.Usage, Usage: &event.UsageEvent{Requests: 1}}), lead(event.Event{Type: event.TurnFinished})}, nil},
		{"replayed user message", []event.Event{{Type: event.Message, Message: &llm.Message{Role: llm.RoleUser, Content: "fix it"}}},
			[]string{`{"content":{"text":"fix it","type":"text"},"sessionUpdate":"user_message_chunk"}`}},
		{"replayed answer with its calls", []event.Event{{Type: event.Message, Message: &llm.Message{Role: llm.RoleAssistant, Content: "On it.", Reasoning: "plan",
			ToolCalls: []llm.ToolCall{{ID: "c1", Name: "shell", Arguments: `{"command":"go test"}`}}}}},
			[]string{
				`{"content":{"text":"plan","type":"text"},"sessionUpdate":"agent_thought_chunk"}`,
				`{"content":{"text":"On it.","type":"text"},"sessionUpdate":"agent_message_chunk"}`,
				`{"toolCallId":"c1","title":"shell command=go test","kind":"execute","status":"in_progress","rawInput":{"command":"go test"},"sessionUpdate":"tool_call"}`,
			}},
		{"replayed tool output", []event.Event{{Type: event.Message, Message: &llm.Message{Role: llm.RoleTool, ToolCallID: "c1", Content: "error: declined"}}},
			[]string{`{"toolCallId":"c1","status":"failed","content":[{"content":{"text":"error: declined","type":"text"},"type":"content"}],"sessionUpdate":"tool_call_update"}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var m Mapper
			var got []any
			for _, e := range tc.events {
				got = nil
				for _, u := range m.Updates(e) {
					got = append(got, wire(t, u))
				}
			}
			var want []any
			for _, w := range tc.want {
				want = append(want, wire(t, json.RawMessage(w)))
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("updates (-want +got):\n%s", diff)
			}
		})
	}
}

// wire is v as JSON decodes it: what the client reads.
func wire(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal %+v: %v", v, err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("unmarshal %s: %v", b, err)
	}
	return out
}
