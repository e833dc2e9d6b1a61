package agents

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestWalkBounds pins the two bounds of a write's walk at their edges, in
// each walk mode: a chain of maxLinks symbolic links is followed and one
// more is ELOOP (as the kernel counts); a walk that opens directories
// maxSteps+1 times, restarts after links included, ends and one more
// open is errKeepsChanging (a directory swapped for a link and back for
// ever would otherwise keep the walk going).
func TestWalkBounds(t *testing.T) {
	// links restarts of a walk through depth directories, each ending on a
	// link, then the target: (links+1) × (depth+1) opens.
	links := 0
	for l := maxLinks; l >= 1; l-- {
		if (maxSteps+1)%(l+1) == 0 && (maxSteps+1)/(l+1) > 1 {
			links = l
			break
		}
	}
	if links == 0 {
		t.Fatalf("no chain of at most %d links makes exactly %d opens: choose the test's shape again", maxLinks, maxSteps+1)
	}
	depth := (maxSteps+1)/(links+1) - 1
	for _, mode := range walkModes {
		t.Run(mode.name, func(t *testing.T) {
			w := demoWorkspace(t)
			setWalkMode(t, w, mode.errno)
			root := w.Dir()
			chain := func(dir string, n int) {
				t.Helper()
				if err := os.MkdirAll(filepath.Join(root, dir, "target", "sub"), 0o755); err != nil {
					t.Fatal(err)
				}
				for i := 1; i <= n; i++ {
					to := "target"
					if i < n {
						to = "l" + strconv.Itoa(i+1)
					}
					if err := os.Symlink(to, filepath.Join(root, dir, "l"+strconv.Itoa(i))); err != nil {
						t.Fatal(err)
					}
				}
			}

			chain("links", maxLinks)
			chain("more", maxLinks+1)
			if d, err := w.walk(filepath.Join("links", "l1"), nil); err != nil || d.path() != filepath.Join("links", "target") {
				t.Errorf("a chain of %d links (the limit) = %q, %v; want links/target", maxLinks, d.path(), err)
			} else {
				d.dir.Close()
			}
			if _, err := w.walk(filepath.Join("more", "l1"), nil); !errors.Is(err, unix.ELOOP) {
				t.Errorf("a chain of %d links = %v; want ELOOP", maxLinks+1, err)
			}

			deep := strings.Repeat("d"+string(filepath.Separator), depth)
			chain(deep, links)
			d, err := w.walk(filepath.Join(deep, "l1"), nil)
			if err != nil || d.path() != filepath.Join(deep, "target") {
				t.Errorf("a walk of %d opens (the limit + 1) = %v; want it to end at the target", maxSteps+1, err)
			} else {
				d.dir.Close()
			}
			if _, err := w.walk(filepath.Join(deep, "l1", "sub"), nil); !errors.Is(err, errKeepsChanging) {
				t.Errorf("a walk of %d opens = %v; want errKeepsChanging", maxSteps+2, err)
			}
		})
	}
}

// TestWalkFollowsLinksInside: a link whose text is absolute but names a
// place in the workspace, and one whose text is longer than the first
// buffer readlinkat tries (256 bytes), are followed to where they lead;
// the write lands there. In each walk mode.
func TestWalkFollowsLinksInside(t *testing.T) {
	for _, mode := range walkModes {
		t.Run(mode.name, func(t *testing.T) {
			w := demoWorkspace(t)
			setWalkMode(t, w, mode.errno)
			root := w.Dir()
			if err := os.MkdirAll(filepath.Join(root, "real"), 0o755); err != nil {
				t.Fatal(err)
			}
			long := strings.Repeat("./", 200) + "real" // 404 bytes
			for name, to := range map[string]string{"abs": filepath.Join(root, "real"), "long": long} {
				if err := os.Symlink(to, filepath.Join(root, name)); err != nil {
					t.Fatal(err)
				}
			}
			tools := FSTools(w, ShellPolicy{Approval: ApproveNever})
			for _, link := range []string{"abs", "long"} {
				if r := call(t, tools, "write_file", map[string]any{"path": link + "/f.txt", "content": link}); r.IsError {
					t.Errorf("write through %s = %s", link, r.Content)
				}
				if data, err := os.ReadFile(filepath.Join(root, "real", "f.txt")); err != nil || string(data) != link {
					t.Errorf("after the write through %s real/f.txt holds %q, %v", link, data, err)
				}
			}
		})
	}
}

