package memory

import (
	"strings"
	"testing"

	"github.com/yagent/yagent/event"
	"github.com/yagent/yagent/llm"
)

func TestRebuildCompactionAndClear(t *testing.T) {
	msg := func(c string) Item { m := user(c); return Item{Event: event.Event{Type: event.Message, Message: &m}} }
	compacted := func(summary string, upto int) Item {
		return Item{Event: event.Event{Type: event.Compacted, Compaction: &event.CompactionEvent{Summary: summary, Upto: upto}}}
	}
	items := []Item{msg("m0"), msg("m1"), msg("m2"), compacted("S1", 2), msg("m3"), compacted("S2", 3), msg("m4")}
	m, _ := Rebuild(items)
	h := m.History(nil)
	if m.Summary != "S2" || m.Base != 3 || len(h) != 3 || !strings.Contains(h[0].Content, "S2") || h[1].Content != "m3" || h[2].Content != "m4" {
		t.Errorf("after two compactions: base %d, history %+v", m.Base, h)
	}
	m, _ = Rebuild(append(items, Item{Event: event.Event{Type: event.Cleared, Compaction: &event.CompactionEvent{Upto: 5}}}, msg("m5")))
	h = m.History(nil)
	if m.Summary != "" || len(h) != 1 || h[0].Content != "m5" {
		t.Errorf("after clear: %+v", h)
	}
}

// TestHistoryRepairsInterruptedCalls: tool calls left without a result by
// a crash get one, so the resumed history is valid for the API.
func TestHistoryRepairsInterruptedCalls(t *testing.T) {
	calls := []llm.ToolCall{{ID: "a", Name: "read_file"}, {ID: "b", Name: "delegate"}, {ID: "c", Name: "grep"}}
	m := &Memory{Messages: []llm.Message{user("go"), {Role: llm.RoleAssistant, ToolCalls: calls}, {Role: llm.RoleTool, ToolCallID: "a", Content: "ok"}, user("next")}}
	h := m.History(map[string]string{"b": "recovered as note explorer/x (degraded)"})
	want := []string{"go", "", "ok", "recovered as note explorer/x (degraded)", "error: interrupted", "next"}
	if len(h) != len(want) {
		t.Fatalf("history has %d messages; want %d: %+v", len(h), len(want), h)
	}
	for i, w := range want {
		if !strings.HasPrefix(h[i].Content, w) {
			t.Errorf("message %d = %q; want prefix %q", i, h[i].Content, w)
		}
	}
	if h[3].ToolCallID != "b" || h[4].ToolCallID != "c" {
		t.Errorf("synthetic results for %q, %q", h[3].ToolCallID, h[4].ToolCallID)
	}
}

func TestCutPoint(t *testing.T) {
	u, a := user("u"), assistant("a")
	tool := llm.Message{Role: llm.RoleTool}
	tests := []struct {
		msgs []llm.Message
		keep int
		want int
	}{
		{[]llm.Message{u, a}, 2, 0},
		{[]llm.Message{u, a, u, a}, 2, 2},
		{[]llm.Message{u, a, tool, a, u, a, u, a}, 2, 4},
		{[]llm.Message{u, a, u, a, u, a}, 1, 4},
		// A leading partial turn (a mid-turn compaction cut into it) is a turn.
		{[]llm.Message{a, tool, a, u, a}, 1, 3},
		{[]llm.Message{a, tool, u, a, u, a}, 2, 2},
	}
	for i, tt := range tests {
		if got := cutPoint(tt.msgs, tt.keep); got != tt.want {
			t.Errorf("case %d: cutPoint = %d; want %d", i, got, tt.want)
		}
	}
}
