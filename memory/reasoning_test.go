package memory

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/yagent/yagent/llm"
)

// TestRolloutKeepsProviderExtras pins that an assistant message comes back
// from the rollout on resume with what the provider demands back: its
// reasoning, the message's extras (encrypted reasoning items, OpenRouter's
// reasoning_details) and a call's extras (Gemini's thought_signature).
func TestRolloutKeepsProviderExtras(t *testing.T) {
	st := newStore(t)
	s := newSession(t, st, KindRun, t.TempDir())
	msgs := []llm.Message{
		user("weather?"),
		{Role: llm.RoleAssistant, Reasoning: "I should call the tool.",
			Extras: map[string]json.RawMessage{llm.ExtraReasoningItems: json.RawMessage(`[{"type":"reasoning","id":"rs_1","encrypted_content":"gAAA"}]`)},
			ToolCalls: []llm.ToolCall{{ID: "c1", Name: "weather", Arguments: `{"location":"Paris"}`,
				Extras: map[string]json.RawMessage{"extra_content": json.RawMessage(`{"google":{"thought_signature":"EjQK"}}`)}}}},
		{Role: llm.RoleTool, ToolCallID: "c1", Content: "sunny"},
	}
	for _, m := range msgs {
		if err := s.Append(m); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	r, err := st.Resume(t.Context(), s.ID())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if diff := cmp.Diff(msgs, r.History()); diff != "" {
		t.Errorf("history after resume (-appended +loaded):\n%s", diff)
	}
}
