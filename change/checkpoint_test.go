package change

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestRewind is the rewind scene: three turns create, edit and
// delete files; rewinding to turn 1 restores every byte (and removes what
// came after), but a file the person changed after the last checkpoint is
// kept and named — overwritten only with force. The person's repository
// is never touched.
func TestRewind(t *testing.T) {
	ctx := context.Background()
	ws := repo(t, map[string]string{"keep.txt": "k\n", "edit.txt": "v0\n", "del.txt": "d\n", ".gitignore": "*.log\n"})
	write(t, ws, map[string]string{"dirty.txt": "uncommitted\n", "x.log": "ignored\n"})
	before := state(t, ws)
	cp, err := OpenCheckpoints(ctx, t.TempDir(), ws)
	if err != nil {
		t.Fatal(err)
	}
	take := func(name string) {
		t.Helper()
		if err := cp.Take(ctx, name); err != nil {
			t.Fatal(err)
		}
	}
	take("s1/turn-1")
	turn1 := tree(t, ws)
	// Turn 1 creates, turn 2 edits, turn 3 deletes.
	write(t, ws, map[string]string{"new/made.txt": "made\n", "bin": "\x00\xff"})
	take("s1/turn-2")
	write(t, ws, map[string]string{"edit.txt": "v1\n", "new/made.txt": "made 2\n"})
	take("s1/turn-3")
	os.Remove(filepath.Join(ws, "del.txt"))
	os.Remove(filepath.Join(ws, "dirty.txt"))
	take("s1/after-3")
	// The person edits a file after the last turn.
	write(t, ws, map[string]string{"edit.txt": "the person's\n", "x.log": "still ignored\n"})

	r, err := cp.Rewind(ctx, "s1/turn-1", "s1/after-3", false)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Kept, []string{"edit.txt"}) {
		t.Errorf("kept %v, want the file the person changed: edit.txt", r.Kept)
	}
	if !slices.Equal(r.Removed, []string{"bin", "new/made.txt"}) || !slices.Equal(r.Written, []string{"del.txt", "dirty.txt"}) {
		t.Errorf("written %v removed %v", r.Written, r.Removed)
	}
	got := tree(t, ws)
	if got["edit.txt"] != "the person's\n" {
		t.Errorf("the person's edit was overwritten: %q", got["edit.txt"])
	}
	_, err = cp.Rewind(ctx, "s1/turn-1", "s1/after-3", true)
	if err != nil {
		t.Fatal(err)
	}
	got = tree(t, ws)
	turn1["x.log"] = "still ignored\n" // ignored files are not the checkpoints'
	for f, want := range turn1 {
		if got[f] != want {
			t.Errorf("%s after rewind = %q, want %q", f, got[f], want)
		}
	}
	for f := range got {
		if _, ok := turn1[f]; !ok {
			t.Errorf("%s is left after the rewind", f)
		}
	}
	if after := state(t, ws); after != before {
		t.Errorf("the person's repository changed:\n--- before\n%s\n--- after\n%s", before, after)
	}
	if _, err := cp.Rewind(ctx, "s1/turn-9", "s1/after-3", false); err == nil || !strings.Contains(err.Error(), "no checkpoint s1/turn-9") {
		t.Errorf("an unknown checkpoint: %v", err)
	}
	if err := cp.Take(ctx, "bad..name"); err == nil {
		t.Error("a checkpoint name git refuses was taken")
	}
}

// TestRewindNoGit: checkpoints need no repository in the workspace (and
// make none).
func TestRewindNoGit(t *testing.T) {
	ctx := context.Background()
	repo(t, nil) // skips without git
	ws := t.TempDir()
	write(t, ws, map[string]string{"a.txt": "a\n"})
	// $YAGENT_HOME inside the workspace (as in the CLI's scripts): its
	// files and the checkpoints themselves are never taken or rewound.
	home := filepath.Join(ws, "home")
	cp, err := OpenCheckpoints(ctx, filepath.Join(home, "checkpoints"), ws, home)
	if err != nil {
		t.Fatal(err)
	}
	if err := cp.Take(ctx, "s/turn-1"); err != nil {
		t.Fatal(err)
	}
	write(t, ws, map[string]string{"a.txt": "a2\n", "b.txt": "b\n", "home/state.db": "during\n"})
	if err := cp.Take(ctx, "s/after-1"); err != nil {
		t.Fatal(err)
	}
	if _, err := cp.Rewind(ctx, "s/turn-1", "s/after-1", false); err != nil {
		t.Fatal(err)
	}
	got := tree(t, ws)
	if got["a.txt"] != "a\n" || got["b.txt"] != "" || got["home/state.db"] != "during\n" {
		t.Errorf("after rewind: %v", got)
	}
}

// TestCheckpointBound: a take reads at most MaxBytes of files the shadow
// does not hold yet; the largest new files are skipped, said once (in
// Skipped) and for good (a later take and another process skip them
// without saying so again), and a rewind leaves them as they are and
// names them.
func TestCheckpointBound(t *testing.T) {
	ctx := context.Background()
	repo(t, nil) // skips without git
	ws := t.TempDir()
	write(t, ws, map[string]string{"a.txt": "a\n", "big.bin": strings.Repeat("b", 3000), "sub/bigger [1].bin": strings.Repeat("c", 5000), "small.txt": "s\n"})
	dir := filepath.Join(t.TempDir(), "checkpoints")
	cp, err := OpenCheckpoints(ctx, dir, ws)
	if err != nil {
		t.Fatal(err)
	}
	cp.MaxBytes = 2000
	if err := cp.Take(ctx, "s/turn-1"); err != nil {
		t.Fatal(err)
	}
	if want := []string{"big.bin", "sub/bigger [1].bin"}; !slices.Equal(cp.Skipped, want) {
		t.Fatalf("skipped %q; want %q (the largest, until the rest fits)", cp.Skipped, want)
	}
	write(t, ws, map[string]string{"a.txt": "a2\n", "big.bin": "changed\n", "sub/bigger [1].bin": "changed too\n", "new.txt": "n\n"})
	if err := cp.Take(ctx, "s/latest"); err != nil {
		t.Fatal(err)
	}
	if len(cp.Skipped) != 0 {
		t.Errorf("a later take said %q again", cp.Skipped)
	}
	again, err := OpenCheckpoints(ctx, dir, ws) // another process
	if err != nil {
		t.Fatal(err)
	}
	again.MaxBytes = 2000
	r, err := again.Rewind(ctx, "s/turn-1", "s/latest", false)
	if err != nil {
		t.Fatal(err)
	}
	got := tree(t, ws)
	if got["a.txt"] != "a\n" || got["new.txt"] != "" || got["big.bin"] != "changed\n" || got["sub/bigger [1].bin"] != "changed too\n" {
		t.Errorf("after rewind: %v", got)
	}
	if want := []string{"big.bin", "sub/bigger [1].bin"}; !slices.Equal(r.Unrestorable, want) || !slices.Equal(r.Removed, []string{"new.txt"}) {
		t.Errorf("rewind: %+v; want unrestorable %q", r, want)
	}
	if !CheckpointsExist(dir, ws) || CheckpointsExist(dir, t.TempDir()) {
		t.Error("CheckpointsExist is wrong")
	}
}
