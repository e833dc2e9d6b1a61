package agents

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"
)

// walkModes are the two ways a write walks the tree: openat2 where the
// kernel has it, and the O_NOFOLLOW walk forced the way an old kernel
// (ENOSYS) or a seccomp filter (EPERM) forces it.
var walkModes = []struct {
	name  string
	errno error // what openat2 answers; nil: the real call
}{
	{"openat2", nil},
	{"nofollow-enosys", unix.ENOSYS},
	{"nofollow-eperm", unix.EPERM},
}

// setWalkMode makes w walk as the mode says and checks, when the test
// ends, that it did: the real openat2 was used (and never given up), or
// the refused one was tried once and the walk went on without it.
func setWalkMode(t *testing.T, w *Workspace, errno error) {
	t.Helper()
	var calls atomic.Int64
	if errno == nil {
		fd, err := sysOpenat2(int(w.top.Fd()), ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC)
		if err != nil {
			t.Skipf("openat2 is not usable here (%v): the nofollow modes cover this kernel", err)
		}
		unix.Close(fd)
		w.openat2 = func(dirfd int, name string, flags int) (int, error) {
			calls.Add(1)
			return sysOpenat2(dirfd, name, flags)
		}
		t.Cleanup(func() {
			if calls.Load() == 0 || w.noOpenat2.Load() {
				t.Errorf("openat2 called %d times, given up: %v; want it used throughout", calls.Load(), w.noOpenat2.Load())
			}
		})
		return
	}
	w.openat2 = func(int, string, int) (int, error) {
		calls.Add(1)
		return -1, errno
	}
	t.Cleanup(func() {
		if calls.Load() != 1 || !w.noOpenat2.Load() {
			t.Errorf("openat2 answering %v was called %d times (given up: %v); want once, then the O_NOFOLLOW walk", errno, calls.Load(), w.noOpenat2.Load())
		}
	})
}

