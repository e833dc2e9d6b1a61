package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The rule set keeps .git out of every grant, splits only the directories
// on the way to it, skips symlinks there, and is rebuilt from the disk for
// each command.
func TestRules(t *testing.T) {
	b := newBox(t)
	if err := os.Symlink(filepath.Join(b.ws, ".git"), filepath.Join(b.ws, "gitlink")); err != nil {
		t.Fatal(err)
	}
	p := b.policy(t, WorkspaceWrite)
	r, err := p.rules(7)
	if err != nil {
		t.Fatal(err)
	}
	want := &rules{
		ABI:       7,
		Dirs:      []string{filepath.Join(b.ws, "src"), b.extra, b.tmp},
		Files:     append(slices.Clone(devices), filepath.Join(b.ws, "README")),
		Split:     []string{b.ws},
		Protected: []string{filepath.Join(b.ws, ".git")},
	}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}

	// A new top-level entry is granted from the next command on.
	mustMkdir(t, filepath.Join(b.ws, "later"))
	r, _ = p.rules(7)
	if !slices.Contains(r.Dirs, filepath.Join(b.ws, "later")) {
		t.Errorf("a new top-level directory is not granted: %v", r.Dirs)
	}

	// A root holding the workspace is split down to it.
	p.TempDir = filepath.Dir(b.ws)
	r, _ = p.rules(7)
	for _, d := range r.Dirs {
		if within(d, filepath.Join(b.ws, ".git")) {
			t.Errorf("%s is granted and holds .git", d)
		}
	}
	if !slices.Equal(r.Split, []string{b.ws, filepath.Dir(b.ws)}) {
		t.Errorf("split = %v; want the workspace and its parent", r.Split)
	}

	// Read-only grants only the devices.
	ro := b.policy(t, ReadOnly)
	if r, _ := ro.rules(7); len(r.Dirs) != 0 || !slices.Equal(r.Files, devices) {
		t.Errorf("read-only rules = %+v", r)
	}
}

func TestHelperArgsRoundTrip(t *testing.T) {
	r := &rules{ABI: 7, Dirs: []string{"/a b", "--", "-dir"}, Files: []string{"/dev/null"}}
	argv := []string{"sh", "-c", "echo -- -abi"}
	a := r.args()
	if a[0] != HelperArg {
		t.Fatalf("args[0] = %q", a[0])
	}
	got, gotArgv, err := parseArgs(append(a[1:], argv...))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(r, got); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}
	if !slices.Equal(gotArgv, argv) {
		t.Errorf("argv = %q; want %q", gotArgv, argv)
	}
	for _, bad := range [][]string{{}, {"-abi"}, {"-abi", "x", "--", "sh"}, {"-dir", "/a"}, {"--"}, {"sh"}} {
		if _, _, err := parseArgs(bad); err == nil {
			t.Errorf("parseArgs(%q) accepted", bad)
		}
	}
}

// FuzzParseArgs: parsing never panics, and whatever parses re-encodes to
// the same rules and command.
func FuzzParseArgs(f *testing.F) {
	f.Add("-abi\x007\x00-dir\x00/w\x00-file\x00/dev/null\x00--\x00sh\x00-c\x00true")
	f.Add("--\x00x")
	f.Add("-dir")
	f.Fuzz(func(t *testing.T, s string) {
		r, argv, err := parseArgs(strings.Split(s, "\x00"))
		if err != nil {
			return
		}
		r2, argv2, err := parseArgs(append(r.args()[1:], argv...))
		if err != nil {
			t.Fatalf("re-encoded args do not parse: %v", err)
		}
		if diff := cmp.Diff(r, r2); diff != "" || !slices.Equal(argv, argv2) {
			t.Fatalf("round trip changed the rules or argv: %s %q %q", diff, argv, argv2)
		}
	})
}
