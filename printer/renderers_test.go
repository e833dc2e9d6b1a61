package printer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/agents/eventline"
	"github.com/yagent/yagent/event"
	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/tui"
)

// rendererEvents is a run with every event type, in an order a run emits
// them: a batch starting, the lead's tools, parallel sub-agents, retries,
// notices, a note saved with a change, delegations finishing and skipped.
func rendererEvents() []struct {
	name string
	e    agents.Event
} {
	t0 := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	args := json.RawMessage(`{"path":"go.mod","limit":5}`)
	usage := &agents.UsageEvent{Requests: 1, Usage: llm.Usage{PromptTokens: 1200, CachedTokens: 800, CompletionTokens: 90}}
	return []struct {
		name string
		e    agents.Event
	}{
		{"batch started", agents.Event{Type: agents.EventBatchStarted, Time: at(0), Batch: &agents.BatchEvent{Plan: "plan.yaml", Board: "b1", Delegations: 3, Parallel: 2}}},
		{"batch started, resuming, unbounded", agents.Event{Type: agents.EventBatchStarted, Time: at(0), Batch: &agents.BatchEvent{Plan: "plan.yaml", Board: "b1", Delegations: 3, Resume: true}}},
		{"turn started", agents.Event{Type: agents.EventTurnStarted, Time: at(0), Agent: "director", Text: "map the repo"}},
		{"text delta", agents.Event{Type: agents.EventTextDelta, Agent: "director", Depth: 1, Text: "a sub-agent's text is not shown"}},
		{"reasoning delta", agents.Event{Type: agents.EventReasoningDelta, Agent: "director", Depth: 1, Text: "nor its reasoning"}},
		{"tool call", agents.Event{Type: agents.EventToolCall, Agent: "director", Tool: &agents.ToolEvent{CallID: "c1", Name: "read_file", Args: args}}},
		{"tool result", agents.Event{Type: agents.EventToolResult, Agent: "director", Tool: &agents.ToolEvent{CallID: "c1", Name: "read_file", Summary: "3 lines\nof go.mod"}}},
		{"tool result, error", agents.Event{Type: agents.EventToolResult, Agent: "director", Tool: &agents.ToolEvent{CallID: "c2", Name: "read_file", IsError: true,
			Summary: `path "../x" is outside the workspace: read files under the workspace root, ` + strings.Repeat("or ask the person to widen it; ", 6)}}},
		{"write with its diff", agents.Event{Type: agents.EventToolResult, Agent: "director", Tool: &agents.ToolEvent{CallID: "c4", Name: "edit_file", Summary: "edited",
			Diff: "--- a/go.mod\n+++ b/go.mod\n@@ -1,2 +1,2 @@\n module example.com/demo\n-go 1.25\n+go 1.26\n"}}},
		{"write with a long diff, collapsed", agents.Event{Type: agents.EventToolResult, Agent: "director", Tool: &agents.ToolEvent{CallID: "c5", Name: "write_file", Summary: "created, 60 bytes",
			Diff: "--- /dev/null\n+++ b/steps.txt\n@@ -0,0 +1,15 @@\n" + strings.Repeat("+step\t\x1b[2J\n", 15)}}},
		{"command with its output", agents.Event{Type: agents.EventToolResult, Agent: "director", Tool: &agents.ToolEvent{CallID: "c6", Name: "shell", Summary: "exit 1, 19ms", IsError: true,
			Output: "FAIL pkg\n… 3 more lines\nexit status 1", ExitCode: new(1)}}},
		{"tool call, quiet", agents.Event{Type: agents.EventToolCall, Agent: "director", Tool: &agents.ToolEvent{CallID: "c3", Name: "chat_note_save", Quiet: true}}},
		{"tool call, delegate", agents.Event{Type: agents.EventToolCall, Agent: "director", Tool: &agents.ToolEvent{CallID: "d1", Name: "delegate"}}},
		{"usage", agents.Event{Type: agents.EventUsage, Agent: "director", Usage: usage}},
		{"delegation started", agents.Event{Type: agents.EventDelegationStarted, Time: at(100), Agent: "director",
			Delegation: &agents.DelegationEvent{CallID: "d1", Agent: "explorer", Task: "Map the packages\nand their imports"}}},
		{"delegation started, same agent in parallel", agents.Event{Type: agents.EventDelegationStarted, Time: at(100), Agent: "director",
			Delegation: &agents.DelegationEvent{CallID: "d2", Agent: "explorer", Task: "Read go.mod"}}},
		{"sub-agent tool call", agents.Event{Type: agents.EventToolCall, Agent: "explorer", Depth: 1, Parent: "d2", Step: 1, Tool: &agents.ToolEvent{CallID: "s1", Name: "read_file", Args: args}}},
		{"sub-agent tool result", agents.Event{Type: agents.EventToolResult, Agent: "explorer", Depth: 1, Parent: "d2", Tool: &agents.ToolEvent{CallID: "s1", Name: "read_file", Summary: "3 lines"}}},
		{"sub-agent retry", agents.Event{Type: agents.EventRetry, Agent: "explorer", Depth: 1, Parent: "d1", Text: "retrying (2/4) in 500ms", Error: "429 Too Many Requests"}},
		{"sub-agent error", agents.Event{Type: agents.EventError, Agent: "explorer", Depth: 1, Parent: "d1", Error: "model call 3: connection reset\nafter 2 attempts"}},
		{"sub-agent usage", agents.Event{Type: agents.EventUsage, Agent: "explorer", Depth: 1, Parent: "d1", Usage: usage}},
		{"delegation finished", agents.Event{Type: agents.EventDelegationFinished, Time: at(1600), Agent: "director",
			Delegation: &agents.DelegationEvent{CallID: "d1", Agent: "explorer", Status: "ok", Ref: "explorer/20260501-map", Conclusion: "go 1.26, 18 packages", ElapsedMS: 1500, Usage: usage}}},
		{"delegation finished with a change", agents.Event{Type: agents.EventDelegationFinished, Time: at(1650), Agent: "director",
			Delegation: &agents.DelegationEvent{CallID: "d3", Agent: "worker", Status: "ok", Ref: "worker/20260501-edit", Conclusion: "edited", ElapsedMS: 2100,
				Change: &event.ChangeStat{Files: 2, Insertions: 12, Deletions: 3}}}},
		{"delegation finished, no note", agents.Event{Type: agents.EventDelegationFinished, Time: at(1700), Agent: "director",
			Delegation: &agents.DelegationEvent{CallID: "d2", Agent: "explorer", Status: "abandoned", Conclusion: "", Reason: "cancelled", ElapsedMS: 340}}},
		{"retry", agents.Event{Type: agents.EventRetry, Agent: "director", Step: 2, Text: "retrying (2/4) in 500ms", Error: "stream ended before the answer finished"}},
		{"notice", agents.Event{Type: agents.EventNotice, Agent: "director", Text: "compacted 12 messages into a summary\n(/history shows them)"}},
		{"notice with escapes", agents.Event{Type: agents.EventNotice, Agent: "yagent", Text: "replay of \x1b[31mdemo\r"}},
		{"note saved with a change", agents.Event{Type: agents.EventNoteSaved, Agent: "director", Note: &agents.NoteEvent{Action: "saved", Name: "goal",
			Description: "the goal", PrevBody: "ship it\nby friday", Body: "ship it\nby monday\nwith tests"}}},
		{"note created, long", agents.Event{Type: agents.EventNoteSaved, Agent: "director", Note: &agents.NoteEvent{Action: "created", Name: "plan",
			Description: "steps", Body: strings.Repeat("step\n", 14)}}},
		{"note pinned", agents.Event{Type: agents.EventNoteSaved, Agent: "director", Note: &agents.NoteEvent{Action: "pinned", Name: "goal", Description: "the goal", Body: "ship it"}}},
		{"error", agents.Event{Type: agents.EventError, Agent: "director", Error: "model call 4: 500 Internal Server Error"}},
		{"turn finished", agents.Event{Type: agents.EventTurnFinished, Agent: "director", Reason: "answer", Usage: usage}},
		{"batch delegation started", agents.Event{Type: agents.EventDelegationStarted, Time: at(200), Agent: "yagent",
			Delegation: &agents.DelegationEvent{ID: "deps", CallID: "deps", Agent: "explorer", Task: "Read go.mod"}}},
		{"batch delegation finished", agents.Event{Type: agents.EventDelegationFinished, Time: at(1700), Agent: "yagent",
			Delegation: &agents.DelegationEvent{ID: "deps", CallID: "deps", Agent: "explorer", Status: "partial", Ref: "explorer/x", Conclusion: "go 1.26", ElapsedMS: 1500}}},
		{"batch delegation resumed", agents.Event{Type: agents.EventDelegationFinished, Time: at(1800), Agent: "yagent",
			Delegation: &agents.DelegationEvent{ID: "docs", CallID: "docs", Agent: "explorer", Status: "ok", Ref: "explorer/y", Resumed: true}}},
		{"batch delegation skipped", agents.Event{Type: agents.EventDelegationSkipped, Time: at(1900), Agent: "yagent",
			Delegation: &agents.DelegationEvent{ID: "test", CallID: "test", Agent: "worker", Status: "skipped", Reason: "dependency build ended in error"}}},
		{"batch finished", agents.Event{Type: agents.EventBatchFinished, Time: at(2000), Agent: "yagent", Batch: &agents.BatchEvent{Plan: "plan.yaml"}}},
	}
}

