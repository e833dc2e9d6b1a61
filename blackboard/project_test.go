package blackboard

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestBoardProject pins the board's project: the first note written by a
// store WithProject records it, later writes (of any project) never change
// it, a store without one records nothing, and the record is invisible to
// listing, the index and GC; a damaged record counts as none.
func TestBoardProject(t *testing.T) {
	base := newTestStore(t)
	web, ops := base.WithProject("acme/web"), base.WithProject("acme/ops")
	put(t, web, "b1", "explorer", "first")
	put(t, ops, "b1", "coder", "second")
	put(t, base, "b2", "explorer", "no project")
	put(t, web, "b2", "explorer", "late")
	put(t, base, "b3", "explorer", "none")
	for board, want := range map[string]string{"b1": "acme/web", "b2": "acme/web", "b3": "", "nope": ""} {
		if got, err := base.BoardProject(board); err != nil || got != want {
			t.Errorf("BoardProject(%s) = %q, %v; want %q", board, got, err, want)
		}
	}
	boards, err := base.Boards()
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range boards {
		if b.ID == "b1" && b.Notes != 2 {
			t.Errorf("b1 lists %d notes; want 2", b.Notes)
		}
	}
	if list, err := base.ListNotes("b1", ListOptions{}); err != nil || len(list.Notes) != 2 {
		t.Errorf("ListNotes(b1) = %+v, %v; want 2 notes", list, err)
	}
	rep, err := base.GC(GCOptions{TTL: 0, MaxNotesPerBoard: 1}, t0.Add(time.Hour))
	if err != nil || len(rep.Notes) != 2 {
		t.Errorf("GC = %+v, %v; want one note of b1 and one of b2 capped", rep, err)
	}
	if got, _ := base.BoardProject("b1"); got != "acme/web" {
		t.Errorf("after GC the project of b1 is %q", got)
	}
	if err := os.WriteFile(filepath.Join(base.BoardDir("b3"), projectFile), []byte("a\nb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := base.BoardProject("b3"); err != nil || got != "" {
		t.Errorf("a damaged record = %q, %v; want none", got, err)
	}
}
