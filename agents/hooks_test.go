package agents

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
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

// loadHooks loads one trusted settings file holding hooksJSON.
func loadHooks(t *testing.T, dir, hooksJSON string) *hooks.Runner {
	t.Helper()
	settings := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(settings, []byte(`{"hooks": `+hooksJSON+`}`), 0o644); err != nil {
		t.Fatal(err)
	}
	set, err := hooks.Load([]hooks.File{{Path: settings, Trusted: true}})
	if err != nil {
		t.Fatal(err)
	}
	return &hooks.Runner{Set: set, Dir: dir}
}

// noticesTo collects the notices of a run.
func noticesTo(notices *[]string) Sink {
	return SinkFunc(func(e Event) {
		if e.Type == EventNotice {
			*notices = append(*notices, e.Text)
		}
	})
}

// TestStopHook: Claude Code's Stop contract in a real turn — a block
// (exit 2) forces another round with the reason as the model's next
// message, the forced round's input says stop_hook_active, and a hook
// that checks it lets the turn end; a hook that always blocks forces 8
// rounds at most, then the turn ends with a warning; "continue": false
// ends the turn even beside a block.
func TestStopHook(t *testing.T) {
	t.Run("forced round", func(t *testing.T) {
		srv, client := scenario(t, "loop-hooks-stop-round")
		dir := t.TempDir()
		h := loadHooks(t, dir, `{"Stop": [{"hooks": [{"type": "command", "command": "in=$(cat); echo \"$in\" >> stdin.log; case \"$in\" in *'\"stop_hook_active\":true'*) exit 0;; esac; echo 'run the tests first' >&2; exit 2"}]}]}`)
		loop := &Loop{Client: client, Hooks: h, HookBase: hooks.Input{SessionID: "s1", Cwd: dir}}
		out, err := loop.Run(t.Context(), leadAgent(nil), nil, userMsg("fix it"))
		if err != nil {
			t.Fatal(err)
		}
		srv.AssertDone(t)
		if out.Final != "Ran the tests: they pass." || out.Reason != ReasonAnswer {
			t.Errorf("Final, Reason = %q, %s; want the forced round's answer", out.Final, out.Reason)
		}
		log, _ := os.ReadFile(filepath.Join(dir, "stdin.log"))
		lines := strings.Split(strings.TrimSpace(string(log)), "\n")
		if len(lines) != 2 || !strings.Contains(lines[0], `"stop_hook_active":false,"last_assistant_message":"Done."`) || !strings.Contains(lines[1], `"stop_hook_active":true`) {
			t.Errorf("the Stop hook read:\n%s\nwant stop_hook_active false, then true", log)
		}
	})
	t.Run("bound", func(t *testing.T) {
		_, client := scenario(t, "loop-hooks-stop-bound")
		var notices []string
		h := loadHooks(t, t.TempDir(), `{"Stop": [{"hooks": [{"type": "command", "command": "echo '{\"decision\": \"block\", \"reason\": \"never done\"}'"}]}]}`)
		loop := &Loop{Client: client, Hooks: h, Events: noticesTo(&notices)}
		out, err := loop.Run(t.Context(), leadAgent(nil), nil, userMsg("go"))
		if err != nil {
			t.Fatal(err)
		}
		if out.Steps != 1+maxStopBlocks || maxStopBlocks != 8 {
			t.Errorf("the turn took %d model calls; want 1 + 8 forced", out.Steps)
		}
		if last := notices[len(notices)-1]; !strings.Contains(last, "blocked the end of the turn 8 times in a row; it ends now (their last reason: never done)") {
			t.Errorf("last notice %q; want the bound's warning", last)
		}
	})
	t.Run("continue false", func(t *testing.T) {
		_, client := scenario(t, "loop-hooks-stop-bound")
		var notices []string
		h := loadHooks(t, t.TempDir(), `{"Stop": [{"hooks": [{"type": "command", "command": "echo '{\"continue\": false, \"stopReason\": \"the budget file says stop\", \"decision\": \"block\", \"reason\": \"go on\"}'"}]}]}`)
		loop := &Loop{Client: client, Hooks: h, Events: noticesTo(&notices)}
		out, err := loop.Run(t.Context(), leadAgent(nil), nil, userMsg("go"))
		if err != nil || out.Steps != 1 || out.Reason != ReasonAnswer {
			t.Errorf("Run = %d steps, %s, %v; want the turn ended after one answer", out.Steps, out.Reason, err)
		}
		if !slices.ContainsFunc(notices, func(n string) bool { return strings.Contains(n, "the budget file says stop") }) {
			t.Errorf("notices %q; want the hook's stopReason", notices)
		}
	})
}

