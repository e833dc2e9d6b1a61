package agents

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yagent/yagent/sandbox"
)

// The shell tool runs commands through the sandbox: a write inside the
// workspace works, one outside is refused and the result says which path,
// why and how to allow it; where commands can have neither a view nor
// Landlock, nothing runs and nobody is asked.
func TestShellSandboxed(t *testing.T) {
	w := demoWorkspace(t)
	if err := os.Mkdir(filepath.Join(w.Dir(), ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	box, err := sandbox.New(sandbox.WorkspaceWrite, w.Dir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	box.TempDir = t.TempDir()
	// Outside the system temp dir, which a view replaces by a private one.
	outsideDir, err := os.MkdirTemp("/var/tmp", "yagent-agents-test-")
	if err != nil {
		t.Skip(err)
	}
	defer os.RemoveAll(outsideDir)
	outside := filepath.Join(outsideDir, "escaped")
	policy := ShellPolicy{Approval: ApproveNever, Allowed: true, Sandbox: box}
	if box.Err() == nil && box.InForce() != sandbox.Off {
		tools := []*Tool{ShellTool(w, policy)}
		if r := call(t, tools, "shell", map[string]any{"command": "echo ok > docs/inside.txt"}); r.IsError {
			t.Errorf("write inside the workspace refused: %q", r.Content)
		}
		r := call(t, tools, "shell", map[string]any{"command": "echo x > " + outside})
		if !r.IsError || !strings.Contains(r.Content, outside+" is outside the writable roots") ||
			!strings.Contains(r.Content, "agents.sandbox_writable") || !strings.Contains(r.Content, "--sandbox off") {
			t.Errorf("write outside: %q; want a refusal naming the path, agents.sandbox_writable and --sandbox off", r.Content)
		}
		if _, err := os.Stat(outside); err == nil {
			t.Errorf("%s was written", outside)
		}
	}

	box.ABI = func() int { return 0 }                              // a kernel without Landlock …
	box.Namespaces = func() error { return errors.New("refused") } // … nor user namespaces
	policy.Approval, policy.Ask = ApproveOnRequest, yesIf(func(Question) bool { t.Error("asked"); return true })
	r := call(t, []*Tool{ShellTool(w, policy)}, "shell", map[string]any{"command": "echo x > ran.txt"})
	if box.InForce() == sandbox.Off {
		return // no OS sandbox on this system: the command runs
	}
	if !r.IsError || !strings.Contains(r.Content, "--sandbox off") {
		t.Errorf("no Landlock: %q; want a refusal naming --sandbox off", r.Content)
	}
	if _, err := os.Stat(filepath.Join(w.Dir(), "ran.txt")); err == nil {
		t.Error("the command ran without its sandbox")
	}
}
