package agents

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/llm"
)

// newRunner returns a SubRunner over a scripted scenario, a demo workspace
// and a fresh board.
func newRunner(t *testing.T, scenarioName string) (*SubRunner, *blackboard.Store) {
	t.Helper()
	_, client := scenario(t, scenarioName)
	w := demoWorkspace(t)
	store := blackboard.Open(filepath.Join(t.TempDir(), "notes"))
	reg := NewRegistry(append(FSTools(w, ShellPolicy{Approval: ApproveNever}), BoardTools(store, 4000, w)...)...)
	catalog := LoadCatalog(Sources{Workspace: w.Dir()}, nil)
	return &SubRunner{
		Client:   func(string) (llm.Client, string, error) { return client, "scripted", nil },
		Registry: reg, Catalog: catalog, Board: store, Workspace: w,
		Index: blackboard.IndexOptions{MaxNotes: 12, LineChars: 160}, PackChars: 4000, MaxSteps: 5, TailRole: llm.RoleUser,
	}, store
}

func onlyNote(t *testing.T, store *blackboard.Store, board string) *blackboard.Note {
	t.Helper()
	res, err := store.ListNotes(board, blackboard.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Notes) != 1 {
		t.Fatalf("board holds %d notes; want exactly 1", len(res.Notes))
	}
	n, err := store.ReadNote(board, res.Notes[0].Ref)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestBoardWriterNoteCarriesFullDeliverable pins that the note's body is
// the full deliverable — the last assistant message before agent_exit —
// not the reason and not the conclusion.
func TestBoardWriterNoteCarriesFullDeliverable(t *testing.T) {
	r, store := newRunner(t, "subagent-deliverable")
	res, err := r.Run(t.Context(), Delegation{Agent: "worker", Task: "find things", BoardID: "b", Depth: 1})
	if err != nil {
		t.Fatal(err)
	}
	n := onlyNote(t, store, "b")
	want := "# Findings\n\nLine one of a long deliverable.\nLine two, with the detail the director needs.\nLine three: the end.\n"
	if n.Body != want {
		t.Errorf("note body = %q; want the full deliverable %q", n.Body, want)
	}
	h := n.Handoff
	if h.Status != blackboard.StatusPartial || h.Reason != "ran out of ideas" || h.Conclusion != "Three findings." || !slices.Equal(h.Facts, []string{"a", "b"}) || h.Task != "find things" || h.Agent != "worker" {
		t.Errorf("handoff = %+v", h)
	}
	if res.Ref != n.Meta.Ref || res.Status != blackboard.StatusPartial || res.Conclusion != "Three findings." {
		t.Errorf("result = %+v", res)
	}
}

func TestBoardWriterObservedArtifactsWin(t *testing.T) {
	r, store := newRunner(t, "subagent-artifacts")
	if _, err := r.Run(t.Context(), Delegation{Agent: "worker", Task: "write a report", BoardID: "b", Depth: 1}); err != nil {
		t.Fatal(err)
	}
	n := onlyNote(t, store, "b")
	if !slices.Equal(n.Handoff.Artifacts, []string{"out/report.md"}) {
		t.Errorf("artifacts = %q; want the file the tools wrote, not the model's claim", n.Handoff.Artifacts)
	}
	if n.Body != "I wrote the report.\n" {
		t.Errorf("body = %q", n.Body)
	}
}

func TestBoardWriterErrorWritesErrorNote(t *testing.T) {
	r, store := newRunner(t, "subagent-error")
	res, err := r.Run(t.Context(), Delegation{Agent: "worker", Task: "do it", BoardID: "b", Depth: 1})
	if err != nil {
		t.Fatal(err)
	}
	n := onlyNote(t, store, "b")
	if n.Handoff.Status != blackboard.StatusError || !strings.Contains(n.Handoff.Reason, "500") || res.Status != blackboard.StatusError {
		t.Errorf("note = %+v; want status error with the failure as reason", n.Handoff)
	}
}

// TestBoardWriterAbandonWritesNothing pins that a delegation abandoned by a
// gate (here: cancelled) writes no note at all.
func TestBoardWriterAbandonWritesNothing(t *testing.T) {
	r, store := newRunner(t, "subagent-slow")
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	res, err := r.Run(ctx, Delegation{Agent: "worker", Task: "do it", BoardID: "b", Depth: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Abandoned || res.Ref != "" {
		t.Errorf("result = %+v; want abandoned, no ref", res)
	}
	if list, _ := store.ListNotes("b", blackboard.ListOptions{}); len(list.Notes) != 0 {
		t.Errorf("an abandoned delegation wrote %d notes", len(list.Notes))
	}
}

func TestDelegationStepBudgetWritesPartial(t *testing.T) {
	r, store := newRunner(t, "subagent-step-budget")
	r.MaxSteps = 2
	r.Catalog.defs["worker"].MaxSteps = 0 // use the runner's budget
	if _, err := r.Run(t.Context(), Delegation{Agent: "worker", Task: "list forever", BoardID: "b", Depth: 1}); err != nil {
		t.Fatal(err)
	}
	n := onlyNote(t, store, "b")
	if n.Handoff.Status != blackboard.StatusPartial || !strings.Contains(n.Handoff.Reason, "step budget of 2 model calls") {
		t.Errorf("handoff = %+v; want partial naming the budget", n.Handoff)
	}
	if n.Body != "Partial: I listed the directory twice; the rest is undone.\n" {
		t.Errorf("body = %q; want what the agent handed over", n.Body)
	}
}

func TestDelegationTokenBudgetAbandons(t *testing.T) {
	r, store := newRunner(t, "subagent-token-budget")
	r.TokenBudget = 1_000_000
	res, err := r.Run(t.Context(), Delegation{Agent: "worker", Task: "spend", BoardID: "b", Depth: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Abandoned || !strings.Contains(res.Reason, "token budget exceeded: spent 1200020 of 1000000 tokens") {
		t.Errorf("result = %+v; want abandoned by the token budget", res)
	}
	if list, _ := store.ListNotes("b", blackboard.ListOptions{}); len(list.Notes) != 0 {
		t.Errorf("an abandoned delegation wrote %d notes", len(list.Notes))
	}
}

func TestDelegationUnknownAgent(t *testing.T) {
	r, store := newRunner(t, "subagent-slow")
	_, err := r.Run(t.Context(), Delegation{Agent: "ghost", Task: "x", BoardID: "b", Depth: 1})
	if err == nil || !strings.Contains(err.Error(), `there is no sub-agent "ghost"; the catalog has: explorer, reviewer, worker`) {
		t.Errorf("err = %v", err)
	}
	if list, _ := store.ListNotes("b", blackboard.ListOptions{}); len(list.Notes) != 0 {
		t.Error("a refused delegation wrote a note")
	}
}

func TestDeliverableText(t *testing.T) {
	a := func(content string, calls ...llm.ToolCall) llm.Message {
		return llm.Message{Role: llm.RoleAssistant, Content: content, ToolCalls: calls}
	}
	exit := llm.ToolCall{ID: "e", Name: "agent_exit"}
	tests := []struct {
		name string
		out  Outcome
		want string
	}{
		{"final answer", Outcome{Final: "the answer"}, "the answer"},
		{"text with the exit", Outcome{Stop: &Call{ID: "e"}, Messages: []llm.Message{a("early"), a("deliverable", exit)}}, "deliverable"},
		{"text before the exit", Outcome{Stop: &Call{ID: "e"}, Messages: []llm.Message{a("deliverable"), {Role: llm.RoleTool}, a("", exit)}}, "deliverable"},
		{"no text at all", Outcome{Stop: &Call{ID: "e"}, Messages: []llm.Message{a("", exit)}}, ""},
	}
	for _, tt := range tests {
		if got := deliverableText(&tt.out); got != tt.want {
			t.Errorf("%s: deliverableText = %q; want %q", tt.name, got, tt.want)
		}
	}
}

func TestSetBoardScope(t *testing.T) {
	if id, err := SetBoardScope("sess", "task"); id != "sess" || err != nil {
		t.Errorf("SetBoardScope(sess, task) = %q, %v", id, err)
	}
	if id, err := SetBoardScope("", "task"); id != "task" || err != nil {
		t.Errorf("SetBoardScope(\"\", task) = %q, %v", id, err)
	}
	if id, err := SetBoardScope("", ""); err != ErrNoBoardScope || id != "" {
		t.Errorf("SetBoardScope(\"\", \"\") = %q, %v; want ErrNoBoardScope, never an empty id", id, err)
	}
}

// TestDelegationOverrides pins what a batch plan sets per delegation: its
// model and step budget win over the definition's, and its key lands in
// the note's handoff.
func TestDelegationOverrides(t *testing.T) {
	r, store := newRunner(t, "subagent-step-budget")
	r.MaxSteps = 10
	r.Catalog.defs["worker"].MaxSteps = 8
	r.Catalog.defs["worker"].Model = "big"
	client := r.Client
	var asked []string
	r.Client = func(name string) (llm.Client, string, error) {
		asked = append(asked, name)
		return client(name)
	}
	if _, err := r.Run(t.Context(), Delegation{Agent: "worker", Task: "list forever", BoardID: "b", Depth: 1,
		Key: "batch:lister", Model: "small", MaxSteps: 2}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(asked, []string{"small"}) {
		t.Errorf("models asked for = %q; want the delegation's [small]", asked)
	}
	n := onlyNote(t, store, "b")
	if !strings.Contains(n.Handoff.Reason, "step budget of 2 model calls") {
		t.Errorf("reason = %q; want the delegation's budget of 2", n.Handoff.Reason)
	}
	if n.Handoff.Key != "batch:lister" {
		t.Errorf("note key = %q; want batch:lister", n.Handoff.Key)
	}
}

// TestSubAgentsFirstCallSameToolConcurrently pins that a tool shared by two
// sub-agents running at once needs no first-use set-up: both call read_file
// for the first time concurrently, through the real sub-agent path, and the
// race detector (go test -race) sees no write to the shared tool.
func TestSubAgentsFirstCallSameToolConcurrently(t *testing.T) {
	r, store := newRunner(t, "subagent-same-tool")
	var wg sync.WaitGroup
	results := make([]DelegationResult, 2)
	errs := make([]error, 2)
	for i := range 2 {
		wg.Go(func() {
			results[i], errs[i] = r.Run(t.Context(), Delegation{Agent: "explorer", Task: fmt.Sprintf("read go.mod (%d)", i), BoardID: "b", Depth: 1})
		})
	}
	wg.Wait()
	for i := range 2 {
		if errs[i] != nil || results[i].Status != blackboard.StatusOK {
			t.Errorf("delegation %d = %+v, %v; want ok", i, results[i], errs[i])
		}
	}
	if list, _ := store.ListNotes("b", blackboard.ListOptions{}); len(list.Notes) != 2 {
		t.Errorf("board holds %d notes; want one per delegation", len(list.Notes))
	}
}
