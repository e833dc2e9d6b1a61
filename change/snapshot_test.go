package change

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tree reads every file under dir (symbolic links as "-> target").
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.Type()&os.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			out[rel] = "-> " + target
			return nil
		}
		b, err := os.ReadFile(p)
		out[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSnapshotIsolation is the parallel scene on a workspace that is no
// git repository: four copies, a function each, applied one after the
// other, the person's own edit elsewhere in the file kept; two edits of
// the same lines conflict and change nothing; the workspace gets no .git
// and is only read while the delegations work; discard removes the copy
// and the shadow repository.
func TestSnapshotIsolation(t *testing.T) {
	ctx := context.Background()
	repo(t, nil) // skips without git
	ws := t.TempDir()
	write(t, ws, map[string]string{"p.go": fourFuncs, "sub/x.txt": "x\n"})
	if err := os.Symlink("sub/x.txt", filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	before := tree(t, ws)
	var changes []*Change
	var dirs []string
	for i, fn := range []string{"A", "B", "C", "D", "A2"} {
		w, err := Snapshot(ctx, ws, root, "board", fmt.Sprintf("n%d", i), 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		if got := tree(t, w.Dir); fmt.Sprint(got) != fmt.Sprint(before) {
			t.Fatalf("the copy differs from the workspace:\n%v\n%v", got, before)
		}
		n := i + 1
		if fn == "A2" {
			n = 1
		}
		p := filepath.Join(w.Dir, "p.go")
		write(t, w.Dir, map[string]string{"p.go": strings.Replace(read(t, p), fmt.Sprintf("return %d\n", n), fmt.Sprintf("return %d0 // %s\n", n, fn), 1)})
		c, err := w.Commit(ctx, fn)
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Files) != 1 || c.Files[0] != "p.go" || c.Insertions != 1 || c.Deletions != 1 || !strings.Contains(string(c.Patch), "// "+fn) {
			t.Errorf("change %s: %v +%d -%d\n%s", fn, c.Files, c.Insertions, c.Deletions, c.Patch)
		}
		changes, dirs = append(changes, c), append(dirs, w.Dir)
	}
	if got := tree(t, ws); fmt.Sprint(got) != fmt.Sprint(before) {
		t.Fatalf("the workspace changed while the delegations worked:\n%v", got)
	}
	// The person edits the file meanwhile, away from the functions.
	write(t, ws, map[string]string{"p.go": strings.Replace(fourFuncs, "package p\n", "// Package p.\npackage p\n", 1)})
	for _, c := range changes[:4] {
		if _, err := Apply(ctx, ws, c); err != nil {
			t.Fatalf("apply %s: %v", c.Branch, err)
		}
	}
	want := strings.NewReplacer("package p\n", "// Package p.\npackage p\n", "return 1\n", "return 10 // A\n", "return 2\n", "return 20 // B\n", "return 3\n", "return 30 // C\n", "return 4\n", "return 40 // D\n").Replace(fourFuncs)
	if got := read(t, filepath.Join(ws, "p.go")); got != want {
		t.Errorf("p.go:\n%s\nwant:\n%s", got, want)
	}
	applied := tree(t, ws)
	_, err := Apply(ctx, ws, changes[4])
	var ce *ConflictError
	if !errors.As(err, &ce) || len(ce.Files) != 1 || len(ce.Hunks["p.go"]) != 1 {
		t.Fatalf("the same lines twice: %v", err)
	}
	if got := tree(t, ws); fmt.Sprint(got) != fmt.Sprint(applied) {
		t.Errorf("a conflict changed the workspace")
	}
	if _, err := os.Stat(filepath.Join(ws, ".git")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the workspace got a .git: %v", err)
	}
	if err := Discard(ctx, ws, changes[4], dirs[4]); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dirs[4], changes[4].GitDir} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left after discard: %v", p, err)
		}
	}
}

