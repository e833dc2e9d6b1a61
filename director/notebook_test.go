package director

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/memory"
	"github.com/yagent/yagent/notebook"
)

// TestNotebookIsTheLeadsAlone pins SPEC §7's wall: sub-agents never see
// the notebook's tools, rules or block (even asking by name), and in
// inline mode chat_note_read does not exist for the lead either.
func TestNotebookIsTheLeadsAlone(t *testing.T) {
	f := newFixture(t, "notebook-lead", nil)
	// A definition without a tools whitelist gets every tool a sub-agent
	// may have: only the gates keep the notebook out.
	explorer, _ := f.d.app.Catalog.Get("explorer")
	explorer.Tools = nil
	if _, err := f.d.Turn(t.Context(), "find the parser bug"); err != nil {
		t.Fatal(err)
	}
	f.srv.AssertDone(t)
	notes, _ := f.d.Notebook().List(t.Context())
	if len(notes) != 1 || notes[0].Name != "goal" {
		t.Fatalf("notebook = %+v; want only the lead's note", notes)
	}
	for _, r := range f.srv.Requests() {
		system, tail := r.Messages[0].Content, r.Messages[len(r.Messages)-1].Content
		switch r.Agent {
		case "explorer":
			if strings.Contains(system, "[notes]") || strings.Contains(tail, notebook.BlockHeader) || slices.ContainsFunc(r.Tools, func(n string) bool { return strings.HasPrefix(n, "chat_note") }) {
				t.Errorf("a sub-agent request shows the notebook (tools %v)", r.Tools)
			}
		case "director":
			if !strings.Contains(system, "[notes]") || slices.Contains(r.Tools, "chat_note_read") || !slices.Contains(r.Tools, "chat_note_save") {
				t.Errorf("director request %d: rules or tools wrong for inline mode (tools %v)", r.N, r.Tools)
			}
		}
	}
	var delegateTail string
	for _, r := range f.srv.Requests() {
		if r.StepID == "delegate" {
			delegateTail = r.Messages[len(r.Messages)-1].Content
		}
	}
	if !strings.Contains(delegateTail, "[notebook] 1 notes") || !strings.Contains(delegateTail, "## goal | the task's goal\nFind the parser bug.") {
		t.Errorf("the director's next tail lacks the note inline:\n%s", delegateTail)
	}
	var results []string
	for _, m := range f.sess.History() {
		if m.Role == llm.RoleTool {
			results = append(results, m.Content)
		}
	}
	if !strings.Contains(results[1], `there is no tool "chat_note_read" in this turn`) {
		t.Errorf("inline-mode chat_note_read = %q; want no such tool", results[1])
	}
	saved := 0
	for _, e := range f.rec.Events() {
		if e.Type == agents.EventNoteSaved && e.Note.Name == "goal" && e.Note.Body == "Find the parser bug." {
			saved++
		}
	}
	if saved != 1 {
		t.Errorf("%d note_saved events; want 1", saved)
	}
	sub := subMessages(t, f)
	if !strings.Contains(sub, `there is no tool "chat_note_save"`) || !strings.Contains(sub, `there is no tool "chat_note_read"`) {
		t.Errorf("the sub-agent's calls by name were not refused: %s", sub)
	}
}

// subMessages returns the sub-agents' tool results from the recorded
// requests.
func subMessages(t *testing.T, f *fixture) string {
	var b strings.Builder
	for _, r := range f.srv.Requests() {
		if r.Agent == "explorer" {
			for _, m := range r.Messages {
				if m.Role == llm.RoleTool {
					b.WriteString(m.Content + "\n")
				}
			}
		}
	}
	return b.String()
}

// TestNotebookDisabledTouchesNothing: notes.enabled: false → no tools, no
// rules, no block, and the database is not touched.
func TestNotebookDisabledTouchesNothing(t *testing.T) {
	f := newFixture(t, "demo", func(c *config.Config) { c.Notes.Enabled = false })
	if _, err := f.d.Turn(t.Context(), "What is this repository, and is its blackboard safe?"); err != nil {
		t.Fatal(err)
	}
	if f.d.Notebook() != nil {
		t.Fatal("a notebook exists with notes.enabled false")
	}
	for _, r := range f.srv.Requests() {
		if strings.Contains(r.Messages[0].Content, "[notes]") || strings.Contains(r.Messages[len(r.Messages)-1].Content, notebook.BlockHeader) ||
			slices.ContainsFunc(r.Tools, func(n string) bool { return strings.HasPrefix(n, "chat_note") }) {
			t.Fatalf("request %d shows the notebook", r.N)
		}
	}
	var n int
	f.sessions.DB.QueryRow(`SELECT COUNT(*) FROM chat_notes`).Scan(&n)
	if f.sess.Info().NotesMode != "inline" || n != 0 {
		t.Errorf("the database was touched: notes_mode %q, %d notes", f.sess.Info().NotesMode, n)
	}
}

