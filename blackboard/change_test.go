package blackboard

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// A stem reserved before the work (a writing delegation's branch and
// worktree are named after it) is the note's name when it is written,
// never replaced by another note and never given again.
func TestReservedStem(t *testing.T) {
	s := newTestStore(t)
	stem := s.NewStem()
	if !IsNoteStem(stem) {
		t.Fatalf("NewStem() = %q; not a stem", stem)
	}
	m, err := s.WriteNote("b", NewNote{Handoff: Handoff{Status: StatusOK, Agent: "worker", Conclusion: "done"}, Stem: stem})
	if err != nil || m.Stem != stem {
		t.Fatalf("WriteNote with stem %s = %+v, %v", stem, m, err)
	}
	if _, err := s.WriteNote("b", NewNote{Handoff: Handoff{Status: StatusOK, Agent: "worker", Conclusion: "again"}, Stem: stem}); err == nil {
		t.Error("a second note took a reserved stem that was written")
	}
	other, err := s.WriteNote("b", NewNote{Handoff: Handoff{Status: StatusOK, Agent: "worker", Conclusion: "next"}})
	if err != nil || other.Stem == stem {
		t.Errorf("the next note: %+v, %v; want a stem of its own", other, err)
	}
	if _, err := s.WriteNote("b", NewNote{Handoff: Handoff{Status: StatusOK, Agent: "worker"}, Stem: "../x"}); err == nil || !strings.Contains(err.Error(), "no note stem") {
		t.Errorf("a stem of the wrong shape: %v", err)
	}
}

// A note that carries a change (issue 28) has its patch beside it as
// {stem}.patch and shows it when rendered (read_note); the per-call index shows one line per pending change,
// however old its note; UpdateChange moves only the change's state —
// body, other keys and the person's own keys kept — and a refusal writes
// nothing; the count cap and orphan clean-up take patches along.
func TestChangeOnNote(t *testing.T) {
	s := newTestStore(t)
	patch := []byte("diff --git a/main.go b/main.go\n--- a/main.go\n+++ b/main.go\n@@ -1 +1 @@\n-old\n+new\nBinary files a/logo.png and b/logo.png differ\n")
	ch := &NoteChange{Branch: "yagent/b/x", Base: "aaa", Head: "bbb", Files: []string{"logo.png", "main.go"}, Insertions: 1, Deletions: 1, State: ChangePending}
	m, err := s.WriteNote("b", NewNote{Handoff: Handoff{Status: StatusOK, Agent: "worker", Conclusion: "edited", Change: ch}, Body: "Edited main.go.\n", Patch: patch})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 13 { // push the change's note out of the index's newest 12
		put(t, s, "b", "explorer", fmt.Sprint(i))
	}
	if got, err := s.ReadPatch("b", m.Ref); err != nil || string(got) != string(patch) {
		t.Fatalf("ReadPatch = %q, %v", got, err)
	}
	n, err := s.ReadNote("b", m.Ref)
	if err != nil || n.Handoff.Change == nil || !reflect.DeepEqual(*n.Handoff.Change, *ch) || n.Handoff.Degraded != DegradedNone {
		t.Fatalf("read back: %+v, %v; want the change %+v", n.Handoff, err, ch)
	}
	if r := n.Handoff.Render(0); !strings.Contains(r, "change: pending, yagent/b/x, 2 files +1 -1: logo.png, main.go") {
		t.Errorf("the rendered handoff does not show its change:\n%s", r)
	}
	idx, err := s.BuildIndex("b", testIndex)
	if err != nil {
		t.Fatal(err)
	}
	if line := "- change " + m.Ref + ": yagent/b/x, 2 files +1 -1"; !strings.Contains(idx.Text, line) || strings.Count(idx.Text, "- change ") != 1 {
		t.Errorf("index:\n%s\nwant one line %q", idx.Text, line)
	}

	// A person's key in the front matter survives the update.
	path := filepath.Join(s.BoardDir("b"), "worker", m.Stem+".md")
	data, _ := os.ReadFile(path)
	os.WriteFile(path, []byte(strings.Replace(string(data), "---\n", "---\ntags: [mine]\n", 1)), 0o644)
	refused := errors.New("no")
	if err := s.UpdateChange("b", m.Ref, func(c *NoteChange) error { c.State = ChangeApplied; return refused }); !errors.Is(err, refused) {
		t.Errorf("a refusing update: %v", err)
	}
	if n, _ := s.ReadNote("b", m.Ref); n.Handoff.Change.State != ChangePending {
		t.Errorf("a refused update wrote %s", n.Handoff.Change.State)
	}
	if err := s.UpdateChange("b", m.Ref, func(c *NoteChange) error { c.State = ChangeApplied; return nil }); err != nil {
		t.Fatal(err)
	}
	n, _ = s.ReadNote("b", m.Ref)
	if n.Handoff.Change.State != ChangeApplied || n.Body != "Edited main.go.\n" || n.Handoff.Conclusion != "edited" || n.Handoff.Extra.Len() != 1 {
		t.Errorf("after the update: %+v, body %q", n.Handoff, n.Body)
	}
	if idx, _ := s.BuildIndex("b", testIndex); strings.Contains(idx.Text, "- change ") {
		t.Errorf("an applied change is still pending in the index:\n%s", idx.Text)
	}
	plain := put(t, s, "b", "explorer", "no change")
	if err := s.UpdateChange("b", plain.Ref, func(*NoteChange) error { return nil }); err == nil {
		t.Error("a note without a change was updated")
	}

	// An orphan patch (its note removed by hand) goes once it is old; the
	// count cap removes a note's patch with it.
	orphan := filepath.Join(s.BoardDir("b"), "worker", s.NewStem()+".patch")
	os.WriteFile(orphan, patch, 0o644)
	old := t0.Add(-2 * time.Hour)
	os.Chtimes(orphan, old, old)
	rep, err := s.GC(GCOptions{MaxNotesPerBoard: 1}, t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(orphan); err == nil || len(rep.Patches) != 1 {
		t.Errorf("the orphan patch is still there (report %+v)", rep)
	}
	if _, err := s.ReadPatch("b", m.Ref); err == nil {
		t.Error("the count cap removed the note but kept its patch")
	}
}
