package agents

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yagent/yagent/hooks"
	"github.com/yagent/yagent/llm"
)

// TestToolHooks: the person's Claude Code hooks around tool calls, in a
// real turn — a PreToolUse exit 2 blocks the call (nothing runs, the model
// reads the hook's reason), updatedInput changes what runs, "ask" asks the
// person under approval "never", a PostToolUse hook's additionalContext
// reaches the model, a failing hook is a notice and its call goes ahead.
func TestToolHooks(t *testing.T) {
	srv, client := scenario(t, "loop-hooks")
	w := demoWorkspace(t)
	if err := os.MkdirAll(filepath.Join(w.Dir(), "build"), 0o755); err != nil {
		t.Fatal(err)
	}
	settings := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(settings, []byte(`{"hooks": {
		"PreToolUse": [
			{"matcher": "Bash", "hooks": [{"type": "command", "command": "grep -q 'rm -rf' && { echo 'no rm -rf here: clean with make clean' >&2; exit 2; }; echo '{\"hookSpecificOutput\": {\"permissionDecision\": \"ask\"}}'"}]},
			{"matcher": "Write", "hooks": [{"type": "command", "command": "echo '{\"hookSpecificOutput\": {\"updatedInput\": {\"file_path\": \"b.txt\", \"content\": \"from the hook\\n\"}}}'"}]},
			{"matcher": "Read", "hooks": [{"type": "command", "command": "echo broken >&2; exit 1"}]}],
		"PostToolUse": [
			{"matcher": "Read", "hooks": [{"type": "command", "command": "echo '{\"hookSpecificOutput\": {\"additionalContext\": \"go.mod is generated: do not edit it\"}}'"}]}]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	set, err := hooks.Load([]hooks.File{{Path: settings, Trusted: true}})
	if err != nil {
		t.Fatal(err)
	}
	var asked []string
	policy := ShellPolicy{Approval: ApproveNever, Allowed: true, Ask: askFunc(func(q Question) Answer {
		asked = append(asked, q.Action)
		return Allow
	})}
	var notices []string
	loop := &Loop{Client: client, Hooks: &hooks.Runner{Set: set, Dir: w.Dir()}, HookBase: hooks.Input{SessionID: "s1", Cwd: w.Dir()},
		Events: SinkFunc(func(e Event) {
			if e.Type == EventNotice {
				notices = append(notices, e.Text)
			}
		})}
	out, err := loop.Run(t.Context(), leadAgent(append(FSTools(w, policy), ShellTool(w, policy))), nil, userMsg("go"))
	if err != nil {
		t.Fatal(err)
	}
	srv.AssertDone(t)
	var results []string
	for _, m := range out.Messages {
		if m.Role == llm.RoleTool {
			results = append(results, m.Content)
		}
	}
	if len(results) != 4 {
		t.Fatalf("results = %q; want 4", results)
	}
	if !strings.Contains(results[0], "blocked this call: no rm -rf here: clean with make clean") {
		t.Errorf("the blocked shell call's result = %q", results[0])
	}
	if _, err := os.Stat(filepath.Join(w.Dir(), "build")); err != nil {
		t.Errorf("the blocked command ran: %v", err)
	}
	if data, err := os.ReadFile(filepath.Join(w.Dir(), "b.txt")); err != nil || string(data) != "from the hook\n" {
		t.Errorf("b.txt = %q, %v; want the hook's updated write", data, err)
	}
	if _, err := os.Stat(filepath.Join(w.Dir(), "a.txt")); err == nil {
		t.Error("a.txt was written: the hook's updatedInput was ignored")
	}
	if !strings.Contains(results[2], "module example.com/demo") || !strings.HasSuffix(results[2], "[hook] go.mod is generated: do not edit it") {
		t.Errorf("read_file's result = %q; want the file and the hook's context", results[2])
	}
	if len(asked) != 1 || !strings.Contains(asked[0], "echo asked > asked.txt") {
		t.Errorf("asked %q; want the second command asked about (a hook said ask, approval is never)", asked)
	}
	if _, err := os.Stat(filepath.Join(w.Dir(), "asked.txt")); err != nil {
		t.Errorf("the approved command did not run: %v", err)
	}
	if len(notices) != 1 || !strings.Contains(notices[0], "exit 1: broken") {
		t.Errorf("notices = %q; want the failing Read hook's", notices)
	}
}

// TestHookPermission: a hook's "allow" is the person's yes given in
// advance — a command runs without a question, even where nobody could be
// asked — but a protected path is still asked of the person; "ask" asks
// whatever the approval policy and the approved prefixes say.
func TestHookPermission(t *testing.T) {
	with := func(d string) context.Context { return context.WithValue(t.Context(), hookPermissionKey{}, d) }
	var asked int
	person := askFunc(func(Question) Answer { asked++; return Deny })
	for _, c := range []struct {
		name     string
		decision string
		policy   ShellPolicy
		ok       bool
		asked    int
	}{
		{"allow, nobody to ask", "allow", ShellPolicy{Approval: ApproveOnRequest}, true, 0},
		{"allow, a person there", "allow", ShellPolicy{Approval: ApproveOnRequest, Ask: person}, true, 0},
		{"ask under never", "ask", ShellPolicy{Approval: ApproveNever, Allowed: true, Ask: person}, false, 1},
		{"ask, approved by rule", "ask", ShellPolicy{Approval: ApproveOnRequest, ShellAllow: []string{"go test"}, Ask: person}, false, 1},
		{"ask, nobody to ask", "ask", ShellPolicy{Approval: ApproveNever, Allowed: true}, false, 0},
		{"no decision", "", ShellPolicy{Approval: ApproveNever, Allowed: true, Ask: person}, true, 0},
	} {
		asked = 0
		ok, _, err := c.policy.permitShell(with(c.decision), "run `go test`", []string{"go", "test"}, true)
		if err != nil || ok != c.ok || asked != c.asked {
			t.Errorf("%s: permitShell = %v, %v after %d questions; want %v after %d", c.name, ok, err, asked, c.ok, c.asked)
		}
	}
	asked = 0
	p := ShellPolicy{Approval: ApproveNever, Ask: person}
	if ok, _, _ := p.permitWrite(with("allow"), Question{Action: "write .git/hooks/x", Why: "git runs it"}, ".git/hooks/x"); ok || asked != 1 {
		t.Errorf("a hook's allow wrote a protected path (ok %v, asked %d); want the person asked, and their no kept", ok, asked)
	}
	if ok, _, _ := p.permitWrite(with("ask"), Question{Action: "write a.txt"}, "a.txt"); ok || asked != 2 {
		t.Errorf("a hook's ask did not ask about a plain write (ok %v, asked %d)", ok, asked)
	}
}

// TestToolHooksStop: a failed call runs the PostToolUseFailure hooks (the
// model reads an exit 2's reason), an updatedInput the tool does not take
// is an error result with nothing written, and a hook's "continue": false
// ends the turn with its reason.
func TestToolHooksStop(t *testing.T) {
	srv, client := scenario(t, "loop-hooks-stop")
	w := demoWorkspace(t)
	settings := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(settings, []byte(`{"hooks": {
		"PreToolUse": [
			{"matcher": "Write", "hooks": [{"type": "command", "command": "echo '{\"hookSpecificOutput\": {\"updatedInput\": {\"file_path\": 5}}}'"}]},
			{"matcher": "LS", "hooks": [{"type": "command", "command": "echo '{\"continue\": false, \"stopReason\": \"the budget file says stop\"}'"}]}],
		"PostToolUseFailure": [
			{"matcher": "Read", "hooks": [{"type": "command", "command": "echo 'missing files are listed in MANIFEST' >&2; exit 2"}]}]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	set, err := hooks.Load([]hooks.File{{Path: settings, Trusted: true}})
	if err != nil {
		t.Fatal(err)
	}
	loop := &Loop{Client: client, Hooks: &hooks.Runner{Set: set, Dir: w.Dir()}, HookBase: hooks.Input{Cwd: w.Dir()}}
	out, err := loop.Run(t.Context(), leadAgent(FSTools(w, ShellPolicy{})), nil, userMsg("go"))
	if !errors.Is(err, ErrHookStopped) || !strings.Contains(err.Error(), "the budget file says stop") {
		t.Errorf("Run error = %v; want the hook's stop with its reason", err)
	}
	srv.AssertDone(t)
	var results []string
	for _, m := range out.Messages {
		if m.Role == llm.RoleTool {
			results = append(results, m.Content)
		}
	}
	if len(results) < 2 || !strings.HasSuffix(results[0], "[hook] missing files are listed in MANIFEST") {
		t.Fatalf("results = %q; want the failed read with the hook's reason", results)
	}
	if !strings.Contains(results[1], "changed the arguments of write_file into ones it does not take") {
		t.Errorf("write_file's result = %q; want the hook's bad arguments refused", results[1])
	}
	if _, err := os.Stat(filepath.Join(w.Dir(), "a.txt")); err == nil {
		t.Error("a.txt was written though the hook's arguments were refused")
	}
}
