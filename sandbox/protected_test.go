package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A linked worktree's .git is a file naming its git directory; hooks and
// config live in that directory's common directory (the main repository's
// .git). worktree builds that layout with the main repository inside root.
func worktree(t *testing.T, ws, root string) (gitDir, common string) {
	t.Helper()
	common = filepath.Join(root, "main", ".git")
	gitDir = filepath.Join(common, "worktrees", "wt")
	mustMkdir(t, gitDir)
	mustMkdir(t, filepath.Join(common, "hooks"))
	mustWrite(t, filepath.Join(gitDir, "commondir"), "../..\n")
	mustWrite(t, filepath.Join(gitDir, "HEAD"), "ref: refs/heads/wt\n")
	mustWrite(t, filepath.Join(ws, ".git"), "gitdir: "+gitDir+"\n")
	return gitDir, common
}

// Protected names the protected paths as the filesystem resolves them (a
// .YAgent on a filesystem that does not fold case is not yagent's; the
// settings of .claude in any case), a protected symlink's target, and for
// a .git file the git directory and common directory it leads to;
// missingProtected the first missing component of each absent one.
func TestProtected(t *testing.T) {
	ws, root := t.TempDir(), t.TempDir()
	gitDir, common := worktree(t, ws, root)
	mustMkdir(t, filepath.Join(ws, ".YAgent"))
	mustMkdir(t, filepath.Join(ws, "src"))
	mustMkdir(t, filepath.Join(ws, ".claude", "agents"))
	mustWrite(t, filepath.Join(ws, ".claude", "Settings.json"), "{}")
	mustWrite(t, filepath.Join(ws, ".claude", "agents", "a.md"), "x")
	mustWrite(t, filepath.Join(ws, ".ENVRC"), "x")
	elsewhere := t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Join(ws, ".yagent")); err != nil {
		t.Fatal(err)
	}
	got := Protected(ws)
	want := []string{filepath.Join(ws, ".git"), gitDir, common, filepath.Join(ws, ".yagent"), elsewhere,
		filepath.Join(ws, ".claude", "Settings.json")}
	slices.Sort(got)
	slices.Sort(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Protected (-want +got):\n%s", diff)
	}
	missing := missingProtected(ws)
	slices.Sort(missing)
	wantMissing := []string{filepath.Join(ws, ".claude", "settings.json"), filepath.Join(ws, ".claude", "settings.local.json"), filepath.Join(ws, ".envrc"), filepath.Join(ws, ".mcp.json")}
	if diff := cmp.Diff(wantMissing, missing); diff != "" {
		t.Errorf("missingProtected (-want +got):\n%s", diff)
	}

	// A .git file that names nothing protects only itself; a workspace
	// without .claude gets .claude as the placeholder.
	ws2 := t.TempDir()
	mustWrite(t, filepath.Join(ws2, ".git"), "gitdir: does/not/exist\n")
	if got := Protected(ws2); !slices.Equal(got, []string{filepath.Join(ws2, ".git")}) {
		t.Errorf("Protected with a dangling .git file = %v", got)
	}
	if got := missingProtected(ws2); !slices.Contains(got, filepath.Join(ws2, ".claude")) || slices.Contains(got, filepath.Join(ws2, ".git")) {
		t.Errorf("missingProtected = %v", got)
	}
}

