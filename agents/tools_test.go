package agents

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// call runs one tool directly, as the loop would after validation.
func call(t *testing.T, tools []*Tool, name string, args any) Result {
	t.Helper()
	tool := findTool(tools, name)
	if tool == nil {
		t.Fatalf("no tool %s", name)
	}
	raw, _ := json.Marshal(args)
	if err := tool.validate(raw); err != nil {
		t.Fatalf("%s(%s) fails its schema: %v", name, raw, err)
	}
	res, err := tool.Run(t.Context(), &Call{ID: "t", Name: name, Args: raw})
	if err != nil {
		t.Fatalf("%s: infrastructure error %v", name, err)
	}
	return res
}

type askFunc func(Question) Answer

func (f askFunc) Ask(_ context.Context, q Question) (Answer, error) { return f(q), nil }

// yesIf answers Allow when ok says so.
func yesIf(ok func(q Question) bool) askFunc {
	return func(q Question) Answer {
		if ok(q) {
			return Allow
		}
		return Deny
	}
}

func TestFileToolsBasics(t *testing.T) {
	w := demoWorkspace(t)
	tools := FSTools(w, ShellPolicy{Approval: ApproveNever})
	if r := call(t, tools, "read_file", map[string]any{"path": "go.mod"}); r.IsError || !strings.Contains(r.Content, "     1\tmodule example.com/demo") {
		t.Errorf("read_file = %+v", r)
	}
	if r := call(t, tools, "read_file", map[string]any{"path": "go.mod", "offset": 2, "limit": 1}); !strings.Contains(r.Content, "[lines 2-2 of 3; read on with offset=3]") {
		t.Errorf("paged read_file = %q", r.Content)
	}
	if r := call(t, tools, "list_dir", map[string]any{}); !strings.Contains(r.Content, "docs/\n") || !strings.Contains(r.Content, "go.mod\t") {
		t.Errorf("list_dir = %q", r.Content)
	}
	if r := call(t, tools, "glob", map[string]any{"pattern": "**/*.txt"}); strings.TrimSpace(r.Content) != "docs/readme.txt" {
		t.Errorf("glob = %q", r.Content)
	}
	if r := call(t, tools, "grep", map[string]any{"pattern": "func main", "glob": "*.go"}); !strings.Contains(r.Content, "main.go:3: func main() {}") {
		t.Errorf("grep = %q", r.Content)
	}
	r := call(t, tools, "write_file", map[string]any{"path": "out/new.txt", "content": "a\nb\n"})
	if r.IsError || len(r.Artifacts) != 1 || r.Artifacts[0] != "out/new.txt" {
		t.Errorf("write_file = %+v", r)
	}
	if r := call(t, tools, "edit_file", map[string]any{"path": "out/new.txt", "old": "b", "new": "c"}); r.IsError {
		t.Errorf("edit_file = %+v", r)
	}
	if data, _ := os.ReadFile(filepath.Join(w.Dir(), "out", "new.txt")); string(data) != "a\nc\n" {
		t.Errorf("file after edit = %q", data)
	}
	if r := call(t, tools, "edit_file", map[string]any{"path": "go.mod", "old": "o", "new": "0"}); !r.IsError || !strings.Contains(r.Content, "occurs") {
		t.Errorf("edit_file with a non-unique snippet = %q", r.Content)
	}
	entries, _ := os.ReadDir(filepath.Join(w.Dir(), "out"))
	if len(entries) != 1 {
		t.Errorf("write left %d entries (temp files?)", len(entries))
	}
}

