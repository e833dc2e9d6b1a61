package agents

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yagent/yagent/sandbox"
)

// A run's own workspace (a delegation's worktree, issue 28) is where its
// file, search and shell tools work — the same tools the director calls
// without one keep the person's workspace — and the shell's sandbox is
// the tool's policy over the run's workspace: it writes there, never in
// the person's.
func TestRunWorkspace(t *testing.T) {
	person := demoWorkspace(t)
	tree := demoWorkspace(t)
	if err := os.WriteFile(filepath.Join(tree.Dir(), "only-in-tree.txt"), []byte("tree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	box, err := sandbox.New(sandbox.WorkspaceWrite, person.Dir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	box.TempDir = t.TempDir()
	policy := ShellPolicy{Approval: ApproveNever, Allowed: true, Sandbox: box}
	tools := append(FSTools(person, policy), ShellTool(person, policy))
	run := func(ctx context.Context, name string, args any) Result {
		t.Helper()
		raw, _ := json.Marshal(args)
		res, err := findTool(tools, name).Run(ctx, &Call{ID: "t", Name: name, Args: raw})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return res
	}
	sub := WithWorkspace(t.Context(), tree)
	if r := run(sub, "read_file", map[string]any{"path": "only-in-tree.txt"}); r.IsError || !strings.Contains(r.Content, "tree") {
		t.Errorf("read_file in the run's workspace: %q", r.Content)
	}
	if r := run(t.Context(), "read_file", map[string]any{"path": "only-in-tree.txt"}); !r.IsError {
		t.Errorf("the director read the run's file: %q", r.Content)
	}
	if r := run(sub, "glob", map[string]any{"pattern": "*.txt"}); !strings.Contains(r.Content, "only-in-tree.txt") {
		t.Errorf("glob in the run's workspace: %q", r.Content)
	}
	if r := run(sub, "grep", map[string]any{"pattern": "tree"}); !strings.Contains(r.Content, "only-in-tree.txt") {
		t.Errorf("grep in the run's workspace: %q", r.Content)
	}
	if r := run(sub, "list_dir", map[string]any{}); !strings.Contains(r.Content, "only-in-tree.txt") {
		t.Errorf("list_dir in the run's workspace: %q", r.Content)
	}
	if r := run(sub, "write_file", map[string]any{"path": "new.txt", "content": "x\n"}); r.IsError {
		t.Errorf("write_file: %q", r.Content)
	}
	if r := run(sub, "edit_file", map[string]any{"path": "main.go", "old": "func main() {}", "new": "func main() { println() }"}); r.IsError {
		t.Errorf("edit_file: %q", r.Content)
	}
	for _, f := range []string{"new.txt", "main.go"} {
		if data, _ := os.ReadFile(filepath.Join(person.Dir(), f)); f == "new.txt" && data != nil || strings.Contains(string(data), "println") {
			t.Errorf("%s changed in the person's workspace: %q", f, data)
		}
	}
	if r := run(sub, "shell", map[string]any{"command": "pwd; echo ok > from-shell.txt"}); r.IsError || !strings.Contains(r.Content, tree.Dir()) {
		t.Errorf("shell in the run's workspace: %q", r.Content)
	}
	if _, err := os.Stat(filepath.Join(tree.Dir(), "from-shell.txt")); err != nil {
		t.Errorf("the shell did not write in the run's workspace: %v", err)
	}
	if box.Err() == nil && box.InForce() != sandbox.Off {
		target := filepath.Join(person.Dir(), "escaped.txt")
		if r := run(sub, "shell", map[string]any{"command": "echo x > " + target}); !r.IsError {
			t.Errorf("the run's shell wrote the person's workspace: %q", r.Content)
		}
		if _, err := os.Stat(target); err == nil {
			t.Error("the person's workspace was written from the run's sandbox")
		}
	} else {
		t.Log("no OS sandbox here: the read-only half is not checked")
	}
}
