package agents

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yagent/yagent/blackboard"
)

func boardFixture(t *testing.T) (*blackboard.Store, []*Tool) {
	t.Helper()
	store := blackboard.Open(filepath.Join(t.TempDir(), "notes"))
	w := demoWorkspace(t)
	return store, BoardTools(store, 4000, w)
}

func callOnBoard(t *testing.T, tools []*Tool, board, name string, args map[string]any) Result {
	t.Helper()
	ctx := blackboard.WithBoardID(t.Context(), board)
	tool := findTool(tools, name)
	raw := mustJSON(t, args)
	if err := tool.validate(raw); err != nil {
		t.Fatal(err)
	}
	res, err := tool.Run(ctx, &Call{Name: name, Args: raw})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestListNotesLineFields pins list_notes' line: ref, status, time, body
// size and a one-line conclusion — never the body.
func TestListNotesLineFields(t *testing.T) {
	store, tools := boardFixture(t)
	m, err := store.WriteNote("b", blackboard.NewNote{
		Handoff: blackboard.Handoff{Status: blackboard.StatusOK, Agent: "explorer", Conclusion: "Two lines\nof conclusion"},
		Body:    "BODY-TEXT-THAT-MUST-NOT-APPEAR",
	})
	if err != nil {
		t.Fatal(err)
	}
	r := callOnBoard(t, tools, "b", "list_notes", map[string]any{})
	lines := strings.Split(strings.TrimSpace(r.Content), "\n")
	if len(lines) != 1 {
		t.Fatalf("list_notes printed %d lines for one note: %q", len(lines), r.Content)
	}
	for _, want := range []string{m.Ref, "[ok]", m.Created.UTC().Format("2006-01-02 15:04:05"), "31 chars", "— Two lines of conclusion"} {
		if !strings.Contains(lines[0], want) {
			t.Errorf("line %q lacks %q", lines[0], want)
		}
	}
	if strings.Contains(r.Content, "BODY-TEXT") {
		t.Error("list_notes showed the body")
	}
}

// TestListNotesAgentFilterUsesAlias pins that the agent filter goes
// through the blackboard's one normalisation exit: both spellings work.
func TestListNotesAgentFilterUsesAlias(t *testing.T) {
	store, tools := boardFixture(t)
	if _, err := store.WriteNote("b", blackboard.NewNote{Handoff: blackboard.Handoff{Status: blackboard.StatusOK, Agent: "explorer:yagent", Conclusion: "qualified"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := store.WriteNote("b", blackboard.NewNote{Handoff: blackboard.Handoff{Status: blackboard.StatusOK, Agent: "worker", Conclusion: "other"}}); err != nil {
		t.Fatal(err)
	}
	for _, spelling := range []string{"explorer:yagent", "yagent_explorer"} {
		r := callOnBoard(t, tools, "b", "list_notes", map[string]any{"agent": spelling})
		if !strings.Contains(r.Content, "qualified") || strings.Contains(r.Content, "other") {
			t.Errorf("list_notes agent=%s = %q", spelling, r.Content)
		}
	}
}

// TestReadNoteRendersHandoff pins read_note's output: the rendered handoff
// then the body, paged.
func TestReadNoteRendersHandoff(t *testing.T) {
	store, tools := boardFixture(t)
	body := strings.Repeat("0123456789", 50)
	m, err := store.WriteNote("b", blackboard.NewNote{Handoff: blackboard.Handoff{Status: blackboard.StatusPartial, Agent: "reviewer",
		Task: "review", Conclusion: "Found one bug.", Reason: "ran out of time", Facts: []string{"bug in x.go:12"}}, Body: body})
	if err != nil {
		t.Fatal(err)
	}
	r := callOnBoard(t, tools, "b", "read_note", map[string]any{"ref": m.Ref, "limit": 200})
	for _, want := range []string{"ref: " + m.Ref, "status: partial", "conclusion: Found one bug.", "reason: ran out of time", "- bug in x.go:12",
		"--- body, chars 0-200 of 501 ---", "[more: read_note with offset=200]"} {
		if !strings.Contains(r.Content, want) {
			t.Errorf("read_note lacks %q:\n%s", want, r.Content)
		}
	}
	r = callOnBoard(t, tools, "b", "read_note", map[string]any{"ref": m.Ref, "offset": 400, "limit": 200})
	if !strings.Contains(r.Content, "chars 400-501 of 501") || strings.Contains(r.Content, "[more") {
		t.Errorf("last page = %q", r.Content)
	}
	r = callOnBoard(t, tools, "b", "read_note", map[string]any{"ref": "explorer/20200101T000000Z_abcd-1-000001"})
	if !r.IsError || !strings.Contains(r.Content, "list_notes shows the refs") {
		t.Errorf("missing note = %q", r.Content)
	}
}

// TestReadNoteMarksV1Note pins constraint 5 on the tool side: a legacy v1
// note is read with a synthesised handoff and marked as such.
func TestReadNoteMarksV1Note(t *testing.T) {
	store, tools := boardFixture(t)
	dir := blackboard.AgentDir(store.Root(), "b", "explorer")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	stem := "20250101T000000Z_abcd-1-000001"
	if err := os.WriteFile(filepath.Join(dir, stem+".md"), []byte("---\nsummary: Old finding.\n---\nold body\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := callOnBoard(t, tools, "b", "read_note", map[string]any{"ref": "explorer/" + stem})
	if !strings.Contains(r.Content, "[legacy v1 note: the handoff below is synthesised from its summary]") ||
		!strings.Contains(r.Content, "conclusion: Old finding.") || !strings.Contains(r.Content, "old body") {
		t.Errorf("read_note of a v1 note = %q", r.Content)
	}
}

func TestContextPackTool(t *testing.T) {
	store, tools := boardFixture(t)
	m, _ := store.WriteNote("b", blackboard.NewNote{Handoff: blackboard.Handoff{Status: blackboard.StatusOK, Agent: "worker"}, Body: "full body", ObservedArtifacts: []string{"go.mod"}})
	r := callOnBoard(t, tools, "b", "context_pack", map[string]any{"refs": []string{m.Ref, "ghost"}})
	if !strings.Contains(r.Content, "full body") || !strings.Contains(r.Content, "unresolved: 1 (ghost)") || !strings.Contains(r.Content, "go.mod (") {
		t.Errorf("context_pack = %q", r.Content)
	}
}