// snapshot records a tree without following links: each path's type,
// mode and content (a link's target).
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		v := fi.Mode().String()
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			v += " -> " + target
		case fi.Mode().IsRegular():
			data, _ := os.ReadFile(p)
			v += " " + string(data)
		}
		rel, _ := filepath.Rel(dir, p)
		out[rel] = v
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestWriteNoWindow pins that write_file and edit_file have no window
// between the check and the write: while a directory of the workspace is
// swapped, at least 500 times, for a link to .git or to a directory
// outside the workspace, writes through it (new files, new directories,
// replacements and edits) land in the real directory or are refused —
// nothing in .git or outside ever changes, not even by a temporary file or
// an empty directory. In each walk mode.
func TestWriteNoWindow(t *testing.T) {
	const rounds = 500
	for _, mode := range walkModes {
		for _, dest := range []string{"git", "outside"} {
			t.Run(mode.name+"/"+dest, func(t *testing.T) {
				w := demoWorkspace(t)
				setWalkMode(t, w, mode.errno)
				outside := t.TempDir()
				for _, p := range []string{filepath.Join(w.Dir(), ".git", "config"), filepath.Join(w.Dir(), ".git", "hooks", "pre-commit.sample"), filepath.Join(w.Dir(), "docs", "config"), filepath.Join(outside, "config")} {
					if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(p, []byte("original\n"), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				target := ".git"
				if dest == "outside" {
					target = outside
				}
				if err := os.Symlink(target, filepath.Join(w.Dir(), "docs.swap")); err != nil {
					t.Fatal(err)
				}
				gitBefore, outBefore := snapshot(t, filepath.Join(w.Dir(), ".git")), snapshot(t, outside)

				tools := FSTools(w, ShellPolicy{Approval: ApproveNever, Allowed: true})
				swaps, stop := swapper(t, filepath.Join(w.Dir(), "docs"), filepath.Join(w.Dir(), "docs.swap"))
				ok, refused := 0, 0
				for i := 0; (i < rounds || swaps.Load() < rounds || ok == 0) && i < 100*rounds; i++ {
					var r Result
					switch i % 4 {
					case 0:
						r = call(t, tools, "write_file", map[string]any{"path": "docs/config", "content": "base\n"})
					case 1:
						r = call(t, tools, "edit_file", map[string]any{"path": "docs/config", "old": "base", "new": "evil"})
					case 2:
						r = call(t, tools, "write_file", map[string]any{"path": fmt.Sprintf("docs/hooks/d%d/pre-commit", i), "content": "evil\n"})
					case 3:
						r = call(t, tools, "write_file", map[string]any{"path": "docs/hooks/pre-commit", "content": "evil\n"})
					}
					if r.IsError {
						refused++
					} else {
						ok++
					}
				}
				stop()
				t.Logf("%d swaps; %d writes done, %d refused", swaps.Load(), ok, refused)
				if diff := cmp.Diff(gitBefore, snapshot(t, filepath.Join(w.Dir(), ".git"))); diff != "" {
					t.Errorf(".git changed (-before +after):\n%s", diff)
				}
				if diff := cmp.Diff(outBefore, snapshot(t, outside)); diff != "" {
					t.Errorf("the directory outside changed (-before +after):\n%s", diff)
				}
				if ok == 0 || refused == 0 {
					t.Errorf("%d writes done, %d refused; want both (the swap was not seen, or nothing was written)", ok, refused)
				}
			})
		}
	}
}

// TestReadNoWindow pins that the read tools never leave the workspace,
// while a directory is swapped at least 500 times for a link to one
// outside it: read_file, list_dir, grep and glob show the inside or refuse.
func TestReadNoWindow(t *testing.T) {
	const rounds = 500
	w := demoWorkspace(t)
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("TOP SECRET\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(w.Dir(), "docs.swap")); err != nil {
		t.Fatal(err)
	}
	tools := FSTools(w, ShellPolicy{})
	swaps, stop := swapper(t, filepath.Join(w.Dir(), "docs"), filepath.Join(w.Dir(), "docs.swap"))
	defer stop()
	for i := 0; i < rounds || swaps.Load() < rounds; i++ {
		var r Result
		switch i % 5 {
		case 0:
			r = call(t, tools, "read_file", map[string]any{"path": "docs/secret.txt"})
		case 1:
			r = call(t, tools, "list_dir", map[string]any{"path": "docs"})
		case 2:
			r = call(t, tools, "grep", map[string]any{"pattern": "SECRET", "path": "docs"})
		case 3:
			r = call(t, tools, "glob", map[string]any{"pattern": "docs/*"})
		case 4:
			r = call(t, tools, "edit_file", map[string]any{"path": "docs/secret.txt", "old": "TOP", "new": "TOP"})
		}
		if strings.Contains(r.Content, "TOP SECRET") || strings.Contains(r.Content, "secret.txt\t") || strings.Contains(r.Content, "docs/secret.txt\n") {
			t.Fatalf("round %d: a read tool showed the directory outside: %q", i, r.Content)
		}
	}
}

// TestProtectedThroughLinks: a protected path reached through a link
// inside the workspace is asked about, with where it leads; approved, the
// write lands there; a link to an ordinary directory is written through
// unasked; a walk that cannot settle is refused, not followed forever.
func TestProtectedThroughLinks(t *testing.T) {
	for _, mode := range walkModes {
		t.Run(mode.name, func(t *testing.T) {
			w := demoWorkspace(t)
			setWalkMode(t, w, mode.errno)
			if err := os.MkdirAll(filepath.Join(w.Dir(), ".git", "hooks"), 0o755); err != nil {
				t.Fatal(err)
			}
			for link, to := range map[string]string{"gitlink": ".git", "docs/up": "..", "loop": "loop", "docs2": "docs"} {
				if err := os.Symlink(to, filepath.Join(w.Dir(), link)); err != nil {
					t.Fatal(err)
				}
			}
			var asked []Question
			yes := ShellPolicy{Approval: ApproveNever, Ask: askFunc(func(q Question) Answer { asked = append(asked, q); return Allow })}
			tools := FSTools(w, yes)
			for _, p := range []string{"gitlink/hooks/pre-commit", "docs/up/.git/hooks/post-commit", "docs2/up/gitlink/hooks/pre-push"} {
				asked = nil
				if r := call(t, tools, "write_file", map[string]any{"path": p, "content": "approved\n"}); r.IsError {
					t.Errorf("approved write_file %s = %q", p, r.Content)
				}
				base := filepath.Base(p)
				if len(asked) != 1 || !strings.Contains(asked[0].Why, "git's own files") || !strings.Contains(asked[0].Why, "leads to .git/hooks/"+base) {
					t.Errorf("write_file %s asked %+v; want once, saying it leads to .git/hooks/%s", p, asked, base)
				}
				if data, _ := os.ReadFile(filepath.Join(w.Dir(), ".git", "hooks", base)); string(data) != "approved\n" {
					t.Errorf("approved write through a link: .git/hooks/%s = %q", base, data)
				}
			}
			asked = nil
			if r := call(t, tools, "write_file", map[string]any{"path": "docs2/new.txt", "content": "x\n"}); r.IsError || len(asked) != 0 {
				t.Errorf("write_file docs2/new.txt = %q, asked %v; want written unasked", r.Content, asked)
			}
			if data, _ := os.ReadFile(filepath.Join(w.Dir(), "docs", "new.txt")); string(data) != "x\n" {
				t.Errorf("docs/new.txt = %q; want the write through docs2", data)
			}
			if r := call(t, tools, "write_file", map[string]any{"path": "loop/x", "content": "x"}); !r.IsError || !strings.Contains(r.Content, "too many levels of symbolic links") {
				t.Errorf("write_file through a link to itself = %q; want refused", r.Content)
			}
		})
	}
}

// The walk's errors name what went wrong.
func TestWalkErrors(t *testing.T) {
	w := demoWorkspace(t)
	if _, err := w.walk("main.go", nil); !errors.Is(err, unix.ENOTDIR) {
		t.Errorf("walk through a file = %v; want ENOTDIR", err)
	}
	d, err := w.walk("docs/a/b", nil)
	if err != nil || d.path() != filepath.Join("docs", "a", "b") || len(d.missing) != 2 {
		t.Errorf("walk to missing directories = %+v, %v", d, err)
	}
	d.dir.Close()
	if _, err := w.walk("x/y", []string{"other", "y"}); !errors.Is(err, errPathChanged) {
		t.Errorf("walk creating what was not checked = %v; want errPathChanged", err)
	}
	if _, err := os.Stat(filepath.Join(w.Dir(), "x")); err == nil {
		t.Error("a directory that was not checked was created")
	}
}

// TestWriteChangedWhileAsked: what the person approved is what is
// written. A directory swapped for a link while the question is on the
// screen — to .git, or from one protected place to another — refuses the
// write and changes nothing.
func TestWriteChangedWhileAsked(t *testing.T) {
	for _, tc := range []struct {
		name, tool, path string
		link, to         string // made a link to "to" while asked
	}{
		{"dir to .git", "write_file", "docs/config", "docs", ".git"},
		{"dir to .git, edit", "edit_file", "docs/config", "docs", ".git"},
		{"new dir to .git", "write_file", "newdir/config", "newdir", ".git"},
		{"protected elsewhere", "write_file", "gitlink/hooks/pre-commit", "gitlink", ".yagent"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := demoWorkspace(t)
			dir := w.Dir()
			for _, p := range []string{".git/config", ".git/hooks/pre-commit", ".yagent/hooks/pre-commit", "docs/config"} {
				if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, p), []byte("original\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Symlink(".git", filepath.Join(dir, "gitlink")); err != nil {
				t.Fatal(err)
			}
			before := snapshot(t, dir)
			asked := 0
			swap := func(Question) Answer {
				asked++
				p := filepath.Join(dir, tc.link)
				if fi, err := os.Lstat(p); err == nil && fi.IsDir() {
					if err := os.Rename(p, p+".real"); err != nil {
						t.Error(err)
					}
				} else {
					os.Remove(p)
				}
				if err := os.Symlink(tc.to, p); err != nil {
					t.Error(err)
				}
				return Allow
			}
			args := map[string]any{"path": tc.path, "content": "evil\n"}
			if tc.tool == "edit_file" {
				args = map[string]any{"path": tc.path, "old": "original", "new": "evil"}
			}
			r := call(t, FSTools(w, ShellPolicy{Approval: ApproveUntrusted, Ask: askFunc(swap)}), tc.tool, args)
			if asked != 1 || !r.IsError || !strings.Contains(r.Content, "leads somewhere else now") {
				t.Errorf("%s %s, swapped while asked (asked %d) = %q; want refused", tc.tool, tc.path, asked, r.Content)
			}
			for p, v := range snapshot(t, dir) {
				if strings.Contains(v, "evil") || strings.HasPrefix(p, ".") && before[p] != v {
					t.Errorf("%s changed: %q -> %q", p, before[p], v)
				}
			}
		})
	}
}
