package sandbox

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// workspace-write: writes in the workspace (new entries in its root too,
// in a view), its private temp dir and the extra roots; nowhere else; and
// never .git.
func TestWorkspaceWrite(t *testing.T) {
	eachMechanism(t, func(t *testing.T, mech Mechanism) {
		b := newBox(t, mech)
		p := b.policy(t, WorkspaceWrite)
		tests := []struct {
			name   string
			script string
			path   string // must exist after the script exactly when wantOK
			wantOK bool
		}{
			{"inside the workspace", "echo x > src/new.go", "src/new.go", true},
			{"a new directory tree inside", "mkdir -p src/a/b && echo x > src/a/b/c", "src/a/b/c", true},
			{"an existing top-level file in place", "echo more >> README", "", true},
			{"the private temp dir", `echo x > "$TMPDIR/t" && cat "$TMPDIR/t"`, "", true},
			{"an extra writable root", "echo x > " + filepath.Join(b.extra, "e"), filepath.Join(b.extra, "e"), true},
			{"/dev/null", "echo x > /dev/null", "", true},
			{"its own stderr", "echo x > /dev/stderr", "", true},
			{"outside every root", "echo x > " + filepath.Join(b.outside, "o"), filepath.Join(b.outside, "o"), false},
			{"a hook in .git", "echo evil > .git/hooks/pre-commit", ".git/hooks/pre-commit", false},
			{".git/config", "echo '[core] fsmonitor = evil' >> .git/config", "", false},
			{"removing .git", "rm -rf .git", "", false},
			{"renaming .git away", "mv .git src/g", "src/g", false},
			// The view binds the workspace writable, new entries in its
			// root included; Landlock alone grants a root holding .git
			// entry by entry, and keeps that limit.
			{"a new entry in the workspace root", "mkdir build && touch build/x new.txt", "new.txt", mech == View},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				out, ok := run(t, p, b.ws, tt.script)
				if ok != tt.wantOK {
					t.Errorf("%q: ok = %v; want %v (output %q)", tt.script, ok, tt.wantOK, out)
				}
				if tt.path == "" {
					return
				}
				path := tt.path
				if !filepath.IsAbs(path) {
					path = filepath.Join(b.ws, path)
				}
				if _, err := os.Stat(path); (err == nil) != tt.wantOK {
					t.Errorf("%q: %s exists = %v; want %v", tt.script, path, err == nil, tt.wantOK)
				}
			})
		}
		// truncate(2) needs no open for writing: Landlock's own right
		// (ABI 3+), or the view's read-only mounts, refuse it.
		keep := filepath.Join(b.outside, "keep")
		mustWrite(t, keep, "data")
		mustWrite(t, filepath.Join(b.ws, "src", "t"), "data")
		for _, c := range []struct {
			path   string
			wantOK bool
		}{{keep, false}, {filepath.Join(b.ws, ".git", "config"), false}, {filepath.Join(b.ws, "src", "t"), true}} {
			if out, ok := tryNet(t, p, b.ws, "truncate "+c.path); ok != c.wantOK {
				t.Errorf("truncate(2) %s: ok = %v, %q; want %v", c.path, ok, out, c.wantOK)
			}
		}
		if data, _ := os.ReadFile(keep); string(data) != "data" {
			t.Errorf("%s was truncated: %q", keep, data)
		}
		if data, _ := os.ReadFile(filepath.Join(b.ws, ".git", "config")); string(data) != "[core]\n" {
			t.Errorf(".git/config changed: %q", data)
		}
		if data, _ := os.ReadFile(filepath.Join(b.ws, "README")); string(data) != "hello\nmore\n" {
			t.Errorf("README = %q; want the appended line", data)
		}
	})
}