// TestSubagentHooks: around a delegation — SubagentStart's
// additionalContext joins the sub-agent's input; a SubagentStop block
// after its agent_exit sends it back with the reason (once: the hook
// checks stop_hook_active) and the note is its second hand-over;
// NoteLanded and DelegationFinished read the note's ref and status; a
// notify-only hook's failure is a notice.
func TestSubagentHooks(t *testing.T) {
	r, store := newRunner(t, "subagent-hooks")
	dir := r.Workspace.Dir()
	var notices []string
	r.Events = noticesTo(&notices)
	r.Hooks = loadHooks(t, dir, `{
		"SubagentStart": [{"matcher": "worker", "hooks": [{"type": "command", "command": "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"SubagentStart\", \"additionalContext\": \"use pnpm, never npm\"}}'"}]}],
		"SubagentStop": [{"matcher": "worker", "hooks": [{"type": "command", "command": "case \"$(cat)\" in *'\"stop_hook_active\":true'*) exit 0;; esac; echo '{\"decision\": \"block\", \"reason\": \"cite the files\"}'"}]}],
		"NoteLanded": [{"hooks": [{"type": "command", "command": "cat > landed.json"}]}],
		"DelegationFinished": [{"hooks": [{"type": "command", "command": "cat > finished.json; echo 'pager down' >&2; exit 1"}]}]}`)
	res, err := r.Run(t.Context(), Delegation{CallID: "call_7", Agent: "worker", Task: "map it", BoardID: "b", Depth: 1})
	if err != nil {
		t.Fatal(err)
	}
	n := onlyNote(t, store, "b")
	if n.Handoff.Conclusion != "Cited main.go." || res.Ref != n.Meta.Ref {
		t.Errorf("note %s concludes %q; want the second hand-over's", res.Ref, n.Handoff.Conclusion)
	}
	for _, f := range []string{"landed.json", "finished.json"} {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil || !strings.Contains(string(data), `"note_ref":"`+res.Ref+`","status":"ok"`) || !strings.Contains(string(data), `"agent_id":"call_7","agent_type":"worker"`) {
			t.Errorf("%s = %s (%v); want the note's ref and status, the delegation", f, data, err)
		}
	}
	if !slices.ContainsFunc(notices, func(n string) bool {
		return strings.Contains(n, "DelegationFinished hook") && strings.Contains(n, "exit 1: pager down")
	}) {
		t.Errorf("notices %q; want the failing DelegationFinished hook's", notices)
	}
}

