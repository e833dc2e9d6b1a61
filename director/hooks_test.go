package director

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/llm/llmtest"
	"github.com/yagent/yagent/memory"
)

// TestDirectorHooks: the session's hooks in Claude Code's contract — a
// UserPromptSubmit exit 2 erases the prompt (no request, nothing
// recorded, the reason for the person); its stdout and SessionStart's
// context reach the turn's message; a Stop block forces one more round
// (the hook reads last_assistant_message); /compact runs PreCompact with
// trigger manual, then SessionStart with source compact, whose context
// reaches the next turn; SessionEnd reads its reason; a batch delegation
// that fails raises BatchJobFailed (one that succeeds does not), and the
// hook's own failure is a notice.
func TestDirectorHooks(t *testing.T) {
	srv := llmtest.NewTestServer(t, filepath.Join("..", "testdata", "scenarios", "director-hooks.yaml"))
	home := t.TempDir()
	settings := `{"hooks": {
		"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "grep -q password && { echo 'no secrets in prompts' >&2; exit 2; }; echo 'branch: main'"}]}],
		"SessionStart": [
			{"matcher": "startup", "hooks": [{"type": "command", "command": "echo 'read TODO.md first'"}]},
			{"matcher": "compact", "hooks": [{"type": "command", "command": "echo '{\"hookSpecificOutput\": {\"additionalContext\": \"compacted: reread TODO.md\"}}'"}]}],
		"Stop": [{"hooks": [{"type": "command", "command": "case \"$(cat)\" in *'\"last_assistant_message\":\"On main.\"'*) echo '{\"decision\": \"block\", \"reason\": \"name the commit\"}';; esac"}]}],
		"PreCompact": [{"hooks": [{"type": "command", "command": "cat > \"$HOOKS_LOG/precompact.json\""}]}],
		"SessionEnd": [{"hooks": [{"type": "command", "command": "cat > \"$HOOKS_LOG/end.json\""}]}],
		"BatchJobFailed": [{"hooks": [{"type": "command", "command": "cat >> \"$HOOKS_LOG/failed.json\"; echo 'pager down' >&2; exit 1"}]}]}}`
	if err := os.WriteFile(filepath.Join(home, "settings.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	logs := t.TempDir()
	t.Setenv("HOOKS_LOG", logs)
	rec := &agents.Recorder{}
	store := blackboard.Open(filepath.Join(home, "notes"))
	d, _, sess := testDirector(t, testEnv{srv: srv, home: home, store: store, id: "sess-h", kind: memory.KindRun, events: rec})
	if d.app.Hooks == nil {
		t.Fatal("the settings file's hooks were not loaded")
	}
	d.SessionStart(t.Context(), "startup")

	_, err := d.Turn(t.Context(), "deploy, the password is hunter2")
	if !errors.Is(err, ErrPromptBlocked) || !strings.Contains(err.Error(), "no secrets in prompts") {
		t.Errorf("Turn error = %v; want the prompt blocked with the hook's reason", err)
	}
	if n := len(srv.Requests()); n != 0 || len(sess.History()) != 0 {
		t.Errorf("a blocked prompt made %d requests and left %d messages; want none", n, len(sess.History()))
	}

	out, err := d.Turn(t.Context(), "which branch?")
	if err != nil {
		t.Fatal(err)
	}
	if out.Final != "On main at abc123." {
		t.Errorf("Final = %q; want the forced round's answer", out.Final)
	}
	first := sess.History()[0]
	if first.Role != llm.RoleUser || first.Content != "which branch?\n\n[hook] branch: main\n\n[hook] read TODO.md first" {
		t.Errorf("the turn's message = %q; want the prompt with the hooks' context", first.Content)
	}

	if _, err := d.Compact(t.Context()); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(filepath.Join(logs, "precompact.json")); err != nil || !strings.Contains(string(data), `"hook_event_name":"PreCompact"`) || !strings.Contains(string(data), `"trigger":"manual"`) {
		t.Errorf("PreCompact read %s (%v); want trigger manual", data, err)
	}
	if out, err := d.Turn(t.Context(), "go on"); err != nil || out.Final != "Reread." {
		t.Errorf("the turn after /compact = %v, %v; want SessionStart's compact context in it", out, err)
	}
	srv.AssertDone(t)

	d.SessionEnd(t.Context())
	if data, err := os.ReadFile(filepath.Join(logs, "end.json")); err != nil || !strings.Contains(string(data), `"reason":"other"`) || !strings.Contains(string(data), `"session_id":"sess-h"`) {
		t.Errorf("SessionEnd read %s (%v); want reason other and the session", data, err)
	}

	var notices []string
	sink := (&Run{Director: d}).BatchHooks(t.Context(), agents.SinkFunc(func(e agents.Event) {
		if e.Type == agents.EventNotice {
			notices = append(notices, e.Text)
		}
	}))
	sink.Emit(agents.Event{Type: agents.EventDelegationFinished, Delegation: &agents.DelegationEvent{ID: "lint", Agent: "worker", Status: "ok", Ref: "b/worker/1"}})
	sink.Emit(agents.Event{Type: agents.EventDelegationFinished, Delegation: &agents.DelegationEvent{ID: "build", Agent: "worker", Status: "error", Ref: "b/worker/2", Reason: "exit 1"}})
	data, _ := os.ReadFile(filepath.Join(logs, "failed.json"))
	if strings.Count(string(data), "BatchJobFailed") != 1 || !strings.Contains(string(data), `"note_ref":"b/worker/2","status":"error","job":"build"`) {
		t.Errorf("BatchJobFailed read %s; want the failed job only", data)
	}
	if len(notices) != 1 || !strings.Contains(notices[0], "exit 1: pager down") {
		t.Errorf("notices %q; want the failing hook's", notices)
	}
}