// read-only writes nothing of the person's (only its private /tmp);
// reading works.
func TestReadOnly(t *testing.T) {
	eachMechanism(t, func(t *testing.T, mech Mechanism) {
		b := newBox(t, mech)
		p := b.policy(t, ReadOnly)
		for _, target := range []string{filepath.Join(b.ws, "src", "f"), filepath.Join(b.ws, "new"), filepath.Join(b.extra, "f"), filepath.Join(b.outside, "f")} {
			if out, ok := run(t, p, b.ws, "echo x > "+target); ok {
				t.Errorf("read-only: wrote %s (%q)", target, out)
			}
			if _, err := os.Stat(target); err == nil {
				t.Errorf("read-only: %s exists", target)
			}
		}
		if out, ok := run(t, p, b.ws, `cat README > /dev/null && ls src && echo x > "$TMPDIR/scratch"`); !ok {
			t.Errorf("read-only: reading (or its private temp dir) refused: %q", out)
		}
	})
}

// Confining a command never confines the process that started it.
func TestParentStaysFree(t *testing.T) {
	eachMechanism(t, func(t *testing.T, mech Mechanism) {
		b := newBox(t, mech)
		if _, ok := run(t, b.policy(t, ReadOnly), b.ws, "true"); !ok {
			t.Fatal("a confined true failed")
		}
		if err := os.WriteFile(filepath.Join(b.outside, "parent"), []byte("x"), 0o644); err != nil {
			t.Errorf("the parent lost its write access: %v", err)
		}
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatalf("the parent lost its network: %v", err)
		}
		l.Close()
	})
}

// A writable root that contains the workspace does not reopen its .git.
func TestRootContainingWorkspaceKeepsGit(t *testing.T) {
	eachMechanism(t, func(t *testing.T, mech Mechanism) {
		parent := visibleDir(t)
		ws := filepath.Join(parent, "proj")
		mustMkdir(t, filepath.Join(ws, ".git"))
		mustMkdir(t, filepath.Join(parent, "other"))
		p, err := New(WorkspaceWrite, ws, []string{parent})
		if err != nil {
			t.Fatal(err)
		}
		p.Home = t.TempDir()
		force(p, mech)
		t.Cleanup(func() { p.Close() })
		if out, ok := run(t, p, ws, "echo x > .git/HEAD"); ok {
			t.Errorf(".git writable through a root containing the workspace: %q", out)
		}
		if out, ok := run(t, p, ws, "echo x > "+filepath.Join(parent, "other", "f")); !ok {
			t.Errorf("a sibling of the workspace inside the root refused: %q", out)
		}
	})
}

// The Landlock mechanism's grants keep .git out, split only the
// directories on the way to it, skip symlinks there, and are rebuilt from
// the disk for each command.
func TestLandlockRules(t *testing.T) {
	if !osSupported {
		t.Skip("no OS sandbox here")
	}
	b := newBox(t, LandlockOnly)
	if err := os.Symlink(filepath.Join(b.ws, ".git"), filepath.Join(b.ws, "gitlink")); err != nil {
		t.Fatal(err)
	}
	p := b.policy(t, WorkspaceWrite)
	p.ABI = func() int { return 7 }
	p.TempDir = visibleDir(t)
	pl, err := p.plan(p.TempDir)
	if err != nil {
		t.Fatal(err)
	}
	want := &rules{
		Dirs:      []string{filepath.Join(b.ws, "src"), b.extra, p.TempDir, pl.cache},
		Files:     []string{filepath.Join(b.ws, "README")},
		Split:     []string{b.ws},
		Protected: []string{filepath.Join(b.ws, ".git")},
	}
	if diff := cmp.Diff(want, pl.rules); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}
	mustMkdir(t, filepath.Join(b.ws, "later"))
	pl, _ = p.plan(p.TempDir)
	if !slices.Contains(pl.rules.Dirs, filepath.Join(b.ws, "later")) {
		t.Errorf("a new top-level directory is not granted: %v", pl.rules.Dirs)
	}
	// Read-only grants only the private temp dir.
	ro := b.policy(t, ReadOnly)
	ro.ABI, ro.TempDir = p.ABI, p.TempDir
	if pl, _ := ro.plan(ro.TempDir); !slices.Equal(pl.rules.Dirs, []string{ro.TempDir}) || len(pl.rules.Files) != 0 {
		t.Errorf("read-only rules = %+v", pl.rules)
	}
}

