package eventline

import (
	"strings"
	"testing"

	"github.com/yagent/yagent/agents"
)

// TestLinesSafe: what the model chose (a task, a tool's arguments and
// result, the diff and output under it, a conclusion, a note, an error)
// cannot draw over the terminal:
// no line holds an escape or a carriage return, and only notices and
// errors hold line breaks.
func TestLinesSafe(t *testing.T) {
	const bad = "x\x1b[2K\ry\u202e\nz"
	d := &agents.DelegationEvent{ID: bad, CallID: "c", Agent: bad, Task: bad, Status: bad, Ref: bad, Conclusion: bad, Reason: bad}
	events := []agents.Event{
		{Type: agents.EventToolCall, Agent: bad, Depth: 1, Tool: &agents.ToolEvent{Name: bad, Args: []byte(`{"a":"` + "x\\u001b[2K\\ry" + `"}`)}},
		{Type: agents.EventToolResult, Agent: bad, Depth: 1, Tool: &agents.ToolEvent{Name: "t", Summary: bad}},
		{Type: agents.EventToolResult, Tool: &agents.ToolEvent{Name: "t", Summary: bad, IsError: true}},
		{Type: agents.EventToolResult, Tool: &agents.ToolEvent{Name: "shell", Summary: "exit 0", Output: bad + "\n" + bad, Diff: "@@ -1 +1 @@\n-" + bad + "\n+" + bad}},
		{Type: agents.EventDelegationStarted, Delegation: d},
		{Type: agents.EventDelegationFinished, Delegation: d},
		{Type: agents.EventDelegationSkipped, Delegation: d},
		{Type: agents.EventBatchStarted, Batch: &agents.BatchEvent{Plan: bad, Board: bad}},
		{Type: agents.EventRetry, Agent: bad, Depth: 1, Text: bad, Error: bad},
		{Type: agents.EventNotice, Text: bad},
		{Type: agents.EventError, Agent: bad, Depth: 1, Error: bad},
		{Type: agents.EventNoteSaved, Note: &agents.NoteEvent{Action: bad, Name: bad, Description: bad, Body: bad}},
	}
	v := View{Details: DetailLines}
	for _, e := range events {
		lines := v.Lines(e, Options{})
		if len(lines) == 0 {
			t.Errorf("%s: no line", e.Type)
		}
		for _, l := range lines {
			if strings.ContainsAny(l.Text, "\x1b\r\u202e") {
				t.Errorf("%s: line %q holds a control character", e.Type, l.Text)
			}
			if strings.Contains(l.Text, "\n") && l.Kind != Notice && l.Kind != Error {
				t.Errorf("%s: line %q of kind %d breaks", e.Type, l.Text, l.Kind)
			}
		}
	}
}

// TestLabels: the lead's delegations are numbered per agent name within a
// turn, and a sub-agent's lines carry its delegation's label; the next
// turn counts from 1 again.
func TestLabels(t *testing.T) {
	var v View
	started := func(id string) string {
		return v.Lines(agents.Event{Type: agents.EventDelegationStarted, Delegation: &agents.DelegationEvent{CallID: id, Agent: "explorer", Task: "t"}}, Options{})[0].Text
	}
	v.Lines(agents.Event{Type: agents.EventTurnStarted}, Options{})
	if got := started("a") + " | " + started("b"); got != "⇢ explorer#1: t | ⇢ explorer#2: t" {
		t.Errorf("parallel delegations = %q", got)
	}
	sub := v.Lines(agents.Event{Type: agents.EventToolCall, Agent: "explorer", Depth: 1, Parent: "b", Tool: &agents.ToolEvent{Name: "grep"}}, Options{})
	if got := sub[0].Text; got != "  ▸ explorer#2: grep " {
		t.Errorf("sub-agent line = %q", got)
	}
	v.Lines(agents.Event{Type: agents.EventTurnStarted, Depth: 1}, Options{}) // a sub-agent's turn counts nothing
	if got := started("c"); got != "⇢ explorer#3: t" {
		t.Errorf("third delegation of the turn = %q", got)
	}
	v.Lines(agents.Event{Type: agents.EventTurnStarted}, Options{})
	if got := started("d"); got != "⇢ explorer#1: t" {
		t.Errorf("first delegation of the next turn = %q", got)
	}
}
