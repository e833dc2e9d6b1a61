package agents

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProtectedPaths pins that write_file and edit_file never change .git,
// .yagent, .claude/settings*.json, .mcp.json or .envrc — in any case, with
// ignorable characters, nested, or through a symlink — without the
// person's explicit approval: refused with the reason when nobody can be
// asked (whatever --approval and --allow-shell say), asked about with the
// reason and the change otherwise; other dot-files are written as usual.
// In each walk mode.
func TestProtectedPaths(t *testing.T) {
	for _, mode := range walkModes {
		t.Run(mode.name, func(t *testing.T) { testProtectedPaths(t, mode.errno) })
	}
}

func testProtectedPaths(t *testing.T, errno error) {
	w := demoWorkspace(t)
	setWalkMode(t, w, errno)
	for _, f := range []string{".git/config", ".git/hooks/.keep", "sub/.git/config", ".yagent/config.yaml", ".claude/settings.json", ".envrc"} {
		if err := writeTestFile(w, f, "original\n"); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(".git", filepath.Join(w.Dir(), "gitlink")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../.git/hooks", filepath.Join(w.Dir(), "docs", "hooks")); err != nil {
		t.Fatal(err)
	}
	protected := []struct{ tool, path, why string }{
		{"write_file", ".git/hooks/pre-commit", "git's own files"},
		{"edit_file", ".git/config", "core.fsmonitor"},
		{"write_file", ".GIT/config", "git's own files"},
		{"write_file", ".Git/hooks/post-checkout", "git's own files"},
		{"write_file", ".g\u200cit/hooks/pre-push", "git's own files"},
		{"write_file", ".git./hooks/pre-push", "git's own files"},
		{"edit_file", "sub/.git/config", "git's own files"},
		{"write_file", "gitlink/hooks/pre-commit", "git's own files"},
		{"write_file", "docs/hooks/pre-commit", "git's own files"},
		{"write_file", "docs/../.git/info/attributes", "git's own files"},
		{"write_file", ".git", "git's own files"},
		{"edit_file", ".yagent/config.yaml", "yagent's workspace settings"},
		{"write_file", ".yagent/agents/worker.md", "yagent's workspace settings"},
		{"edit_file", ".claude/settings.json", "Claude Code's settings"},
		{"write_file", ".claude/settings.local.json", "Claude Code's settings"},
		{"write_file", ".CLAUDE/Settings.Json", "Claude Code's settings"},
		{"write_file", ".mcp.json", "MCP servers"},
		{"write_file", "sub/.mcp.json", "MCP servers"},
		{"edit_file", ".envrc", "direnv"},
		{"write_file", "sub/.ENVRC", "direnv"},
	}
	args := func(tool, path string) map[string]any {
		if tool == "edit_file" {
			return map[string]any{"path": path, "old": "original", "new": "evil"}
		}
		return map[string]any{"path": path, "content": "evil\n"}
	}
	unchanged := func(t *testing.T, path string) {
		t.Helper()
		if fi, err := os.Stat(filepath.Join(w.Dir(), path)); err == nil && fi.IsDir() {
			return // .git itself: still the directory
		}
		data, err := os.ReadFile(filepath.Join(w.Dir(), path))
		if err == nil && string(data) != "original\n" || err != nil && !os.IsNotExist(err) {
			t.Errorf("%s was changed: %q, %v", path, data, err)
		}
	}
	for _, tt := range protected {
		t.Run(tt.path, func(t *testing.T) {
			for _, policy := range []ShellPolicy{
				{Approval: ApproveNever, Allowed: true},
				{Approval: ApproveOnRequest},
			} {
				r := call(t, FSTools(w, policy), tt.tool, args(tt.tool, tt.path))
				if !r.IsError || !strings.Contains(r.Content, "protected path") || !strings.Contains(r.Content, tt.why) || !strings.Contains(r.Content, "nobody is there to approve") {
					t.Errorf("%s %s with nobody to ask (%s) = %q; want a refusal saying why", tt.tool, tt.path, policy.Approval, r.Content)
				}
				unchanged(t, tt.path)
			}
			var asked Question
			never := ShellPolicy{Approval: ApproveNever, Allowed: true, Ask: askFunc(func(q Question) Answer { asked = q; return Deny })}
			if r := call(t, FSTools(w, never), tt.tool, args(tt.tool, tt.path)); !r.IsError || !strings.Contains(r.Content, "declined") {
				t.Errorf("%s %s declined = %q", tt.tool, tt.path, r.Content)
			}
			if !strings.Contains(asked.Why, tt.why) || !strings.HasSuffix(asked.New, "evil\n") {
				t.Errorf("%s %s: asked %+v; want the reason and the new content, even under --approval never", tt.tool, tt.path, asked)
			}
			unchanged(t, tt.path)
		})
	}

	// Approved, a protected write happens.
	yes := ShellPolicy{Approval: ApproveNever, Ask: askFunc(func(Question) Answer { return Allow })}
	if r := call(t, FSTools(w, yes), "edit_file", args("edit_file", ".git/config")); r.IsError {
		t.Errorf("approved edit of .git/config: %q", r.Content)
	}
	if data, _ := os.ReadFile(filepath.Join(w.Dir(), ".git", "config")); string(data) != "evil\n" {
		t.Errorf(".git/config after an approved edit = %q", data)
	}

	// Neighbours that only look alike are ordinary files.
	quiet := ShellPolicy{Approval: ApproveNever, Ask: askFunc(func(q Question) Answer { t.Errorf("asked about %s", q.Path); return Deny })}
	for _, p := range []string{".gitignore", ".github/workflows/ci.yml", ".gitmodules-notes", ".claude/agents/x.md", ".claude/notes.json", "docs/git/config", "mcp.json", ".envrc.example", "settings.json"} {
		if r := call(t, FSTools(w, quiet), "write_file", args("write_file", p)); r.IsError {
			t.Errorf("write_file %s = %q; want it written", p, r.Content)
		}
	}
}

// A linked worktree's (or submodule's) .git file names its git directory;
// when that directory is inside the workspace, it is protected too.
func TestProtectedGitDirOfGitFile(t *testing.T) {
	w := demoWorkspace(t)
	if err := writeTestFile(w, "meta/wt/HEAD", "ref: refs/heads/x\n"); err != nil {
		t.Fatal(err)
	}
	if err := writeTestFile(w, ".git", "gitdir: meta/wt\n"); err != nil {
		t.Fatal(err)
	}
	r := call(t, FSTools(w, ShellPolicy{Approval: ApproveNever, Allowed: true}), "write_file", map[string]any{"path": "meta/wt/hooks/pre-commit", "content": "evil"})
	if !r.IsError || !strings.Contains(r.Content, "protected path") {
		t.Errorf("write into the git directory a .git file names = %q; want refused", r.Content)
	}
	if _, err := os.Stat(filepath.Join(w.Dir(), "meta", "wt", "hooks", "pre-commit")); err == nil {
		t.Error("the hook was written")
	}
}

// Under untrusted a write is asked about with what it changes: the path,
// the old content and the new one (the command tree shows the diff).
func TestUntrustedWriteShowsChange(t *testing.T) {
	w := demoWorkspace(t)
	var asked []Question
	policy := ShellPolicy{Approval: ApproveUntrusted, Ask: askFunc(func(q Question) Answer { asked = append(asked, q); return Allow })}
	tools := FSTools(w, policy)
	call(t, tools, "edit_file", map[string]any{"path": "main.go", "old": "func main() {}", "new": "func main() { run() }"})
	call(t, tools, "write_file", map[string]any{"path": "docs/new.txt", "content": "fresh\n"})
	if len(asked) != 2 {
		t.Fatalf("asked %d times; want 2", len(asked))
	}
	if q := asked[0]; q.Path != "main.go" || q.Old != "package main\n\nfunc main() {}\n" || q.New != "package main\n\nfunc main() { run() }\n" || q.Created || q.Why != "" {
		t.Errorf("edit question = %+v", q)
	}
	if q := asked[1]; q.Path != "docs/new.txt" || q.Old != "" || q.New != "fresh\n" || !q.Created {
		t.Errorf("write question = %+v", q)
	}
}

// TestProtectedHooksPath: with core.hooksPath set (husky: `git config
// core.hooksPath .husky/_`), the hooks under it are protected like .git —
// in any case, through a link, in a directory not made yet — while the
// rest of .husky is an ordinary directory. In each walk mode.
func TestProtectedHooksPath(t *testing.T) {
	for _, mode := range walkModes {
		t.Run(mode.name, func(t *testing.T) {
			w := demoWorkspace(t)
			setWalkMode(t, w, mode.errno)
			for p, content := range map[string]string{
				".git/config":    "[core]\n\trepositoryformatversion = 0\n\thooksPath = .husky/_\n[core]\n\thooksPath = " + filepath.Join(w.Dir(), "tools", "hooks") + "\n",
				".husky/_/h":     "original\n",
				".husky/_/.keep": "",
			} {
				if err := os.MkdirAll(filepath.Dir(filepath.Join(w.Dir(), p)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(w.Dir(), p), []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Symlink(".husky/_", filepath.Join(w.Dir(), "hk")); err != nil {
				t.Fatal(err)
			}
			headless := FSTools(w, ShellPolicy{Approval: ApproveNever, Allowed: true})
			for _, tc := range []struct{ tool, path string }{
				{"write_file", ".husky/_/pre-commit"},
				{"edit_file", ".husky/_/h"},
				{"write_file", ".HUSKY/_/pre-push"},
				{"write_file", "hk/post-checkout"},
				{"write_file", "tools/hooks/pre-commit"},
			} {
				args := map[string]any{"path": tc.path, "content": "evil\n"}
				if tc.tool == "edit_file" {
					args = map[string]any{"path": tc.path, "old": "original", "new": "evil"}
				}
				r := call(t, headless, tc.tool, args)
				if !r.IsError || !strings.Contains(r.Content, "protected path") || !strings.Contains(r.Content, "core.hooksPath") {
					t.Errorf("%s %s = %q; want refused as a hook of core.hooksPath", tc.tool, tc.path, r.Content)
				}
			}
			after := snapshot(t, filepath.Join(w.Dir(), ".husky"))
			if len(after) != 4 || after["_/h"] != "-rw-r--r-- original\n" {
				t.Errorf(".husky after the refused writes: %v", after)
			}
			if _, err := os.Stat(filepath.Join(w.Dir(), "tools")); err == nil {
				t.Error("tools/ was created for a refused hook")
			}
			for _, p := range []string{".husky/pre-commit", ".husky/install.mjs", "hooks/pre-commit"} {
				if r := call(t, headless, "write_file", map[string]any{"path": p, "content": "npm test\n"}); r.IsError {
					t.Errorf("write_file %s = %q; want written (not under core.hooksPath)", p, r.Content)
				}
			}
		})
	}
}
