package blackboard

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestGCRemovesExpiredBoardsOnly(t *testing.T) {
	s := newTestStore(t)
	put(t, s, "fresh", "explorer", "x")
	writeRaw(t, s, "stale", "explorer", "20261001T100000Z_abcd-1-000001", "---\nversion: 2\nstatus: ok\n---\n")
	now := t0.Add(time.Hour)
	rep, err := s.GC(GCOptions{TTL: 14 * 24 * time.Hour, DryRun: true}, now)
	if err != nil || !slices.Equal(rep.Boards, []string{"stale"}) {
		t.Fatalf("dry run = %+v, %v; want stale listed", rep, err)
	}
	if !s.BoardExists("stale") {
		t.Fatal("dry run removed a board")
	}
	if _, err := s.GC(GCOptions{TTL: 14 * 24 * time.Hour}, now); err != nil {
		t.Fatal(err)
	}
	if s.BoardExists("stale") || !s.BoardExists("fresh") {
		t.Errorf("after gc: stale exists %v, fresh exists %v", s.BoardExists("stale"), s.BoardExists("fresh"))
	}
	// ttl "0" never removes.
	writeRaw(t, s, "ancient", "explorer", "20201001T100000Z_abcd-1-000001", "x")
	if rep, _ := s.GC(GCOptions{TTL: 0}, now); len(rep.Boards) != 0 {
		t.Errorf("gc with ttl 0 removed %v", rep.Boards)
	}
}

// TestGCSkipsSymlinkInRoot pins constraint 7: GC never follows a symlink,
// neither a board linked into the root nor an agent dir linked into a board.
func TestGCSkipsSymlinkInRoot(t *testing.T) {
	s := newTestStore(t)
	outside := t.TempDir()
	old := filepath.Join(outside, "explorer")
	if err := os.MkdirAll(old, 0o755); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(old, "20200101T000000Z_abcd-1-000001.md")
	if err := os.WriteFile(victim, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	put(t, s, "real", "explorer", "x")
	if err := os.Symlink(outside, filepath.Join(s.root, "linked-board")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(old, filepath.Join(s.root, "real", "linked-agent")); err != nil {
		t.Fatal(err)
	}
	rep, err := s.GC(GCOptions{TTL: time.Hour, MaxNotesPerBoard: 1}, t0.Add(10*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(victim); err != nil {
		t.Fatalf("gc reached through a symlink and removed %s (report %+v)", victim, rep)
	}
	if _, err := os.Lstat(filepath.Join(s.root, "linked-board")); err != nil {
		t.Errorf("gc removed the symlink itself: %v", err)
	}
}

// TestGCCountCapKeepsBoardDirs pins constraint 7: the count cap removes
// notes, never the board or agent directories of a board that has not
// expired.
func TestGCCountCapKeepsBoardDirs(t *testing.T) {
	s := newTestStore(t)
	for i := range 5 {
		put(t, s, "b", "explorer", fmt.Sprint(i))
	}
	put(t, s, "b", "reviewer", "r")
	rep, err := s.GC(GCOptions{TTL: 24 * time.Hour, MaxNotesPerBoard: 1}, t0.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Boards) != 0 || len(rep.Notes) != 5 {
		t.Fatalf("report %+v; want 5 notes removed, no board", rep)
	}
	for _, dir := range []string{s.BoardDir("b"), AgentDir(s.root, "b", "explorer"), AgentDir(s.root, "b", "reviewer")} {
		if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
			t.Errorf("gc removed directory %s", dir)
		}
	}
	res, _ := s.ListNotes("b", ListOptions{})
	if len(res.Notes) != 1 || res.Notes[0].Agent != "reviewer" {
		t.Errorf("left %+v; want the newest (reviewer) note", res.Notes)
	}
}

// TestGCCountCapSortsAcrossAgentDirs pins constraint 7: the cap orders by
// file name (time), not by path — a path sort would group by agent and keep
// the alphabetically last agent's old notes.
func TestGCCountCapSortsAcrossAgentDirs(t *testing.T) {
	s := newTestStore(t)
	// zeta writes first (oldest), alpha last: path order is the reverse
	// of time order.
	var want []string
	for i, agent := range []string{"zeta", "zeta", "mid", "alpha", "alpha"} {
		m := put(t, s, "b", agent, fmt.Sprint(i))
		if i >= 2 {
			want = append(want, m.Ref)
		}
	}
	if _, err := s.GC(GCOptions{MaxNotesPerBoard: 3}, t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	res, _ := s.ListNotes("b", ListOptions{})
	var got []string
	for _, m := range res.Notes {
		got = append(got, m.Ref)
	}
	slices.Reverse(got)
	if !slices.Equal(got, want) {
		t.Errorf("kept %q; want the three newest %q", got, want)
	}
}

func TestGCRemovesStaleTempFilesOnly(t *testing.T) {
	s := newTestStore(t)
	m := put(t, s, "b", "explorer", "x")
	dir := AgentDir(s.root, "b", "explorer")
	stale := filepath.Join(dir, "."+m.Stem+".md98765")
	fresh := filepath.Join(dir, "."+m.Stem+".md12345")
	for _, p := range []string{stale, fresh} {
		if err := os.WriteFile(p, []byte("half"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	now := time.Now()
	if err := os.Chtimes(stale, now.Add(-2*time.Hour), now.Add(-2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	rep, err := s.GC(GCOptions{}, now)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rep.Temps, []string{stale}) {
		t.Errorf("temps removed %v; want only the stale one", rep.Temps)
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Error("gc removed a temp file a live writer may still own")
	}
}