// TestWritesCloseDescriptors: the directories a write walks are closed,
// checked and written alike; a hundred writes and edits leave the
// process's descriptors as they were.
func TestWritesCloseDescriptors(t *testing.T) {
	w := demoWorkspace(t)
	tools := FSTools(w, ShellPolicy{Approval: ApproveNever})
	open := func() int {
		entries, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Skipf("no /proc/self/fd here: %v", err)
		}
		return len(entries)
	}
	before := open()
	for i := range 100 {
		if r := call(t, tools, "write_file", map[string]any{"path": "a/b/c.txt", "content": "n" + strconv.Itoa(i%100)}); r.IsError {
			t.Fatalf("write_file = %s", r.Content)
		}
		if r := call(t, tools, "edit_file", map[string]any{"path": "a/b/c.txt", "old": "n", "new": "m"}); r.IsError {
			t.Fatalf("edit_file = %s", r.Content)
		}
		if _, ok := w.Protected(filepath.Join("a", "b", "c.txt")); ok {
			t.Fatal("a/b/c.txt is not protected")
		}
	}
	if after := open(); after > before+5 {
		t.Errorf("100 writes, edits and checks left %d descriptors open (%d before)", after, before)
	}
}

// TestWriteBecameProtectedWhileAsked: a path that was not protected when
// the person was asked, and is when the write comes (core.hooksPath set
// to its directory meanwhile), is refused — the approval was for a plain
// file — and nothing is written. In each walk mode.
func TestWriteBecameProtectedWhileAsked(t *testing.T) {
	for _, mode := range walkModes {
		t.Run(mode.name, func(t *testing.T) {
			w := demoWorkspace(t)
			setWalkMode(t, w, mode.errno)
			root := w.Dir()
			if err := os.MkdirAll(filepath.Join(root, ".git"), 0o755); err != nil {
				t.Fatal(err)
			}
			asked := 0
			ask := askFunc(func(q Question) Answer {
				asked++
				if q.Why != "" {
					t.Errorf("asked about %s as protected before it was: %s", q.Path, q.Why)
				}
				cfg := "[core]\n\thooksPath = scripts\n"
				if err := os.WriteFile(filepath.Join(root, ".git", "config"), []byte(cfg), 0o644); err != nil {
					t.Fatal(err)
				}
				return Allow
			})
			tools := FSTools(w, ShellPolicy{Approval: ApproveUntrusted, Ask: ask})
			r := call(t, tools, "write_file", map[string]any{"path": "scripts/pre-commit", "content": "evil\n"})
			if asked != 1 || !r.IsError || !strings.Contains(r.Content, "protected path now") {
				t.Errorf("write_file after core.hooksPath named its directory while asked: asked %d times, %q; want it refused", asked, r.Content)
			}
			if _, err := os.Stat(filepath.Join(root, "scripts", "pre-commit")); err == nil {
				t.Error("scripts/pre-commit was written")
			}
		})
	}
}

// TestWriteOnlyRegularFiles: write_file and edit_file replace regular
// files only: a FIFO (or a directory) in the file's place is refused and
// stays as it was — renaming a file over it would let a write stand in
// for whatever reads the FIFO.
func TestWriteOnlyRegularFiles(t *testing.T) {
	w := demoWorkspace(t)
	root := w.Dir()
	if err := unix.Mkfifo(filepath.Join(root, "pipe"), 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	tools := FSTools(w, ShellPolicy{Approval: ApproveNever})
	for _, p := range []string{"pipe", "docs"} {
		r := call(t, tools, "write_file", map[string]any{"path": p, "content": "x"})
		if !r.IsError || !strings.Contains(r.Content, "not a regular file") {
			t.Errorf("write_file %s = %q; want refused: not a regular file", p, r.Content)
		}
	}
	if fi, err := os.Lstat(filepath.Join(root, "pipe")); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v, %v", fi.Mode(), err)
	}
}
