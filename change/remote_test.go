package change

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestRemoteRoundTrip pins a delegation run on another host (issue 28
// item 6): Capture takes HEAD plus the uncommitted changes (modified,
// deleted, untracked, a binary file; ignored ones left out) as a binary
// patch without changing the person's repository; IsolateAt rebuilds
// exactly that tree in a clone; the worktree's change, as a BinaryPatch,
// Imports into the person's repository byte for byte as the change's
// branch on the captured snapshot, and applies; a repository lacking the
// base is ErrBaseMissing naming the commit.
func TestRemoteRoundTrip(t *testing.T) {
	ctx := t.Context()
	person := repo(t, map[string]string{"a.txt": "a\n", "gone.txt": "gone\n", ".gitignore": "*.log\n", "bin.dat": "\x00\x01old"})
	write(t, person, map[string]string{"a.txt": "a, edited\n", "new.txt": "new\n", "x.log": "ignored\n", "bin.dat": "\x00\x02new\xff"})
	if err := os.Remove(filepath.Join(person, "gone.txt")); err != nil {
		t.Fatal(err)
	}
	before := state(t, person)
	base, err := Capture(ctx, person)
	if err != nil {
		t.Fatal(err)
	}
	if got := state(t, person); got != before {
		t.Errorf("Capture changed the person's repository:\n%s\nwas:\n%s", got, before)
	}
	if base.Commit != run(t, person, "rev-parse", "HEAD")[:40] || base.Snapshot == base.Commit || len(base.Patch) == 0 || base.Dir != "." {
		t.Fatalf("base %+v", base)
	}

	clone := filepath.Join(t.TempDir(), "clone")
	run(t, person, "clone", "-q", person, clone)
	root := t.TempDir()
	w, err := IsolateAt(ctx, clone, root, "b", "n1", base)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"a.txt": "a, edited\n", "new.txt": "new\n", "bin.dat": "\x00\x02new\xff"} {
		if got := read(t, filepath.Join(w.Dir, name)); got != want {
			t.Errorf("%s in the worker's worktree: %q; want %q", name, got, want)
		}
	}
	for _, name := range []string{"gone.txt", "x.log"} {
		if _, err := os.Stat(filepath.Join(w.Dir, name)); err == nil {
			t.Errorf("%s is in the worker's worktree", name)
		}
	}
	write(t, w.Dir, map[string]string{"bin.dat": "\x00\x03worker\xfe", "a.txt": "a, edited\nby the worker\n"})
	c, err := w.Commit(ctx, "the worker's change")
	if err != nil {
		t.Fatal(err)
	}
	patch, err := w.BinaryPatch(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if err := Discard(ctx, clone, c, w.Dir); err != nil {
		t.Fatal(err)
	}
	if b := run(t, clone, "branch", "--list", "yagent/*"); b != "" {
		t.Errorf("branches left in the clone: %s", b)
	}

	imported, err := Import(ctx, person, "yagent/b/n1", base.Snapshot, patch, "", "imported")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(imported.Files, []string{"a.txt", "bin.dat"}) || imported.Base != base.Snapshot || imported.Insertions != 1 {
		t.Errorf("imported change %+v; want a.txt and bin.dat on the snapshot", imported)
	}
	if got := run(t, person, "rev-parse", "yagent/b/n1"); got[:40] != imported.Head {
		t.Errorf("branch at %s; want %s", got, imported.Head)
	}
	if got := state(t, person); got != before {
		t.Errorf("Import changed the person's repository:\n%s\nwas:\n%s", got, before)
	}
	if _, err := Apply(ctx, person, imported); err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(person, "bin.dat")); got != "\x00\x03worker\xfe" {
		t.Errorf("bin.dat after apply: %q", got)
	}
	if got := read(t, filepath.Join(person, "a.txt")); got != "a, edited\nby the worker\n" {
		t.Errorf("a.txt after apply: %q", got)
	}
	if _, err := Import(ctx, person, "yagent/b/n1", base.Snapshot, patch, "", "again"); err == nil {
		t.Error("a second import onto the same branch succeeded")
	}

	other := repo(t, map[string]string{"other.txt": "another history\n"})
	_, err = IsolateAt(ctx, other, root, "b", "n2", base)
	if !errors.Is(err, ErrBaseMissing) || !strings.Contains(err.Error(), base.Commit) {
		t.Errorf("IsolateAt in a repository without the base: %v; want ErrBaseMissing naming %s", err, base.Commit)
	}
	if b := run(t, other, "branch", "--list", "yagent/*"); b != "" {
		t.Errorf("branches made in the other repository: %s", b)
	}
}