// clock is the batch printer's time before a delegation's lines.
var clock = regexp.MustCompile(`^\[ *\d+\.\ds\] `)

// TestRenderersAgree pins that an event reads the same wherever it is
// shown: the plain printer (yagent run), the batch printer (yagent
// batch) and the interactive view (tui) print, for every event type, the
// lines of agents/eventline — in testdata/TestRenderersAgree.golden
// (-update rewrites it) — and only style them (the batch printer puts
// the time since the batch began before a delegation's lines).
func TestRenderersAgree(t *testing.T) {
	var errOut, out bytes.Buffer
	plain := NewHuman(&out, &errOut)
	plain.Verbose = true // -v: what a tool's result changed, as the TUI shows it
	var batchOut bytes.Buffer
	batch := NewBatch(&batchOut, false)
	scroll := tui.NewScrollback(100)
	// The width the TUI's view gives a summary; the TUI and the plain
	// printer with -v show what a result changed, the batch printer not;
	// only the TUI has a key for the collapsed rest.
	view := eventline.View{Width: 100 - 8, Details: eventline.DetailLines, More: "ctrl+o shows them"}
	plainView := eventline.View{Width: 100 - 8, Details: eventline.DetailLines}
	batchView := eventline.View{Width: 100 - 8}
	lines := func(v *eventline.View, e agents.Event) string {
		var b strings.Builder
		for _, l := range v.Lines(e, eventline.Options{}) {
			b.WriteString(l.Text + "\n")
		}
		return b.String()
	}

	var golden strings.Builder
	for _, tc := range rendererEvents() {
		want := lines(&view, tc.e)
		wantPlain, wantBatch := lines(&plainView, tc.e), lines(&batchView, tc.e)
		fmt.Fprintf(&golden, "## %s\n%s", tc.name, want)

		errOut.Reset()
		plain.Emit(tc.e)
		batchOut.Reset()
		batch.Emit(tc.e)
		for _, r := range []struct{ name, got, want string }{
			{"plain printer", errOut.String(), wantPlain},
			{"tui", scroll.Emit(tc.e), want},
			{"batch printer", batchClockless(t, tc.e, batchOut.String()), wantBatch},
		} {
			if r.got != r.want {
				t.Errorf("%s: the %s printed\n%q\nwant (eventline)\n%q", tc.name, r.name, r.got, r.want)
			}
		}
		if out.Len() > 0 {
			t.Errorf("%s: the plain printer wrote %q on stdout; events other than the answer go to stderr", tc.name, out.String())
		}
	}
	requireGolden(t, golden.String())
}

// batchClockless strips the time the batch printer puts before each line
// of a delegation, requiring it there and nowhere else.
func batchClockless(t *testing.T, e agents.Event, s string) string {
	t.Helper()
	timed := e.Type == agents.EventDelegationStarted || e.Type == agents.EventDelegationFinished || e.Type == agents.EventDelegationSkipped
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if l == "" {
			continue
		}
		if timed != clock.MatchString(l) {
			t.Errorf("batch printer line %q: the time since the start is before a delegation's lines only", l)
		}
		lines[i] = clock.ReplaceAllString(l, "")
	}
	return strings.Join(lines, "")
}