// Under workspace-write a confined command cannot change .yagent, nor the
// git directory and hooks of a linked worktree even when an extra writable
// root holds them; the rest of that root stays writable.
func TestProtectedYagentAndWorktree(t *testing.T) {
	eachMechanism(t, func(t *testing.T, mech Mechanism) {
		b := newBox(t, mech)
		if err := os.RemoveAll(filepath.Join(b.ws, ".git")); err != nil {
			t.Fatal(err)
		}
		gitDir, common := worktree(t, b.ws, b.extra)
		mustMkdir(t, filepath.Join(b.extra, "main", "src"))
		mustMkdir(t, filepath.Join(b.ws, ".yagent"))
		mustWrite(t, filepath.Join(b.ws, ".yagent", "config.yaml"), "agents: {}\n")
		p := b.policy(t, WorkspaceWrite)
		for _, tt := range []struct {
			script, path string
			wantOK       bool
		}{
			{"echo 'mcp_servers: {}' >> .yagent/config.yaml", "", false},
			{"echo x > .yagent/agents.md", filepath.Join(b.ws, ".yagent", "agents.md"), false},
			{"echo gitdir: /tmp > .git", "", false},
			{"echo evil > " + filepath.Join(common, "hooks", "pre-commit"), filepath.Join(common, "hooks", "pre-commit"), false},
			{"echo '[core] fsmonitor = evil' >> " + filepath.Join(common, "config"), filepath.Join(common, "config"), false},
			{"echo x > " + filepath.Join(gitDir, "HEAD"), "", false},
			{"echo x > " + filepath.Join(b.extra, "main", "src", "file.txt"), filepath.Join(b.extra, "main", "src", "file.txt"), true},
			{"echo x > src/ok.txt", filepath.Join(b.ws, "src", "ok.txt"), true},
		} {
			out, ok := run(t, p, b.ws, tt.script)
			if ok != tt.wantOK {
				t.Errorf("%q: ok = %v; want %v (output %q)", tt.script, ok, tt.wantOK, out)
			}
			if tt.path != "" {
				if _, err := os.Stat(tt.path); (err == nil) != tt.wantOK {
					t.Errorf("%q: %s exists = %v; want %v", tt.script, tt.path, err == nil, tt.wantOK)
				}
			}
		}
		if data, _ := os.ReadFile(filepath.Join(b.ws, ".yagent", "config.yaml")); string(data) != "agents: {}\n" {
			t.Errorf(".yagent/config.yaml changed: %q", data)
		}
		if data, _ := os.ReadFile(filepath.Join(gitDir, "HEAD")); string(data) != "ref: refs/heads/wt\n" {
			t.Errorf("the worktree's HEAD changed: %q", data)
		}
		out, _ := run(t, p, b.ws, "echo x >> .yagent/config.yaml")
		if e := p.Explain(out, b.ws); !containsAll(e, ".yagent/config.yaml is inside "+filepath.Join(b.ws, ".yagent"), "the person edits them") {
			t.Errorf("Explain(%q) = %q; want it to name .yagent", out, e)
		}
	})
}

// Hooks under core.hooksPath (husky's .husky/_) are protected like .git:
// a command cannot write one; in a view it cannot create a missing hooks
// directory either.
func TestHooksPathProtected(t *testing.T) {
	eachMechanism(t, func(t *testing.T, mech Mechanism) {
		b := newBox(t, mech)
		mustWrite(t, filepath.Join(b.ws, ".git", "config"), "[core]\n\thooksPath = .husky/_\n[include]\n\tpath = more.config\n")
		mustWrite(t, filepath.Join(b.ws, ".git", "more.config"), "[core]\n\thooksPath = .githooks\n")
		mustMkdir(t, filepath.Join(b.ws, ".husky", "_"))
		mustWrite(t, filepath.Join(b.ws, ".husky", "pre-commit"), "npm test\n")
		p := b.policy(t, WorkspaceWrite)
		if out, ok := run(t, p, b.ws, "echo evil > .husky/_/pre-commit"); ok {
			t.Errorf("a command wrote a hook under core.hooksPath: %q", out)
		}
		if mech == View {
			if out, ok := run(t, p, b.ws, "mkdir -p .githooks && echo evil > .githooks/pre-commit"); ok {
				t.Errorf("a command created the missing hooks directory: %q", out)
			}
			flushPlaceholders()
			if _, err := os.Stat(filepath.Join(b.ws, ".githooks")); err == nil {
				t.Error(".githooks is left in the workspace")
			}
			if out, ok := run(t, p, b.ws, "echo ok >> .husky/pre-commit"); !ok {
				t.Errorf("the rest of .husky stays writable: %q", out)
			}
		}
		if _, err := os.Stat(filepath.Join(b.ws, ".husky", "_", "pre-commit")); err == nil {
			t.Error("the hook exists")
		}
	})
}

// ProtectedNames, the paths a view keeps from being created, are among
// ProtectedPatterns, the one list the file tools read too.
func TestProtectedNamesArePatterns(t *testing.T) {
	for _, name := range ProtectedNames {
		ok := slices.ContainsFunc(ProtectedPatterns, func(pat string) bool {
			if dir, isDir := strings.CutSuffix(pat, "/**"); isDir {
				return name == dir
			}
			m, _ := filepath.Match(pat, name)
			return m
		})
		if !ok {
			t.Errorf("%s is in ProtectedNames but matches no pattern of ProtectedPatterns", name)
		}
	}
}