// TestSnapshotBounded: a workspace larger than the bound is refused with
// ErrTooLarge naming the key, and leaves nothing under the root.
func TestSnapshotBounded(t *testing.T) {
	repo(t, nil) // skips without git
	ws := t.TempDir()
	write(t, ws, map[string]string{"a": strings.Repeat("a", 600), "b": strings.Repeat("b", 600)})
	root := t.TempDir()
	_, err := Snapshot(context.Background(), ws, root, "board", "n", 1000)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "agents.isolation_max_bytes") {
		t.Fatalf("over the bound: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Join(root, "board"))
	for _, e := range entries {
		t.Errorf("left under the root: %s", e.Name())
	}
	if _, err := Snapshot(context.Background(), ws, root, "board", "n", 2000); err != nil {
		t.Errorf("within the bound: %v", err)
	}
}

// Ignored inputs the work needs (agents.isolation_include) are copied into
// a worktree — directories whole, files with their mode — and stay out of
// its change; a path that is missing or tracked is skipped, one that
// leaves the workspace refused, a directory over the bound is ErrTooLarge.
func TestInclude(t *testing.T) {
	ctx := context.Background()
	dir := repo(t, map[string]string{".gitignore": "node_modules/\n.env\n", "a.txt": "a\n"})
	write(t, dir, map[string]string{"node_modules/x/index.js": "x\n", ".env": "K=v\n"})
	w, err := Isolate(ctx, dir, t.TempDir(), "b", "n1")
	if err != nil {
		t.Fatal(err)
	}
	got, err := w.Include(ctx, dir, []string{"node_modules", ".env", "missing", "a.txt"}, 0)
	if err != nil || strings.Join(got, ",") != "node_modules,.env" {
		t.Fatalf("Include = %q, %v; want node_modules and .env", got, err)
	}
	if read(t, filepath.Join(w.Dir, "node_modules/x/index.js")) != "x\n" || read(t, filepath.Join(w.Dir, ".env")) != "K=v\n" {
		t.Error("the included files differ from the workspace's")
	}
	c, err := w.Commit(ctx, "nothing")
	if err != nil || !c.Empty() {
		t.Errorf("the included files made a change: %+v, %v", c, err)
	}
	if _, err := w.Include(ctx, dir, []string{"../outside"}, 0); err == nil {
		t.Error("a path outside the workspace was accepted")
	}
	w2, err := Isolate(ctx, dir, t.TempDir(), "b", "n2")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w2.Include(ctx, dir, []string{"node_modules"}, 1); !errors.Is(err, ErrTooLarge) {
		t.Errorf("over the bound: %v; want ErrTooLarge", err)
	}
}

// A root inside the workspace ($YAGENT_HOME there, as in the CLI's
// scripts) is never copied into a snapshot — not itself, not another
// delegation's copy — and applying its change snapshots the workspace
// without it.
func TestSnapshotRootInside(t *testing.T) {
	ctx := context.Background()
	repo(t, nil) // skips without git
	ws := t.TempDir()
	write(t, ws, map[string]string{"a.txt": "a\n", "home/notes/x.md": "note\n"})
	root := filepath.Join(ws, "home", "worktrees")
	first, err := Snapshot(ctx, ws, root, "b", "n1", 0)
	if err != nil {
		t.Fatal(err)
	}
	second, err := Snapshot(ctx, ws, root, "b", "n2", 0)
	if err != nil {
		t.Fatal(err)
	}
	for name := range tree(t, second.Dir) {
		if strings.HasPrefix(name, filepath.Join("home", "worktrees")) {
			t.Fatalf("the snapshot copied the root: %s", name)
		}
	}
	write(t, first.Dir, map[string]string{"a.txt": "A\n"})
	c, err := first.Commit(ctx, "edit")
	if err != nil {
		t.Fatal(err)
	}
	if files, err := Apply(ctx, ws, c); err != nil || strings.Join(files, ",") != "a.txt" {
		t.Fatalf("Apply = %q, %v", files, err)
	}
	if got := read(t, filepath.Join(ws, "a.txt")); got != "A\n" {
		t.Errorf("a.txt = %q", got)
	}
	if out := run(t, ws, "--git-dir", first.GitDir, "--work-tree", ws, "ls-tree", "-r", "--name-only", "yagent/b/n1"); strings.Contains(out, "worktrees") {
		t.Errorf("the change's tree holds the root:\n%s", out)
	}
}
