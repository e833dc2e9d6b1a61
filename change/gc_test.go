package change

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCollect: leftovers — branches, worktrees (one whose directory went),
// snapshot copies and their shadows — are listed per board and note; those
// no note or session claims are removed, the claimed ones stay.
func TestCollect(t *testing.T) {
	ctx := context.Background()
	ws := repo(t, map[string]string{"a.txt": "a\n"})
	root := t.TempDir()
	for _, n := range []string{"keep", "drop", "gone"} {
		if _, err := Isolate(ctx, ws, root, "b1", n); err != nil {
			t.Fatal(err)
		}
	}
	os.RemoveAll(filepath.Join(root, "b1", "gone"))
	plain := t.TempDir()
	write(t, plain, map[string]string{"p.txt": "p\n"})
	if _, err := Snapshot(ctx, plain, root, "b2", "snap", 0); err != nil {
		t.Fatal(err)
	}
	all, err := Leftovers(ctx, ws, root)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, l := range all {
		names = append(names, l.Board+"/"+l.Note)
	}
	if !slices.Equal(names, []string{"b1/drop", "b1/gone", "b1/keep", "b2/snap"}) {
		t.Fatalf("leftovers %v", names)
	}
	if g := all[1]; g.Branch != "yagent/b1/gone" || g.Dir != "" {
		t.Errorf("the worktree whose directory went: %+v", g)
	}
	if s := all[3]; s.Dir == "" || s.GitDir == "" || s.Branch != "" {
		t.Errorf("the snapshot: %+v", s)
	}
	gone, err := Collect(ctx, ws, root, func(board, note string) bool { return note == "keep" })
	if err != nil {
		t.Fatal(err)
	}
	if len(gone) != 3 {
		t.Errorf("collected %d, want 3: %+v", len(gone), gone)
	}
	left, err := Leftovers(ctx, ws, root)
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 1 || left[0].Note != "keep" || left[0].Dir == "" || left[0].Branch == "" {
		t.Errorf("after collecting: %+v", left)
	}
	if wt := run(t, ws, "worktree", "list", "--porcelain"); strings.Contains(wt, "drop") || strings.Contains(wt, "gone") {
		t.Errorf("git still lists collected worktrees:\n%s", wt)
	}
	for _, p := range []string{filepath.Join(root, "b2", "snap"), filepath.Join(root, "b2", "snap.git")} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left: %v", p, err)
		}
	}
}

// TestDropSession: a session's checkpoints go, another's stay and still
// rewind.
func TestDropSession(t *testing.T) {
	ctx := context.Background()
	repo(t, nil) // skips without git
	ws := t.TempDir()
	write(t, ws, map[string]string{"a.txt": "a\n"})
	cp, err := OpenCheckpoints(ctx, t.TempDir(), ws)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"s1/turn-1", "s1/turn-2", "s2/turn-1"} {
		if err := cp.Take(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	if err := cp.DropSession(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if names, err := cp.Names(ctx); err != nil || !slices.Equal(names, []string{"s2/turn-1"}) {
		t.Errorf("checkpoints left: %v, %v", names, err)
	}
	if _, err := cp.Rewind(ctx, "s2/turn-1", "s2/turn-1", false); err != nil {
		t.Errorf("the other session's checkpoint: %v", err)
	}
}