// TestNotebookModeDoesNotFlipToolList drives turns while the notebook
// oscillates around the index threshold: the request's tool list changes
// only when the mode really switches (twice), not every turn.
func TestNotebookModeDoesNotFlipToolList(t *testing.T) {
	f := newFixture(t, "notebook-oscillate", func(c *config.Config) {
		c.Notes.IndexEnterChars, c.Notes.IndexEnterNotes = 600, 100
		c.Notes.IndexLeaveChars, c.Notes.IndexLeaveNotes = 400, 100
	})
	book := f.d.Notebook()
	sizes := []int{300, 590, 610, 590, 610, 590, 450, 399}
	for i, size := range sizes {
		if _, err := book.Save(t.Context(), "big", "one growing note", strings.Repeat("x", size)); err != nil {
			t.Fatal(err)
		}
		if _, err := f.d.Turn(t.Context(), fmt.Sprintf("turn %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	var lists [][]string
	for _, r := range f.srv.Requests() {
		lists = append(lists, r.Tools)
	}
	changes := 0
	for i := 1; i < len(lists); i++ {
		if !slices.Equal(lists[i], lists[i-1]) {
			changes++
		}
	}
	if len(lists) != len(sizes) || changes != 2 {
		t.Errorf("%d requests, tool list changed %d times; want %d requests and 2 changes", len(lists), changes, len(sizes))
	}
}

// TestNotebookRebuildBacksOffAcrossTurns: a notebook rebuild that keeps
// failing does not cost two extra model calls after every turn: after a
// failing turn the next try waits 2, then 4… turns, and the warning says
// when.
func TestNotebookRebuildBacksOffAcrossTurns(t *testing.T) {
	f := newFixture(t, "notebook-rebuild-fails", func(c *config.Config) { c.Notes.CompactNotes = 3 })
	for i := range 5 {
		if _, err := f.d.Notebook().Save(t.Context(), fmt.Sprintf("n%d", i), "a note", "short"); err != nil {
			t.Fatal(err)
		}
	}
	rebuilds := func() int {
		n := 0
		for _, r := range f.srv.Requests() {
			if r.StepID == "grow" {
				n++
			}
		}
		return n
	}
	var perTurn []int
	for i := 1; i <= 4; i++ {
		before := rebuilds()
		if _, err := f.d.Turn(t.Context(), fmt.Sprintf("turn %d", i)); err != nil {
			t.Fatal(err)
		}
		perTurn = append(perTurn, rebuilds()-before)
	}
	if want := []int{2, 0, 2, 0}; !slices.Equal(perTurn, want) {
		t.Errorf("rebuild calls per turn = %v; want %v", perTurn, want)
	}
	var warned bool
	for _, e := range f.rec.Events() {
		if e.Type == agents.EventNotice && strings.Contains(e.Text, "notebook rebuild rejected") && strings.Contains(e.Text, "(next try after turn 3)") {
			warned = true
		}
	}
	if !warned {
		t.Error("no warning saying when the rebuild is tried again")
	}
}

// TestNotebookRebuildBooksEachAttempt: a rebuild's two model calls (the
// attempt and its stricter retry) are two requests in the session's spend
// under "notes", with the tokens of both (seed 000 §0.32: its spend is
// visible under the label notes) — not one request for two calls.
func TestNotebookRebuildBooksEachAttempt(t *testing.T) {
	f := newFixture(t, "notebook-rebuild-fails", func(c *config.Config) { c.Notes.CompactNotes = 3 })
	for i := range 5 {
		if _, err := f.d.Notebook().Save(t.Context(), fmt.Sprintf("n%d", i), "a note", "short"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.d.Turn(t.Context(), "turn 1"); err != nil {
		t.Fatal(err)
	}
	calls, prompt := 0, 0
	for _, r := range f.srv.Requests() {
		if r.StepID == "grow" {
			calls++
			prompt += r.PromptTokens
		}
	}
	rows, err := f.sessions.Spend(t.Context(), f.sess.ID())
	if err != nil {
		t.Fatal(err)
	}
	var notes memory.SpendRow
	for _, r := range rows {
		if r.Label == "notes" {
			notes = r
		}
	}
	if calls != 2 || notes.Requests != calls || notes.PromptTokens != prompt || notes.CompletionTokens == 0 {
		t.Errorf("a rebuild of %d calls (%d prompt tokens) is booked as %+v; want one request per call, every token", calls, prompt, notes)
	}
}
