package change

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// repo makes a git repository with files committed and returns its top.
func repo(t *testing.T, files map[string]string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	run(t, dir, "init", "-q", "-b", "main")
	run(t, dir, "config", "user.email", "person@example.com")
	run(t, dir, "config", "user.name", "Person")
	if len(files) > 0 {
		write(t, dir, files)
		run(t, dir, "add", "-A")
		run(t, dir, "commit", "-q", "-m", "start")
	}
	return dir
}

func run(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// state is what of the person's repository yagent must never change:
// HEAD, the index, the stash, the branches but yagent's, the status.
func state(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	for _, args := range [][]string{
		{"rev-parse", "HEAD"},
		{"ls-files", "--stage"},
		{"stash", "list"},
		{"for-each-ref", "--format=%(refname) %(objectname)", "refs/heads/", "refs/tags/"},
		{"status", "--porcelain=v1", "--untracked-files=all", "--ignored"},
	} {
		out := run(t, dir, args...)
		var keep []string
		for l := range strings.SplitSeq(out, "\n") {
			if !strings.Contains(l, "refs/heads/yagent/") {
				keep = append(keep, l)
			}
		}
		fmt.Fprintf(&b, "$ git %s\n%s\n", strings.Join(args, " "), strings.Join(keep, "\n"))
	}
	return b.String()
}

// TestIsolateTakesUncommitted pins the worktree's start: HEAD plus the
// person's uncommitted changes — modified, staged, deleted, untracked —
// without the ignored files, and nothing of the person's changed.
func TestIsolateTakesUncommitted(t *testing.T) {
	ctx := context.Background()
	ws := repo(t, map[string]string{"a.txt": "a\n", "gone.txt": "x\n", "staged.txt": "s\n", ".gitignore": "*.log\nnode_modules/\n"})
	write(t, ws, map[string]string{"a.txt": "a changed\n", "new.txt": "new\n", "debug.log": "ignored\n", "node_modules/m.js": "ignored\n", "staged.txt": "s staged\n"})
	run(t, ws, "add", "staged.txt")
	os.Remove(filepath.Join(ws, "gone.txt"))
	before := state(t, ws)

	w, err := Isolate(ctx, ws, t.TempDir(), "b1", "n1")
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"a.txt": "a changed\n", "new.txt": "new\n", "staged.txt": "s staged\n"} {
		if got := read(t, filepath.Join(w.Dir, name)); got != want {
			t.Errorf("%s in the worktree = %q, want %q", name, got, want)
		}
	}
	for _, name := range []string{"gone.txt", "debug.log", "node_modules/m.js"} {
		if _, err := os.Stat(filepath.Join(w.Dir, name)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s is in the worktree (%v); want it left out", name, err)
		}
	}
	if w.Branch != "yagent/b1/n1" || !strings.Contains(run(t, ws, "branch", "--list", "yagent/*"), "yagent/b1/n1") {
		t.Errorf("branch %q not made", w.Branch)
	}
	if after := state(t, ws); after != before {
		t.Errorf("the person's repository changed:\n--- before\n%s\n--- after\n%s", before, after)
	}
	// A second delegation of the same name is refused, naming the branch.
	if _, err := Isolate(ctx, ws, t.TempDir(), "b1", "n1"); err == nil || !strings.Contains(err.Error(), "yagent/b1/n1 exists") {
		t.Errorf("same branch twice: %v", err)
	}
	if _, err := Isolate(ctx, ws, t.TempDir(), "b1", "bad..name"); err == nil {
		t.Error("a note id git refuses as a branch name was accepted")
	}
	if _, err := Isolate(ctx, t.TempDir(), t.TempDir(), "b1", "n2"); !errors.Is(err, ErrNotRepository) {
		t.Errorf("not a repository: %v, want ErrNotRepository", err)
	}
}

const fourFuncs = `package p

func A() int {
	return 1
}

func B() int {
	return 2
}

func C() int {
	return 3
}

func D() int {
	return 4
}
`