// The view's steps go shallow first: the private /tmp, then the workspace,
// then what is protected inside it; at one path a mask first, a grant
// over it next, a read-only bind last; the workspace's cache, kept under
// $YAGENT_HOME, lands in the private /tmp.
func TestViewOps(t *testing.T) {
	b := newBox(t, View)
	docker := filepath.Join(b.outside, ".docker") // a credential store the person made writable
	mustMkdir(t, docker)
	keys := filepath.Join(b.outside, ".ssh", "keys") // visible inside a hidden one, and writable
	mustMkdir(t, keys)
	p := b.policy(t, WorkspaceWrite)
	p.Writable = append(p.Writable, docker, keys)
	p.Visible = []string{keys}
	p.Namespaces = func() error { return nil }
	p.TempDir = filepath.Join(b.home, "tmp", "x")
	mustMkdir(t, p.TempDir)
	pl, err := p.plan(p.TempDir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, op := range pl.ops {
		got = append(got, string(op.Kind)+" "+op.Path)
	}
	index := func(s string) int {
		i := slices.Index(got, s)
		if i < 0 {
			t.Fatalf("no %q among the ops:\n%s", s, strings.Join(got, "\n"))
		}
		return i
	}
	if index("tmp "+p.TempDir) != 0 {
		t.Errorf("the private temp dir is not bound first:\n%s", strings.Join(got, "\n"))
	}
	if index("rw "+b.ws) > index("ro "+filepath.Join(b.ws, ".git")) {
		t.Errorf(".git is bound read-only before the workspace is bound writable")
	}
	if index("bind "+pl.cache) < index("tmp "+p.TempDir) || pl.ops[index("bind "+pl.cache)].At != viewCache {
		t.Errorf("the cache is not bound at %s inside the private /tmp", viewCache)
	}
	index("hide " + b.home)
	if !within(filepath.Join(b.home, "cache"), pl.cache) {
		t.Errorf("the workspace's cache %s is not under $YAGENT_HOME/cache", pl.cache)
	}
	// At one path the mask comes first, the grant over it after.
	if index("hide "+docker) > index("rw "+docker) {
		t.Errorf("a writable root that is also hidden is masked after it is bound:\n%s", strings.Join(got, "\n"))
	}
	// … and a read-only bind last.
	if index("rw "+keys) > index("ro "+keys) {
		t.Errorf("at one path the read-only bind is not the last:\n%s", strings.Join(got, "\n"))
	}
	for _, name := range []string{".yagent", ".mcp.json", ".envrc", ".claude"} {
		index("ro " + filepath.Join(b.ws, name)) // placeholders
	}
	index("hide " + filepath.Join(b.outside, ".ssh"))
	index("hide /run")
}

// A split that would need more than maxRules Landlock rules is refused
// (naming what to do), not applied in part.
func TestGrantRulesBounded(t *testing.T) {
	ws := t.TempDir()
	mustMkdir(t, filepath.Join(ws, ".git"))
	for i := range maxRules + 4 {
		mustWrite(t, filepath.Join(ws, fmt.Sprintf("f%05d", i)), "")
	}
	_, err := grantRules([]string{ws}, []string{filepath.Join(ws, ".git")})
	// (The count stops one past the bound.)
	if err == nil || !containsAll(err.Error(), fmt.Sprintf("would need %d rules", maxRules+1), "agents.sandbox_writable", "--sandbox off") {
		t.Errorf("a root of %d entries around .git: %v; want a refusal", maxRules+4, err)
	}
	// Exactly maxRules rules are granted.
	for i := maxRules; i < maxRules+4; i++ {
		if err := os.Remove(filepath.Join(ws, fmt.Sprintf("f%05d", i))); err != nil {
			t.Fatal(err)
		}
	}
	if r, err := grantRules([]string{ws}, []string{filepath.Join(ws, ".git")}); err != nil || len(r.Files) != maxRules {
		t.Errorf("a root of %d entries around .git: %v; want them granted", maxRules, err)
	}
	if r, err := grantRules([]string{filepath.Join(ws, "f00000"), filepath.Join(ws, "f00001")}, nil); err != nil || len(r.Files) != 2 {
		t.Errorf("two files: %+v, %v", r, err)
	}
}
