package event

import (
	"encoding/json"
	"flag"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/yagent/yagent/llm"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// TestEventJSON pins the JSON names of the events: the --json stream's
// are documented and stable, and a rollout records its events in them, so
// a rename would leave every rollout written before it unreadable. Each
// event round-trips unchanged.
func TestEventJSON(t *testing.T) {
	at := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	events := []Event{
		{Type: SessionMeta, Time: at, Session: &SessionEvent{ID: "s1", Kind: "run", Created: at, Cwd: "/w", Model: "m", BoardID: "s1", ParentID: "p", TaskID: "t", Version: 2}},
		{Type: TurnStarted, Time: at, Agent: "lead", Turn: 1},
		{Type: Message, Time: at, Message: &llm.Message{Role: llm.RoleAssistant, Content: "a", Reasoning: "r",
			Extras:    map[string]json.RawMessage{"reasoning_details": json.RawMessage(`[{"x":1}]`)},
			ToolCalls: []llm.ToolCall{{ID: "c1", Name: "read_file", Arguments: `{"path":"x"}`, Extras: map[string]json.RawMessage{"extra_content": json.RawMessage(`{"s":"y"}`)}}}}},
		{Type: Message, Time: at, Message: &llm.Message{Role: llm.RoleTool, ToolCallID: "c1", Content: "output"}},
		{Type: ToolCall, Time: at, Agent: "lead", Step: 1, Tool: &ToolEvent{CallID: "c1", Name: "read_file", Args: json.RawMessage(`{"path":"x"}`)}},
		{Type: ToolResult, Time: at, Agent: "explorer", Depth: 1, Parent: "d1", Tool: &ToolEvent{CallID: "c1", Name: "read_file", Summary: "3 lines", IsError: true, Bytes: 9, Quiet: true}},
		{Type: ToolResult, Time: at, Agent: "lead", Tool: &ToolEvent{CallID: "c2", Name: "write_file", Summary: "created, 6 bytes", Bytes: 40, Diff: "--- /dev/null\n+++ b/x\n@@ -0,0 +1 @@\n+hello\n"}},
		{Type: ToolResult, Time: at, Agent: "lead", Tool: &ToolEvent{CallID: "c3", Name: "shell", Summary: "exit 1, 19ms", IsError: true, Bytes: 30, Output: "FAIL\n… 3 more lines\nok", ExitCode: new(1)}},
		{Type: Usage, Time: at, Usage: &UsageEvent{Requests: 1, Label: "lead", Usage: llm.Usage{PromptTokens: 10, CachedTokens: 2, CompletionTokens: 3, ReasoningTokens: 1}, ElapsedMS: 5, CostUSD: new(0.0125)}},
		{Type: Anchor, Time: at, Anchor: &AnchorEvent{PromptTokens: 10, HistoryTokens: 8}},
		{Type: DelegationStarted, Time: at, Delegation: &DelegationEvent{CallID: "d1", Agent: "explorer", Task: "look", SubSession: "s2"}},
		{Type: DelegationFinished, Time: at, Delegation: &DelegationEvent{ID: "d1", CallID: "d1", Agent: "explorer", SubSession: "s2", Status: "ok", Ref: "explorer/x",
			Conclusion: "c", Usage: &UsageEvent{Requests: 2}, ElapsedMS: 7, Reason: "r", Resumed: true, Recovered: true}},
		{Type: DelegationStarted, Time: at, Delegation: &DelegationEvent{CallID: "d2", Agent: "explorer", Task: "look", SubSession: "s3", Ref: "explorer/y", Background: true}},
		{Type: DelegationSeen, Time: at, Delegation: &DelegationEvent{CallID: "d2", Agent: "explorer", Ref: "explorer/y", Background: true}},
		{Type: MessageRead, Time: at, Text: "mail/20261129T100000Z_e9fb-4242-000001"},
		{Type: Compacted, Time: at, Compaction: &CompactionEvent{Summary: "s", Upto: 4, Task: "t"}},
		{Type: Cleared, Time: at, Compaction: &CompactionEvent{Upto: 6}},
		{Type: TurnFinished, Time: at, Turn: 1, Reason: "answer"},
		{Type: NoteSaved, Time: at, Note: &NoteEvent{Action: "saved", Name: "goal", Description: "d", Body: "b", PrevBody: "a"}},
		{Type: BatchFinished, Time: at, Batch: &BatchEvent{Plan: "p.yaml", Board: "b", Delegations: 1, Parallel: 1, Rows: []DelegationEvent{{ID: "x", CallID: "x", Agent: "a", Status: "skipped"}},
			Counts: map[string]int{"skipped": 1}, Cancelled: true}},
		{Type: Result, Time: at, Result: &ResultEvent{Session: "s1", Status: ResultOK, Answer: "a", Usage: &UsageEvent{Requests: 1}, ElapsedMS: 9}},
		{Type: Error, Time: at, Error: "boom"},
	}
	var lines []string
	for _, e := range events {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		var back Event
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(e, back); diff != "" {
			t.Errorf("%s does not round-trip (-sent +read):\n%s", e.Type, diff)
		}
		lines = append(lines, string(b))
	}
	got := strings.Join(lines, "\n") + "\n"
	const file = "testdata/events.jsonl"
	if *update {
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("the events' JSON changed (-%s +now); a rename breaks every rollout and script that reads them:\n%s", file, diff)
	}
}