// TestPermissionRequestHook: where a question would be asked, a
// PermissionRequest hook's allow runs the command unasked, its exit 2
// refuses it with the reason for the model, and where it decides nothing
// the Notification hooks are told (permission_prompt) and the person is
// asked.
func TestPermissionRequestHook(t *testing.T) {
	srv, client := scenario(t, "loop-hooks-permission")
	w := demoWorkspace(t)
	var asked []string
	policy := ShellPolicy{Approval: ApproveUntrusted, Allowed: true, Ask: HookAsker(askFunc(func(q Question) Answer {
		asked = append(asked, q.Action)
		return Allow
	}))}
	h := loadHooks(t, w.Dir(), `{
		"PermissionRequest": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "case \"$(cat)\" in *a.txt*) echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PermissionRequest\", \"decision\": {\"behavior\": \"allow\"}}}';; *push*) echo 'pushes go through CI' >&2; exit 2;; esac"}]}],
		"Notification": [{"matcher": "permission_prompt", "hooks": [{"type": "command", "command": "cat >> notified.json"}]}]}`)
	loop := &Loop{Client: client, Hooks: h, HookBase: hooks.Input{Cwd: w.Dir()}}
	out, err := loop.Run(t.Context(), leadAgent([]*Tool{ShellTool(w, policy)}), nil, userMsg("go"))
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
	if _, err := os.Stat(filepath.Join(w.Dir(), "a.txt")); err != nil {
		t.Errorf("the command the hook allowed did not run: %v", err)
	}
	if len(results) != 3 || !strings.Contains(results[1], "[hook] a PermissionRequest hook of the person's denied it: pushes go through CI") {
		t.Errorf("results %q; want git push refused with the hook's reason", results)
	}
	if len(asked) != 1 || !strings.Contains(asked[0], "echo c > c.txt") {
		t.Errorf("asked %q; want only the command the hook left to the person", asked)
	}
	data, _ := os.ReadFile(filepath.Join(w.Dir(), "notified.json"))
	if !strings.Contains(string(data), `"notification_type":"permission_prompt"`) || !strings.Contains(string(data), "echo c > c.txt") || strings.Contains(string(data), "push") {
		t.Errorf("the Notification hook read %s; want one permission_prompt, for the asked command", data)
	}
}

// TestPermissionRequestHookProtected: a PermissionRequest hook never
// answers for a protected path: the person is asked whatever it says.
func TestPermissionRequestHookProtected(t *testing.T) {
	asked := 0
	ask := HookAsker(askFunc(func(Question) Answer { asked++; return Deny }))
	h := loadHooks(t, t.TempDir(), `{"PermissionRequest": [{"hooks": [{"type": "command", "command": "echo '{\"hookSpecificOutput\": {\"decision\": {\"behavior\": \"allow\"}}}'"}]}]}`)
	l := &Loop{Hooks: h}
	ctx, _ := l.withHookCall(t.Context(), &Agent{Name: "lead"}, &Call{Name: "write_file", Args: []byte(`{"path":".git/hooks/pre-commit"}`)})
	if a, err := ask.Ask(ctx, Question{Action: "write .git/hooks/pre-commit", Why: "git runs it"}); err != nil || a != Deny || asked != 1 {
		t.Errorf("a protected write: answer %v, %v after %d questions; want the person's no", a, err, asked)
	}
	if a, _ := ask.Ask(ctx, Question{Action: "write a.txt"}); a != Allow || asked != 1 {
		t.Errorf("a plain write: answer %v after %d questions; want the hook's allow, unasked", a, asked)
	}
}

// TestWithoutHookCall: a question asked under WithoutHookCall (a budget
// raise while a delegation runs) goes to the person, whatever the
// PermissionRequest hooks of the running call would say.
func TestWithoutHookCall(t *testing.T) {
	asked := 0
	ask := HookAsker(askFunc(func(Question) Answer { asked++; return Deny }))
	h := loadHooks(t, t.TempDir(), `{"PermissionRequest": [{"hooks": [{"type": "command", "command": "echo '{\"hookSpecificOutput\": {\"decision\": {\"behavior\": \"allow\"}}}'"}]}]}`)
	ctx, _ := (&Loop{Hooks: h}).withHookCall(t.Context(), &Agent{Name: "director"}, &Call{Name: "delegate"})
	if a, err := ask.Ask(WithoutHookCall(ctx), Question{Action: "raise the budget to $2"}); err != nil || a != Deny || asked != 1 {
		t.Errorf("answer %v, %v after %d questions; want the person's no", a, err, asked)
	}
}
