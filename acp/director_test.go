package acp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/yagent/yagent/app"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/director"
	"github.com/yagent/yagent/llm/llmtest"
	"github.com/yagent/yagent/memory"
)

// directorOpen opens real director sessions as cmd/yagent does
// (director.Open over app.RunOptions), under home, the model served by
// the scripted scenario (as --replay serves it), approvals untrusted.
func directorOpen(t *testing.T, home, scenario string) OpenFunc {
	t.Helper()
	getenv := func(k string) string {
		switch k {
		case "YAGENT_HOME":
			return home
		case "YAGENT_NOTES_ROOT":
			return filepath.Join(home, "notes")
		}
		return ""
	}
	cfg, err := config.Load(config.Options{Getenv: getenv, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	cfg.KB.Enabled = false
	cfg.Agents.Checkpoints = false
	sc, err := llmtest.Load(filepath.Join("..", "testdata", "scenarios", scenario+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	db, err := memory.OpenDB(t.Context(), home)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	sessions := func(context.Context) (*memory.Store, error) { return memory.NewStore(db, home), nil }
	board := blackboard.Open(filepath.Join(home, "notes"))
	return func(ctx context.Context, r OpenRequest) (Session, error) {
		run, err := director.Open(ctx, director.OpenOptions{Sessions: sessions, Kind: memory.KindInteractive, Resume: r.Resume,
			Run: app.RunOptions{Config: cfg, Getenv: getenv, Now: time.Now, Events: r.Sink, Dir: r.Dir, Replay: sc, ReplayName: scenario,
				Policy: app.PolicyOptions{Approval: "untrusted", Ask: r.Ask},
				Store:  func() (*blackboard.Store, error) { return board, nil }}})
		if err != nil {
			return nil, err
		}
		return Director(ctx, run), nil
	}
}

// TestDirectorSession: a real director's session over ACP, in process
// and under -race (test/interop drives the binary with the TypeScript
// SDK): the answer streams, the write is asked about on its tool call
// and done through the editor's fs/write_text_file, session/cancel ends a
// slow turn, and a new connection's session/load replays the session and
// goes on with it.
func TestDirectorSession(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	open := directorOpen(t, home, "acp-interop")
	ctx := t.Context()

	h := serve(t, func(OpenRequest) (*fakeSession, error) { return nil, nil })
	h.open = open
	h.initialize(t, true)
	s, err := h.client.NewSession(ctx, sdk.NewSessionRequest{Cwd: ws, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := h.client.Prompt(ctx, sdk.PromptRequest{SessionId: s.SessionId, Prompt: prompt("Please write the greeting to a file.")})
	if err != nil || r.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt = %+v, %v; want end_turn", r, err)
	}
	var text strings.Builder
	var call, done bool
	for _, u := range h.ed.seen() {
		switch {
		case u.AgentMessageChunk != nil:
			text.WriteString(u.AgentMessageChunk.Content.Text.Text)
		case u.ToolCall != nil && u.ToolCall.ToolCallId == "call_write":
			call = true
		case u.ToolCallUpdate != nil && u.ToolCallUpdate.ToolCallId == "call_write" && u.ToolCallUpdate.Status != nil:
			done = *u.ToolCallUpdate.Status == sdk.ToolCallStatusCompleted
		}
	}
	if got, want := text.String(), "I will write the greeting to hello.txt now.Done: hello.txt holds the greeting."; got != want {
		t.Errorf("streamed %q; want %q", got, want)
	}
	if !call || !done {
		t.Errorf("the write's tool call: started %v, completed %v", call, done)
	}
	if len(h.ed.asked) != 1 || h.ed.asked[0].ToolCall.ToolCallId != "call_write" {
		t.Errorf("permission requests %+v; want one, on call_write", h.ed.asked)
	}
	real, _ := filepath.EvalSymlinks(ws)
	if h.ed.writes[filepath.Join(real, "hello.txt")] != "hello from yagent\n" {
		t.Errorf("the editor's writes %v; want hello.txt", h.ed.writes)
	}
	if _, err := os.Stat(filepath.Join(ws, "hello.txt")); err == nil {
		t.Error("hello.txt is on the disk: the editor writes it")
	}

	// session/cancel ends the slow second turn.
	res := make(chan sdk.StopReason, 1)
	go func() {
		r, err := h.client.Prompt(ctx, sdk.PromptRequest{SessionId: s.SessionId, Prompt: prompt("Now count slowly to twelve.")})
		if err != nil {
			t.Errorf("the slow prompt: %v", err)
		}
		res <- r.StopReason
	}()
	deadline := time.Now().Add(30 * time.Second)
	for n := len(h.ed.seen()); len(h.ed.seen()) == n && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	if err := h.client.Cancel(ctx, sdk.CancelNotification{SessionId: s.SessionId}); err != nil {
		t.Fatal(err)
	}
	if got := <-res; got != sdk.StopReasonCancelled {
		t.Errorf("the cancelled prompt's stop reason %q", got)
	}
	h.stop()

	// A new connection reopens it.
	h2 := serve(t, func(OpenRequest) (*fakeSession, error) { return nil, nil })
	h2.open = open
	h2.initialize(t, true)
	if _, err := h2.client.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: s.SessionId, Cwd: ws, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatal(err)
	}
	var users []string
	for _, u := range h2.ed.seen() {
		if u.UserMessageChunk != nil {
			users = append(users, u.UserMessageChunk.Content.Text.Text)
		}
	}
	if len(users) != 2 || users[0] != "Please write the greeting to a file." {
		t.Errorf("replayed prompts %q; want both", users)
	}
	n := len(h2.ed.seen())
	if r, err := h2.client.Prompt(ctx, sdk.PromptRequest{SessionId: s.SessionId, Prompt: prompt("So what did you write before?")}); err != nil || r.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt after load = %+v, %v", r, err)
	}
	var after strings.Builder
	for _, u := range h2.ed.seen()[n:] {
		if u.AgentMessageChunk != nil {
			after.WriteString(u.AgentMessageChunk.Content.Text.Text)
		}
	}
	if after.String() != "Earlier I wrote hello.txt." {
		t.Errorf("the reopened session answered %q", after.String())
	}
}

// TestDirectorDelegation: a real delegation over ACP is the lead's
// delegate tool call, carrying its sub-agent's progress as the call's
// content, finished when the sub-agent hands over; the turn's delegations
// are the plan.
func TestDirectorDelegation(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "go.mod"), []byte("module example.com/acp\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h := serve(t, func(OpenRequest) (*fakeSession, error) { return nil, nil })
	h.open = directorOpen(t, home, "acp-delegation")
	h.initialize(t, false)
	ctx := t.Context()
	s, err := h.client.NewSession(ctx, sdk.NewSessionRequest{Cwd: ws, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := h.client.Prompt(ctx, sdk.PromptRequest{SessionId: s.SessionId, Prompt: prompt("Please explore the module.")}); err != nil || r.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt = %+v, %v", r, err)
	}
	var started, progress, finished bool
	var plan *sdk.SessionUpdatePlan
	for _, u := range h.ed.seen() {
		switch {
		case u.ToolCall != nil && u.ToolCall.ToolCallId == "call_explore":
			started = u.ToolCall.Kind == sdk.ToolKindThink
		case u.ToolCallUpdate != nil && u.ToolCallUpdate.ToolCallId == "call_explore":
			for _, c := range u.ToolCallUpdate.Content {
				if c.Content != nil && c.Content.Content.Text != nil && strings.Contains(c.Content.Content.Text.Text, "read_file") {
					progress = true
				}
			}
			if st := u.ToolCallUpdate.Status; st != nil && *st == sdk.ToolCallStatusCompleted {
				finished = true
			}
		case u.Plan != nil:
			plan = u.Plan
		}
	}
	if !started || !progress || !finished {
		t.Errorf("the delegate call: started %v, the explorer's read_file shown %v, completed %v\n%+v", started, progress, finished, h.ed.seen())
	}
	if plan == nil || len(plan.Entries) != 1 || plan.Entries[0].Status != sdk.PlanEntryStatusCompleted || !strings.HasPrefix(plan.Entries[0].Content, "explorer: ") {
		t.Errorf("the last plan %+v; want the explorer's delegation, completed", plan)
	}
}