// TestParallelChangesApply is the first scene: four delegations
// edit one file, each a function of its own, in worktrees started at once;
// each change is a branch with its diffstat and patch; applied one after
// the other they give the file with all four edits; the index and HEAD
// stay as they were.
func TestParallelChangesApply(t *testing.T) {
	ctx := context.Background()
	ws := repo(t, map[string]string{"p.go": fourFuncs, "bin.dat": "\x00\x01"})
	root := t.TempDir()
	var changes []*Change
	for i, fn := range []string{"A", "B", "C", "D"} {
		w, err := Isolate(ctx, ws, root, "board", fmt.Sprintf("note-%d", i))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(w.Dir, "p.go")
		old := fmt.Sprintf("return %d\n", i+1)
		write(t, w.Dir, map[string]string{"p.go": strings.Replace(read(t, p), old, fmt.Sprintf("return %d0 // %s\n", i+1, fn), 1)})
		if fn == "D" {
			write(t, w.Dir, map[string]string{"d/new.txt": "new\n", "bin.dat": "\x00\x02"})
			if err := os.Chmod(filepath.Join(w.Dir, "d/new.txt"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		c, err := w.Commit(ctx, "delegation "+fn)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Remove(ctx); err != nil {
			t.Fatal(err)
		}
		changes = append(changes, c)
	}
	d := changes[3]
	if !slices.Equal(d.Files, []string{"bin.dat", "d/new.txt", "p.go"}) || d.Insertions != 2 || d.Deletions != 1 {
		t.Errorf("change D: files %v +%d -%d; want bin.dat d/new.txt p.go +2 -1", d.Files, d.Insertions, d.Deletions)
	}
	if p := string(d.Patch); !strings.Contains(p, "+\treturn 40 // D") || !strings.Contains(p, "Binary files a/bin.dat and b/bin.dat differ") {
		t.Errorf("patch of D:\n%s", p)
	}
	head, index := run(t, ws, "rev-parse", "HEAD"), run(t, ws, "ls-files", "--stage")
	for _, c := range changes {
		if _, err := Apply(ctx, ws, c); err != nil {
			t.Fatalf("apply %s: %v", c.Branch, err)
		}
	}
	want := strings.NewReplacer("return 1\n", "return 10 // A\n", "return 2\n", "return 20 // B\n", "return 3\n", "return 30 // C\n", "return 4\n", "return 40 // D\n").Replace(fourFuncs)
	if got := read(t, filepath.Join(ws, "p.go")); got != want {
		t.Errorf("p.go after four changes:\n%s\nwant:\n%s", got, want)
	}
	if got := read(t, filepath.Join(ws, "bin.dat")); got != "\x00\x02" {
		t.Errorf("bin.dat = %q", got)
	}
	if fi, err := os.Stat(filepath.Join(ws, "d/new.txt")); err != nil || fi.Mode().Perm()&0o100 == 0 {
		t.Errorf("d/new.txt: %v, %v; want an executable file", fi, err)
	}
	if run(t, ws, "rev-parse", "HEAD") != head || run(t, ws, "ls-files", "--stage") != index {
		t.Error("applying moved HEAD or changed the index")
	}
	if _, err := Apply(ctx, ws, changes[0]); !errors.Is(err, ErrAlreadyApplied) {
		t.Errorf("the same change twice: %v, want ErrAlreadyApplied", err)
	}
}

// TestConflictLeavesWorkspace: two delegations edit the same lines; the
// first applies, the second reports its conflict with the file and hunk
// and leaves every byte of the working tree as it was.
func TestConflictLeavesWorkspace(t *testing.T) {
	ctx := context.Background()
	ws := repo(t, map[string]string{"p.go": fourFuncs, "other.txt": "o\n"})
	root := t.TempDir()
	var changes []*Change
	for i, v := range []string{"100", "200"} {
		w, err := Isolate(ctx, ws, root, "board", fmt.Sprintf("n%d", i))
		if err != nil {
			t.Fatal(err)
		}
		write(t, w.Dir, map[string]string{"p.go": strings.Replace(fourFuncs, "return 1\n", "return "+v+"\n", 1), "other.txt": "o " + v + "\n"})
		c, err := w.Commit(ctx, "edit")
		if err != nil {
			t.Fatal(err)
		}
		changes = append(changes, c)
	}
	if _, err := Apply(ctx, ws, changes[0]); err != nil {
		t.Fatal(err)
	}
	before := state(t, ws) + read(t, filepath.Join(ws, "p.go")) + read(t, filepath.Join(ws, "other.txt"))
	_, err := Apply(ctx, ws, changes[1])
	var ce *ConflictError
	if !errors.As(err, &ce) {
		t.Fatalf("second change: %v, want a ConflictError", err)
	}
	if !slices.Equal(ce.Files, []string{"other.txt", "p.go"}) || len(ce.Hunks["p.go"]) != 1 ||
		!strings.Contains(ce.Hunks["p.go"][0], "return 100") || !strings.Contains(ce.Hunks["p.go"][0], "return 200") {
		t.Errorf("conflict: files %v hunks %q", ce.Files, ce.Hunks)
	}
	after := state(t, ws) + read(t, filepath.Join(ws, "p.go")) + read(t, filepath.Join(ws, "other.txt"))
	if after != before {
		t.Errorf("a failed merge changed the workspace:\n--- before\n%s\n--- after\n%s", before, after)
	}
	if err := Discard(ctx, ws, changes[1], filepath.Join(root, "board", "n1")); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(run(t, ws, "branch", "--list", "yagent/*"), "n1") {
		t.Error("the discarded change's branch is still there")
	}
	if _, err := os.Stat(filepath.Join(root, "board", "n1")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the discarded change's worktree is still there: %v", err)
	}
}

// TestHooksAndSigningNeverRun: yagent's worktrees and commits run none of
// the person's hooks (nor core.hooksPath's) and never sign.
func TestHooksAndSigningNeverRun(t *testing.T) {
	ctx := context.Background()
	ws := repo(t, map[string]string{"a.txt": "a\n"})
	marker := filepath.Join(t.TempDir(), "ran")
	hook := "#!/bin/sh\necho \"$0\" >> " + marker + "\n"
	hooks := filepath.Join(ws, ".husky")
	for _, dir := range []string{filepath.Join(ws, ".git", "hooks"), hooks} {
		for _, name := range []string{"post-checkout", "pre-commit", "commit-msg", "post-commit", "reference-transaction", "post-index-change"} {
			write(t, dir, map[string]string{name: hook})
			os.Chmod(filepath.Join(dir, name), 0o755)
		}
	}
	run(t, ws, "config", "core.hooksPath", hooks)
	run(t, ws, "config", "commit.gpgSign", "true")
	run(t, ws, "config", "gpg.program", "/bin/false")
	write(t, ws, map[string]string{"a.txt": "a dirty\n"})
	w, err := Isolate(ctx, ws, t.TempDir(), "b", "n")
	if err != nil {
		t.Fatal(err)
	}
	write(t, w.Dir, map[string]string{"b.txt": "b\n"})
	c, err := w.Commit(ctx, "work")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Apply(ctx, ws, c); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(marker); err == nil {
		t.Errorf("hooks ran:\n%s", b)
	}
	if sig := run(t, ws, "cat-file", "commit", c.Head); strings.Contains(sig, "gpgsig") {
		t.Errorf("yagent's commit is signed:\n%s", sig)
	}
}

// TestUnbornHead: a repository with no commit yet isolates and applies.
func TestUnbornHead(t *testing.T) {
	ctx := context.Background()
	ws := repo(t, nil)
	write(t, ws, map[string]string{"a.txt": "a\n"})
	w, err := Isolate(ctx, ws, t.TempDir(), "b", "n")
	if err != nil {
		t.Fatal(err)
	}
	write(t, w.Dir, map[string]string{"a.txt": "a2\n"})
	c, err := w.Commit(ctx, "work")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Apply(ctx, ws, c); err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(ws, "a.txt")); got != "a2\n" {
		t.Errorf("a.txt = %q", got)
	}
}

// TestWorktreeGone: a worktree deleted mid-run ends the commit with an
// error that names it.
func TestWorktreeGone(t *testing.T) {
	ctx := context.Background()
	ws := repo(t, map[string]string{"a.txt": "a\n"})
	w, err := Isolate(ctx, ws, t.TempDir(), "b", "n")
	if err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(w.Dir)
	if _, err := w.Commit(ctx, "work"); err == nil || !strings.Contains(err.Error(), w.Dir) || !strings.Contains(err.Error(), "gone") {
		t.Errorf("commit of a deleted worktree: %v", err)
	}
}

// TestApplyRemovesAndStaysInside: a change that deletes a file removes
// it; where the working tree now has a symbolic link in the change's path
// the merge conflicts and nothing is written through the link.
func TestApplyRemovesAndStaysInside(t *testing.T) {
	ctx := context.Background()
	ws := repo(t, map[string]string{"del.txt": "d\n", "sub/f.txt": "f\n"})
	root := t.TempDir()
	var changes []*Change
	for _, n := range []string{"n1", "n2"} {
		w, err := Isolate(ctx, ws, root, "b", n)
		if err != nil {
			t.Fatal(err)
		}
		os.Remove(filepath.Join(w.Dir, "del.txt"))
		write(t, w.Dir, map[string]string{"sub/f.txt": "f " + n + "\n"})
		c, err := w.Commit(ctx, "work")
		if err != nil {
			t.Fatal(err)
		}
		changes = append(changes, c)
	}
	if _, err := Apply(ctx, ws, changes[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(ws, "del.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("del.txt still there: %v", err)
	}
	run(t, ws, "checkout", "--", "del.txt", "sub/f.txt")
	outside := t.TempDir()
	os.RemoveAll(filepath.Join(ws, "sub"))
	if err := os.Symlink(outside, filepath.Join(ws, "sub")); err != nil {
		t.Fatal(err)
	}
	_, err := Apply(ctx, ws, changes[1])
	var ce *ConflictError
	if !errors.As(err, &ce) {
		t.Errorf("a change under a path that is now a symbolic link: %v, want a conflict", err)
	}
	if _, err := os.Stat(filepath.Join(outside, "f.txt")); err == nil {
		t.Fatal("apply wrote through a symbolic link outside the repository")
	}
}

// TestIsolateEdges: a detached HEAD isolates from its commit; a nested
// repository and LFS-tracked files are named in the worktree's warnings.
func TestIsolateEdges(t *testing.T) {
	ctx := context.Background()
	ws := repo(t, map[string]string{"a.txt": "a\n", ".gitattributes": "*.bin filter=lfs diff=lfs merge=lfs -text\n"})
	run(t, ws, "commit", "-q", "--allow-empty", "-m", "second")
	run(t, ws, "checkout", "-q", "--detach", "HEAD~1")
	nested := filepath.Join(ws, "vendor", "lib")
	if err := os.MkdirAll(nested, 0o755); err != nil {
		t.Fatal(err)
	}
	run(t, nested, "init", "-q")
	run(t, nested, "-c", "user.name=x", "-c", "user.email=x@x", "commit", "-q", "--allow-empty", "-m", "nested")
	w, err := Isolate(ctx, ws, t.TempDir(), "b", "n")
	if err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(w.Dir, "a.txt")); got != "a\n" {
		t.Errorf("a.txt = %q", got)
	}
	all := strings.Join(w.Warnings, "\n")
	if !strings.Contains(all, "vendor/lib") || !strings.Contains(all, "Git LFS") {
		t.Errorf("warnings %q; want the nested repository and LFS named", w.Warnings)
	}
}

// TestSameSizeEditRightAfterCheckout: an edit that keeps a file's size,
// made in the second of the worktree's checkout and committed a second
// later, is in the change (the private index keeps its index's time, so
// git's racy check still sees it).
func TestSameSizeEditRightAfterCheckout(t *testing.T) {
	ctx := context.Background()
	ws := repo(t, map[string]string{"f.txt": "aaaa\n"})
	w, err := Isolate(ctx, ws, t.TempDir(), "b", "n")
	if err != nil {
		t.Fatal(err)
	}
	write(t, w.Dir, map[string]string{"f.txt": "bbbb\n"})
	time.Sleep(1100 * time.Millisecond)
	c, err := w.Commit(ctx, "edit")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.Files, []string{"f.txt"}) {
		t.Errorf("files %v; want the same-size edit of f.txt", c.Files)
	}
}