// TestPathEscapesRefused pins workspace confinement: "..", absolute paths
// outside and symlinks pointing outside are refused by every file tool.
func TestPathEscapesRefused(t *testing.T) {
	w := demoWorkspace(t)
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.txt")
	if err := os.WriteFile(secret, []byte("TOP SECRET"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(w.Dir(), "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(w.Dir(), "secret-link.txt")); err != nil {
		t.Fatal(err)
	}
	tools := FSTools(w, ShellPolicy{Approval: ApproveNever})
	paths := []string{"../" + filepath.Base(outside) + "/secret.txt", secret, "link/secret.txt", "secret-link.txt", "docs/../../x"}
	for _, p := range paths {
		for _, tc := range []struct {
			tool string
			args map[string]any
		}{
			{"read_file", map[string]any{"path": p}},
			{"write_file", map[string]any{"path": p, "content": "pwned"}},
			{"edit_file", map[string]any{"path": p, "old": "TOP", "new": "pwned"}},
			{"list_dir", map[string]any{"path": filepath.Dir(p)}},
		} {
			r := call(t, tools, tc.tool, tc.args)
			if tc.tool == "list_dir" && (filepath.Dir(p) == "." || filepath.Dir(p) == "docs/..") {
				continue
			}
			if !r.IsError || strings.Contains(r.Content, "TOP SECRET") || !strings.Contains(r.Content, "outside the workspace") && !strings.Contains(r.Content, "does not exist") {
				t.Errorf("%s(%s) = %q; want a refusal naming the workspace", tc.tool, p, r.Content)
			}
		}
	}
	if data, _ := os.ReadFile(secret); string(data) != "TOP SECRET" {
		t.Fatalf("a file outside the workspace was changed: %q", data)
	}
	if r := call(t, tools, "grep", map[string]any{"pattern": "TOP SECRET"}); strings.Contains(r.Content, "secret") && !strings.HasPrefix(r.Content, "no matches") {
		t.Errorf("grep followed a symlink out of the workspace: %q", r.Content)
	}
	if r := call(t, tools, "glob", map[string]any{"pattern": "../*"}); !r.IsError {
		t.Errorf("glob ../* = %q", r.Content)
	}
	sh := ShellTool(w, ShellPolicy{Approval: ApproveNever, Allowed: true})
	for _, cwd := range []string{"..", outside, "link"} {
		if r := call(t, []*Tool{sh}, "shell", map[string]any{"command": "pwd", "cwd": cwd}); !r.IsError || !strings.Contains(r.Content, "outside the workspace") {
			t.Errorf("shell cwd %s = %q; want refused", cwd, r.Content)
		}
	}
}

func TestShell(t *testing.T) {
	w := demoWorkspace(t)
	allowed := ShellPolicy{Approval: ApproveNever, Allowed: true}
	tools := []*Tool{ShellTool(w, allowed)}
	if r := call(t, tools, "shell", map[string]any{"command": "echo hi; exit 3"}); !r.IsError || !strings.HasPrefix(r.Content, "exit 3") || !strings.Contains(r.Content, "hi") {
		t.Errorf("shell exit 3 = %q", r.Content)
	}
	if r := call(t, tools, "shell", map[string]any{"argv": []string{"ls"}, "cwd": "docs"}); r.IsError || !strings.Contains(r.Content, "readme.txt") {
		t.Errorf("shell argv in docs = %q", r.Content)
	}
	if r := call(t, tools, "shell", map[string]any{"command": "sleep 5", "timeout_sec": 1}); !r.IsError || !strings.Contains(r.Content, "timed out") {
		t.Errorf("shell timeout = %q", r.Content)
	}
	if r := call(t, tools, "shell", map[string]any{"command": "head -c 200000 /dev/zero | tr '\\0' x"}); !strings.Contains(r.Content, "bytes of output cut") || len(r.Content) > shellOutputCap+200 {
		t.Errorf("shell output not capped: %d bytes", len(r.Content))
	}
	if r := call(t, tools, "shell", map[string]any{"command": "x", "argv": []string{"y"}}); !r.IsError {
		t.Errorf("command and argv together accepted")
	}
}

func TestShellPolicy(t *testing.T) {
	w := demoWorkspace(t)
	tests := []struct {
		name    string
		policy  ShellPolicy
		wantRun bool
		wantMsg string
	}{
		{"headless without --allow-shell", ShellPolicy{Approval: ApproveOnRequest}, false, "--allow-shell"},
		{"headless with --allow-shell", ShellPolicy{Approval: ApproveOnRequest, Allowed: true}, true, ""},
		{"declined", ShellPolicy{Approval: ApproveOnRequest, Allowed: true, Ask: yesIf(func(Question) bool { return false })}, false, "declined"},
		{"approved", ShellPolicy{Approval: ApproveOnRequest, Allowed: true, Ask: yesIf(func(q Question) bool { return strings.Contains(q.Action, "touch ran") })}, true, ""},
		{"never asks", ShellPolicy{Approval: ApproveNever, Allowed: true, Ask: yesIf(func(Question) bool { t.Error("asked"); return false })}, true, ""},
		{"asked without --allow-shell", ShellPolicy{Approval: ApproveOnRequest, Ask: yesIf(func(Question) bool { return true })}, true, ""},
		{"untrusted, nobody to ask, --allow-shell", ShellPolicy{Approval: ApproveUntrusted, Allowed: true}, false, "nobody is there"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.Remove(filepath.Join(w.Dir(), "ran"))
			r := call(t, []*Tool{ShellTool(w, tt.policy)}, "shell", map[string]any{"command": "touch ran"})
			_, err := os.Stat(filepath.Join(w.Dir(), "ran"))
			if ran := err == nil; ran != tt.wantRun {
				t.Errorf("ran = %v; want %v (%q)", ran, tt.wantRun, r.Content)
			}
			if tt.wantMsg != "" && !strings.Contains(r.Content, tt.wantMsg) {
				t.Errorf("result %q lacks %q", r.Content, tt.wantMsg)
			}
		})
	}
	// untrusted: writes are asked for too.
	asked := ""
	tools := FSTools(w, ShellPolicy{Approval: ApproveUntrusted, Ask: yesIf(func(q Question) bool { asked = q.Action; return false })})
	if r := call(t, tools, "write_file", map[string]any{"path": "x.txt", "content": "x"}); !r.IsError || asked != "write_file x.txt" {
		t.Errorf("untrusted write = %q, asked %q", r.Content, asked)
	}
	if _, err := os.Stat(filepath.Join(w.Dir(), "x.txt")); err == nil {
		t.Error("a declined write happened")
	}
}

func TestGlobRegexp(t *testing.T) {
	tests := []struct {
		glob, path string
		want       bool
	}{
		{"**/*.go", "main.go", true}, {"**/*.go", "a/b/c.go", true}, {"*.go", "a/b.go", false},
		{"cmd/*/main.go", "cmd/yagent/main.go", true}, {"cmd/**", "cmd/a/b", true}, {"a?c", "abc", true}, {"[ab].txt", "b.txt", true},
	}
	for _, tt := range tests {
		re, err := globRegexp(tt.glob)
		if err != nil {
			t.Fatal(err)
		}
		if got := re.MatchString(tt.path); got != tt.want {
			t.Errorf("glob %q on %q = %v; want %v", tt.glob, tt.path, got, tt.want)
		}
	}
}
