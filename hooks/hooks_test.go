package hooks

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// write puts a settings file with the given hooks object in dir.
func write(t *testing.T, dir, name, hooks string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(`{"model": "x", "hooks": `+hooks+`}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// runner loads one trusted settings file of hooks over a temporary
// project directory.
func runner(t *testing.T, hooks string) *Runner {
	t.Helper()
	dir := t.TempDir()
	set, err := Load([]File{{Path: write(t, dir, ".claude/settings.json", hooks), Trusted: true}})
	if err != nil {
		t.Fatal(err)
	}
	return &Runner{Set: set, Dir: dir}
}

// TestLoad: the hooks of every file, in order; an untrusted file's, an
// unsupported handler type's and an unknown event's listed as skipped,
// with why; a broken file is an error naming it and its line, and the
// files after it still load; a missing file is nothing.
func TestLoad(t *testing.T) {
	dir := t.TempDir()
	person := write(t, dir, "home/settings.json", `{"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh", "timeout": 5}]}],
		"Stop": [{"hooks": [{"type": "prompt", "prompt": "done?"}, {"type": "command", "command": "check.sh"}]}],
		"TeammateIdle": [{"hooks": [{"type": "command", "command": "x"}]}]}`)
	broken := filepath.Join(dir, "broken.json")
	if err := os.WriteFile(broken, []byte("{\n  \"hooks\": {\n    \"Stop\": [,]\n}"), 0o644); err != nil {
		t.Fatal(err)
	}
	untrusted := write(t, dir, "ws/.claude/settings.json", `{"SessionStart": [{"hooks": [{"type": "command", "command": "curl evil"}]}]}`)
	local := write(t, dir, "ws/.claude/settings.local.json", `{"PostToolUse": [{"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "fmt.sh"}]}]}`)

	set, err := Load([]File{{Path: person, Trusted: true}, {Path: broken, Trusted: true}, {Path: filepath.Join(dir, "missing.json"), Trusted: true},
		{Path: untrusted}, {Path: local, Trusted: true}})
	if err == nil || !strings.Contains(err.Error(), broken) || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("Load error = %v; want one naming %s and its line 3", err, broken)
	}
	var got []string
	for _, h := range set.All() {
		got = append(got, string(h.Event)+" "+h.Matcher+" "+h.Command+" "+h.Timeout.String()+" "+filepath.Base(h.Source))
	}
	want := []string{"PreToolUse Bash guard.sh 5s settings.json", "PostToolUse Edit|Write fmt.sh 1m0s settings.local.json", "Stop  check.sh 1m0s settings.json"}
	if !slices.Equal(got, want) {
		t.Errorf("loaded:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var why []string
	for _, s := range set.Skipped() {
		why = append(why, s.Event+": "+s.What+": "+s.Why)
	}
	for _, w := range []string{`Stop: a "prompt" hook: only command hooks are supported yet`, "TeammateIdle: every hook: yagent raises no such event", "SessionStart: curl evil: the workspace is not trusted (yagent trust)"} {
		if !slices.Contains(why, w) {
			t.Errorf("skipped %q; want %q among them", why, w)
		}
	}

	if _, err := Load([]File{{Path: write(t, dir, "m.json", `{"PreToolUse": [{"matcher": "Bash(", "hooks": [{"type": "command", "command": "x"}]}]}`), Trusted: true}}); err == nil || !strings.Contains(err.Error(), `matcher "Bash("`) {
		t.Errorf("a matcher that does not compile: %v; want an error naming it", err)
	}
	if _, err := Load([]File{{Path: write(t, dir, "e.json", `{"Stop": [{"hooks": [{"type": "command", "command": " "}]}]}`), Trusted: true}}); err == nil || !strings.Contains(err.Error(), "no command") {
		t.Errorf("an empty command: %v; want an error", err)
	}
}

// TestMatching: a matcher written for Claude Code's tools matches yagent's
// (Bash is shell; Edit|Write both file writers; mcp__s__t the MCP tool),
// whole names only; "" and "*" match every tool; identical commands run
// once; events without tools ignore the matcher.
func TestMatching(t *testing.T) {
	r := runner(t, `{
		"PreToolUse": [
			{"matcher": "Bash", "hooks": [{"type": "command", "command": "a"}]},
			{"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "b"}]},
			{"matcher": "mcp__github__.*", "hooks": [{"type": "command", "command": "c"}]},
			{"matcher": "read", "hooks": [{"type": "command", "command": "d"}]},
			{"matcher": "*", "hooks": [{"type": "command", "command": "e"}]},
			{"matcher": "shell", "hooks": [{"type": "command", "command": "a"}]}],
		"Stop": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "f"}]}]}`)
	for _, c := range []struct {
		ev   Event
		tool string
		want string
	}{
		{PreToolUse, "shell", "a e"},
		{PreToolUse, "edit_file", "b e"},
		{PreToolUse, "write_file", "b e"},
		{PreToolUse, "read_file", "e"},
		{PreToolUse, "mcp_github__create_issue", "c e"},
		{PostToolUse, "shell", ""},
		{Stop, "", "f"},
	} {
		var got []string
		for _, h := range r.Set.matching(c.ev, c.tool) {
			got = append(got, h.Command)
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("%s %s runs %q; want %q", c.ev, c.tool, got, c.want)
		}
	}
}

// TestPreToolUse: Claude Code's contract for a tool call — exit 2 blocks
// it with stderr as the reason; any other failure is a notice and the call
// goes ahead; a JSON deny beats an ask beats an allow; updatedInput is
// passed on; the hook reads the call in Claude Code's names on stdin, in
// the project directory, with $CLAUDE_PROJECT_DIR set.
func TestPreToolUse(t *testing.T) {
	in := Input{SessionID: "s1", Event: PreToolUse, ToolName: "edit_file", ToolUseID: "call_1"}
	for _, c := range []struct {
		name, hooks string
		want        Outcome
	}{
		{"exit 2 blocks", `[{"type": "command", "command": "echo 'no edits to vendor/' >&2; exit 2"}]`,
			Outcome{Block: true, Permission: "deny", Reason: "no edits to vendor/"}},
		{"exit 1 is a notice", `[{"type": "command", "command": "echo oops >&2; exit 1"}]`,
			Outcome{Notices: []string{`PreToolUse hook "echo oops >&2; exit 1" (settings.json): exit 1: oops`}}},
		{"deny beats allow", `[{"type": "command", "command": "echo '{\"hookSpecificOutput\": {\"permissionDecision\": \"allow\"}}'"},
			{"type": "command", "command": "echo '{\"hookSpecificOutput\": {\"permissionDecision\": \"deny\", \"permissionDecisionReason\": \"frozen\"}}'"}]`,
			Outcome{Block: true, Permission: "deny", Reason: "frozen"}},
		{"ask", `[{"type": "command", "command": "echo '{\"hookSpecificOutput\": {\"permissionDecision\": \"ask\", \"permissionDecisionReason\": \"check it\"}}'"}]`,
			Outcome{Permission: "ask", Reason: "check it"}},
		{"older block", `[{"type": "command", "command": "echo '{\"decision\": \"block\", \"reason\": \"old style\"}'"}]`,
			Outcome{Block: true, Permission: "deny", Reason: "old style"}},
		{"updated input and context", `[{"type": "command", "command": "echo '{\"hookSpecificOutput\": {\"updatedInput\": {\"file_path\": \"b.go\"}, \"additionalContext\": \"gofmt runs after\"}}'"}]`,
			Outcome{UpdatedInput: json.RawMessage(`{"file_path": "b.go"}`), Context: []string{"gofmt runs after"}}},
		{"broken JSON is a notice", `[{"type": "command", "command": "echo '{not json'"}]`,
			Outcome{Notices: []string{`PreToolUse hook "echo '{not json'" (settings.json): its JSON output does not parse: invalid character 'n' looking for beginning of object key string`}}},
		{"continue false", `[{"type": "command", "command": "echo '{\"continue\": false, \"stopReason\": \"quota\", \"systemMessage\": \"hook says stop\"}'"}]`,
			Outcome{Stop: true, StopReason: "quota", Messages: []string{"hook says stop"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := runner(t, `{"PreToolUse": [{"matcher": "Edit", "hooks": `+c.hooks+`}]}`)
			call := in
			call.ToolInput = ToolInput("edit_file", json.RawMessage(`{"path": "a.go", "old": "x", "new": "y"}`), r.Dir)
			got, err := r.Run(t.Context(), call)
			if err != nil {
				t.Fatal(err)
			}
			for i, n := range got.Notices {
				got.Notices[i] = strings.ReplaceAll(n, r.Set.All()[0].Source, "settings.json")
			}
			if g, w := mustJSON(t, got), mustJSON(t, c.want); g != w {
				t.Errorf("Outcome = %s\nwant      %s", g, w)
			}
		})
	}

	r := runner(t, `{"PreToolUse": [{"hooks": [{"type": "command", "command": "cat > \"$CLAUDE_PROJECT_DIR/in.json\"; pwd > where"}]}]}`)
	call := in
	call.ToolInput = ToolInput("edit_file", json.RawMessage(`{"path": "a.go", "old": "x", "new": "y"}`), r.Dir)
	if _, err := r.Run(t.Context(), call); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(r.Dir, "in.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatalf("stdin %q: %v", data, err)
	}
	ti, _ := got["tool_input"].(map[string]any)
	if got["hook_event_name"] != "PreToolUse" || got["tool_name"] != "edit_file" || got["session_id"] != "s1" || got["cwd"] != r.Dir ||
		ti["file_path"] != filepath.Join(r.Dir, "a.go") || ti["old_string"] != "x" || ti["new_string"] != "y" {
		t.Errorf("stdin = %s", data)
	}
	if where, _ := os.ReadFile(filepath.Join(r.Dir, "where")); strings.TrimSpace(string(where)) != r.Dir {
		t.Errorf("the hook ran in %q; want %q", where, r.Dir)
	}
}

// TestEvents: the other events' contracts — UserPromptSubmit's plain
// stdout is context and exit 2 or a block erases the prompt; Stop's and
// SubagentStop's block makes the agent go on, with the reason, and
// "continue": false ends it whatever the block; SubagentStart's and
// SessionStart's additionalContext is context; PermissionRequest's
// behavior decides; exit 2 where nothing can be blocked is a message for
// the person; a failure of yagent's notify-only events is a notice.
func TestEvents(t *testing.T) {
	for _, c := range []struct {
		ev      Event
		command string
		want    Outcome
	}{
		{UserPromptSubmit, "echo 'branch: main'", Outcome{Context: []string{"branch: main"}}},
		{UserPromptSubmit, "echo 'no secrets in prompts' >&2; exit 2", Outcome{Block: true, Reason: "no secrets in prompts"}},
		{Stop, `echo '{"decision": "block", "reason": "tests still fail"}'`, Outcome{Block: true, Reason: "tests still fail"}},
		{Stop, "echo 'run the tests' >&2; exit 2", Outcome{Block: true, Reason: "run the tests"}},
		{SessionStart, "echo 'read TODO.md first'", Outcome{Context: []string{"read TODO.md first"}}},
		{SessionEnd, "echo 'bye' >&2; exit 2", Outcome{Messages: []string{"bye"}}},
		{PostToolUse, "echo 'lint failed' >&2; exit 2", Outcome{Block: true, Reason: "lint failed"}},
		{PostToolUse, "echo 'plain text is not for the model'", Outcome{}},
		{NoteLanded, `echo '{"systemMessage": "note seen"}'`, Outcome{Messages: []string{"note seen"}}},
		{UserPromptSubmit, `echo '{"decision": "block", "reason": "ask the on-call first"}'`, Outcome{Block: true, Reason: "ask the on-call first"}},
		{UserPromptSubmit, `echo '{"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "ticket ABC-1"}}'`, Outcome{Context: []string{"ticket ABC-1"}}},
		{Stop, `echo '{"continue": false, "stopReason": "enough", "decision": "block", "reason": "go on"}'`, Outcome{Block: true, Reason: "go on", Stop: true, StopReason: "enough"}},
		{Stop, "echo 'plain text changes nothing'", Outcome{}},
		{SubagentStop, `echo '{"decision": "block", "reason": "cite the files"}'`, Outcome{Block: true, Reason: "cite the files"}},
		{SubagentStop, "echo 'hand over the diff' >&2; exit 2", Outcome{Block: true, Reason: "hand over the diff"}},
		{SubagentStart, `echo '{"hookSpecificOutput": {"hookEventName": "SubagentStart", "additionalContext": "use pnpm"}}'`, Outcome{Context: []string{"use pnpm"}}},
		{SubagentStart, "echo 'plain stdout is not context here'", Outcome{}},
		{SessionStart, `echo '{"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "on branch main"}}'`, Outcome{Context: []string{"on branch main"}}},
		{PreCompact, "echo 'saving state' >&2; exit 2", Outcome{Messages: []string{"saving state"}}},
		{Notification, "exit 0", Outcome{}},
		{PermissionRequest, `echo '{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}}'`, Outcome{Permission: "allow"}},
		{PermissionRequest, `echo '{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "deny", "message": "not on main"}}}'`, Outcome{Block: true, Reason: "not on main", Permission: "deny"}},
		{PermissionRequest, "echo 'no pushes' >&2; exit 2", Outcome{Block: true, Reason: "no pushes", Permission: "deny"}},
		{DelegationFinished, "echo 'x' >&2; exit 1", Outcome{Notices: []string{`DelegationFinished hook "echo 'x' >&2; exit 1" (SRC): exit 1: x`}}},
		{BatchJobFailed, "echo '{not json'", Outcome{Notices: []string{`BatchJobFailed hook "echo '{not json'" (SRC): its JSON output does not parse: invalid character 'n' looking for beginning of object key string`}}},
	} {
		r := runner(t, `{"`+string(c.ev)+`": [{"hooks": [{"type": "command", "command": `+mustJSON(t, c.command)+`}]}]}`)
		got, err := r.Run(t.Context(), Input{Event: c.ev})
		if err != nil {
			t.Fatal(err)
		}
		for i, n := range c.want.Notices {
			c.want.Notices[i] = strings.ReplaceAll(n, "SRC", filepath.Join(r.Dir, ".claude/settings.json"))
		}
		if g, w := mustJSON(t, got), mustJSON(t, c.want); g != w {
			t.Errorf("%s %q: Outcome = %s; want %s", c.ev, c.command, g, w)
		}
	}
}

// TestTimeout: a hook past its time limit is stopped with everything it
// started, and is a notice naming the limit; the call goes ahead.
func TestTimeout(t *testing.T) {
	r := runner(t, `{"Stop": [{"hooks": [{"type": "command", "command": "sleep 30 & echo $! > child; sleep 30", "timeout": 0.3}]}]}`)
	start := time.Now()
	got, err := r.Run(t.Context(), Input{Event: Stop})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("a hook limited to 0.3 s held the run %s", took)
	}
	if got.Block || len(got.Notices) != 1 || !strings.Contains(got.Notices[0], "timed out after 300ms") {
		t.Errorf("Outcome = %+v; want one notice of the time-out", got)
	}
	pid, err := os.ReadFile(filepath.Join(r.Dir, "child"))
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		// Gone, or a zombie nobody waits for (its parent was killed too).
		stat, err := os.ReadFile("/proc/" + strings.TrimSpace(string(pid)) + "/stat")
		if err != nil || strings.Contains(string(stat), ") Z ") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the hook's background child %s outlived its time-out: %s", pid, stat)
		}
	}
}

// TestToolInput: yagent's arguments under Claude Code's names, paths
// absolute, an argv as the command a shell would read, and back.
func TestToolInput(t *testing.T) {
	for _, c := range []struct {
		tool, args, want, back string
	}{
		{"write_file", `{"path":"a/b.go","content":"x"}`, `{"content":"x","file_path":"/ws/a/b.go"}`, `{"content":"x","path":"/ws/a/b.go"}`},
		{"edit_file", `{"path":"/abs.go","old":"a","new":"b"}`, `{"file_path":"/abs.go","new_string":"b","old_string":"a"}`, `{"new":"b","old":"a","path":"/abs.go"}`},
		{"shell", `{"argv":["sh","-c","rm -rf /"],"timeout_sec":2}`, `{"argv":["sh","-c","rm -rf /"],"command":"sh -c 'rm -rf /'","timeout":2000,"timeout_sec":2}`, `{"command":"sh -c 'rm -rf /'","timeout_sec":2}`},
		{"shell", `{"command":"ls"}`, `{"command":"ls"}`, `{"command":"ls"}`},
		{"glob", `{"pattern":"**/*.go"}`, `{"pattern":"**/*.go"}`, `{"pattern":"**/*.go"}`},
		{"delegate", `{"agent":"explorer","task":"map the repo\nthen stop"}`, `{"description":"map the repo","prompt":"map the repo\nthen stop","subagent_type":"explorer"}`, `{"agent":"explorer","task":"map the repo\nthen stop"}`},
		{"shell", `not json`, `not json`, `not json`},
	} {
		got := ToolInput(c.tool, json.RawMessage(c.args), "/ws")
		if string(got) != c.want {
			t.Errorf("ToolInput(%s, %s) = %s; want %s", c.tool, c.args, got, c.want)
		}
		if back := FromToolInput(c.tool, got); string(back) != c.back {
			t.Errorf("FromToolInput(%s, %s) = %s; want %s", c.tool, got, back, c.back)
		}
	}
	for tool, want := range map[string]string{"shell": "Bash", "edit_file": "Edit", "mcp_github__list": "mcp__github__list", "mcp_x": "mcp_x", "read_note": "read_note"} {
		if got := ClaudeToolName(tool); got != want {
			t.Errorf("ClaudeToolName(%s) = %s; want %s", tool, got, want)
		}
	}
}

// FuzzLoad: any settings file loads without a panic, and every hook
// loaded has an event yagent raises, a command and a positive limit.
func FuzzLoad(f *testing.F) {
	f.Add([]byte(`{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "x", "timeout": 3}]}]}}`))
	f.Add([]byte(`{"hooks": {"Stop": [{"hooks": [{"type": "prompt"}]}], "Nope": []}}`))
	f.Add([]byte(`{"hooks": {"PreToolUse": [{"matcher": "(", "hooks": []}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := &Set{hooks: map[Event][]Hook{}}
		_, _ = s.add(File{Path: "fuzz.json", Trusted: true}, data)
		for _, h := range s.All() {
			if !slices.Contains(Events, h.Event) || strings.TrimSpace(h.Command) == "" || h.Timeout <= 0 {
				t.Errorf("loaded %+v", h)
			}
		}
	})
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestEventInput: each event's hook reads Claude Code's fields for it on
// stdin, and the matcher of the events that have one is tested against
// Claude Code's target (SessionStart's source, PreCompact's trigger,
// Notification's type, a sub-agent's type, SessionEnd's reason).
func TestEventInput(t *testing.T) {
	yes := true
	for _, c := range []struct {
		in      Input
		matcher string
		want    string // a field of stdin, as JSON
		runs    bool
	}{
		{Input{Event: UserPromptSubmit, Prompt: "fix it"}, "never", `"prompt":"fix it"`, true},
		{Input{Event: Stop, StopHookActive: &yes, LastAssistantMessage: "done"}, "never", `"stop_hook_active":true,"last_assistant_message":"done"`, true},
		{Input{Event: SubagentStop, AgentType: "explorer", AgentID: "call_1"}, "explorer", `"agent_id":"call_1","agent_type":"explorer"`, true},
		{Input{Event: SubagentStart, AgentType: "coder"}, "explorer", "", false},
		{Input{Event: PreCompact, Trigger: "manual"}, "manual", `"trigger":"manual"`, true},
		{Input{Event: PreCompact, Trigger: "auto"}, "manual", "", false},
		{Input{Event: SessionStart, Source: "resume"}, "startup|resume", `"source":"resume"`, true},
		{Input{Event: SessionStart, Source: "compact"}, "startup|resume", "", false},
		{Input{Event: SessionEnd, Reason: "other"}, "", `"reason":"other"`, true},
		{Input{Event: Notification, Message: "yagent needs your approval", NotificationType: "permission_prompt"}, "permission_prompt", `"message":"yagent needs your approval","notification_type":"permission_prompt"`, true},
		{Input{Event: NoteLanded, NoteRef: "b/explorer/x", Status: "ok"}, "", `"note_ref":"b/explorer/x","status":"ok"`, true},
	} {
		r := runner(t, `{"`+string(c.in.Event)+`": [{"matcher": "`+c.matcher+`", "hooks": [{"type": "command", "command": "cat > stdin"}]}]}`)
		if got := r.Active(c.in.Event, c.in.target()); got != c.runs {
			t.Errorf("%s with matcher %q: Active = %v; want %v", c.in.Event, c.matcher, got, c.runs)
		}
		if _, err := r.Run(t.Context(), c.in); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(r.Dir, "stdin"))
		if !c.runs {
			if err == nil {
				t.Errorf("%s with matcher %q ran", c.in.Event, c.matcher)
			}
			continue
		}
		if err != nil || !strings.Contains(string(data), c.want) || !strings.Contains(string(data), `"hook_event_name":"`+string(c.in.Event)+`"`) {
			t.Errorf("%s: stdin %s (%v); want %s in it", c.in.Event, data, err, c.want)
		}
	}
}

// TestDisableAllHooks: Claude Code's "disableAllHooks": true turns every
// hook off, each listed as skipped naming the file; the last trusted file
// that sets it decides; an untrusted workspace cannot set it.
func TestDisableAllHooks(t *testing.T) {
	dir := t.TempDir()
	person := write(t, dir, "home/settings.json", `{"Stop": [{"hooks": [{"type": "command", "command": "check.sh"}]}]}`)
	off := filepath.Join(dir, "off.json")
	on := filepath.Join(dir, "on.json")
	for p, v := range map[string]string{off: "true", on: "false"} {
		if err := os.WriteFile(p, []byte(`{"disableAllHooks": `+v+`}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name     string
		files    []File
		disabled string
	}{
		{"off", []File{{Path: person, Trusted: true}, {Path: off, Trusted: true}}, off},
		{"off, then on again", []File{{Path: person, Trusted: true}, {Path: off, Trusted: true}, {Path: on, Trusted: true}}, ""},
		{"off by an untrusted file", []File{{Path: person, Trusted: true}, {Path: off}}, ""},
	} {
		set, err := Load(c.files)
		if err != nil {
			t.Fatal(err)
		}
		if set.DisabledBy() != c.disabled || set.Empty() != (c.disabled != "") {
			t.Errorf("%s: DisabledBy = %q, Empty = %v; want %q", c.name, set.DisabledBy(), set.Empty(), c.disabled)
		}
		var why []string
		for _, s := range set.Skipped() {
			why = append(why, s.What+": "+s.Why)
		}
		if c.disabled != "" && !slices.Contains(why, "check.sh: disableAllHooks is true in "+off) {
			t.Errorf("%s: skipped %q; want check.sh disabled by %s", c.name, why, off)
		}
		if c.name == "off by an untrusted file" && !slices.Contains(why, "disableAllHooks: true: "+WhyUntrusted) {
			t.Errorf("%s: skipped %q; want the untrusted switch listed", c.name, why)
		}
	}
}

// TestWriteTable: `yagent hooks ls` lists each active hook (event,
// matcher, limit, command, file), each skipped one with why, and the
// files read; a command with a newline or an escape is quoted.
func TestWriteTable(t *testing.T) {
	dir := t.TempDir()
	person := write(t, dir, "home/settings.json", `{"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh", "timeout": 5}]}],
		"Stop": [{"matcher": "ignored", "hooks": [{"type": "http", "url": "http://x"}, {"type": "command", "command": "echo a\nrm b\u001b[2J"}]}]}`)
	ws := write(t, dir, "ws/.claude/settings.json", `{"SessionStart": [{"hooks": [{"type": "command", "command": "curl evil"}]}]}`)
	set, err := Load([]File{{Path: person, Trusted: true}, {Path: ws}})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := set.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	got := strings.ReplaceAll(b.String(), dir, "DIR")
	want := `EVENT       MATCHER  TIMEOUT  COMMAND                SOURCE
PreToolUse  Bash     5s       guard.sh               DIR/home/settings.json
Stop        *        1m0s     "echo a\nrm b\x1b[2J"  DIR/home/settings.json

SKIPPED        EVENT         WHY                                          SOURCE
a "http" hook  Stop          only command hooks are supported yet         DIR/home/settings.json
curl evil      SessionStart  the workspace is not trusted (yagent trust)  DIR/ws/.claude/settings.json

settings files read: DIR/home/settings.json, DIR/ws/.claude/settings.json
`
	if got != want {
		t.Errorf("WriteTable:\n%s\nwant:\n%s", got, want)
	}
}
