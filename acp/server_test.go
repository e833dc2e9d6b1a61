package acp

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/event"
	"github.com/yagent/yagent/llm"
)

// fakeSession is a session whose turns are the test's.
type fakeSession struct {
	id      string
	req     OpenRequest
	history []llm.Message
	turn    func(ctx context.Context, s *fakeSession, prompt string) (*agents.Outcome, error)

	mu      sync.Mutex
	prompts []string
	closed  bool
}

func (f *fakeSession) ID() string             { return f.id }
func (f *fakeSession) History() []llm.Message { return f.history }
func (f *fakeSession) Close() {
	f.mu.Lock()
	f.closed = true
	f.mu.Unlock()
}

func (f *fakeSession) Turn(ctx context.Context, prompt string) (*agents.Outcome, error) {
	f.mu.Lock()
	f.prompts = append(f.prompts, prompt)
	f.mu.Unlock()
	if f.turn == nil {
		f.req.Sink.Emit(event.Event{Type: event.TextDelta, Agent: "director", Text: "ok"})
		return &agents.Outcome{Reason: agents.ReasonAnswer}, nil
	}
	return f.turn(ctx, f, prompt)
}

// editor is the client side: what the agent sent, and its answers.
type editor struct {
	mu      sync.Mutex
	updates []sdk.SessionUpdate
	asked   []sdk.RequestPermissionRequest
	// pick is the option a permission request gets ("" = cancelled).
	pick   sdk.PermissionOptionId
	writes map[string]string
}

func (e *editor) SessionUpdate(_ context.Context, n sdk.SessionNotification) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.updates = append(e.updates, n.Update)
	return nil
}

func (e *editor) RequestPermission(_ context.Context, p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.asked = append(e.asked, p)
	if e.pick == "" {
		return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeCancelled()}, nil
	}
	return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected(e.pick)}, nil
}

func (e *editor) ReadTextFile(_ context.Context, p sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return sdk.ReadTextFileResponse{Content: e.writes[p.Path]}, nil
}

func (e *editor) WriteTextFile(_ context.Context, p sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.writes == nil {
		e.writes = map[string]string{}
	}
	e.writes[p.Path] = p.Content
	return sdk.WriteTextFileResponse{}, nil
}

var errNoTerminal = errors.New("no terminal in this test")

func (e *editor) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, errNoTerminal
}
func (e *editor) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, errNoTerminal
}
func (e *editor) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, errNoTerminal
}
func (e *editor) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, errNoTerminal
}
func (e *editor) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, errNoTerminal
}

func (e *editor) seen() []sdk.SessionUpdate {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]sdk.SessionUpdate(nil), e.updates...)
}

// harness is a server on pipes, an editor connected to it, and the
// sessions it opened.
type harness struct {
	client   *sdk.ClientSideConnection
	ed       *editor
	mu       sync.Mutex
	sessions []*fakeSession
	done     chan struct{}
	// open, when set, opens the sessions instead (real ones).
	open OpenFunc
	// stop closes the client's end and waits for Serve to close its
	// sessions.
	stop func()
}

// serve starts Serve with sessions made by newSession, and an editor.
func serve(t *testing.T, newSession func(r OpenRequest) (*fakeSession, error)) *harness {
	t.Helper()
	h := &harness{ed: &editor{pick: optionAllow}, done: make(chan struct{})}
	toAgent, fromClient := io.Pipe()
	toClient, fromAgent := io.Pipe()
	open := func(ctx context.Context, r OpenRequest) (Session, error) {
		if h.open != nil {
			return h.open(ctx, r)
		}
		s, err := newSession(r)
		if err != nil {
			return nil, err
		}
		s.req = r
		h.mu.Lock()
		h.sessions = append(h.sessions, s)
		h.mu.Unlock()
		return s, nil
	}
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		defer close(h.done)
		Serve(ctx, toAgent, fromAgent, io.Discard, open)
	}()
	h.client = sdk.NewClientSideConnection(h.ed, fromClient, toClient)
	h.stop = sync.OnceFunc(func() {
		fromClient.Close()
		cancel()
		<-h.done
	})
	t.Cleanup(h.stop)
	return h
}

func newFake(id string) func(OpenRequest) (*fakeSession, error) {
	return func(r OpenRequest) (*fakeSession, error) {
		if r.Resume != "" {
			id = r.Resume
		}
		return &fakeSession{id: id}, nil
	}
}

func (h *harness) initialize(t *testing.T, fs bool) {
	t.Helper()
	_, err := h.client.Initialize(t.Context(), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber,
		ClientCapabilities: sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{ReadTextFile: fs, WriteTextFile: fs}}})
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
}

func prompt(text string) []sdk.ContentBlock { return []sdk.ContentBlock{sdk.TextBlock(text)} }

// rpcCode is the JSON-RPC error code of err, or 0.
func rpcCode(err error) int {
	var re *sdk.RequestError
	if errors.As(err, &re) {
		return re.Code
	}
	return 0
}

// TestOutOfOrder: a message out of order is a JSON-RPC error, and the
// session is intact: it answers the next prompt.
func TestOutOfOrder(t *testing.T) {
	h := serve(t, newFake("s1"))
	ctx := t.Context()
	if _, err := h.client.NewSession(ctx, sdk.NewSessionRequest{Cwd: t.TempDir(), McpServers: []sdk.McpServer{}}); rpcCode(err) != -32600 {
		t.Errorf("session/new before initialize: %v; want invalid request (-32600)", err)
	}
	if _, err := h.client.Prompt(ctx, sdk.PromptRequest{SessionId: "s1", Prompt: prompt("hi")}); rpcCode(err) != -32600 {
		t.Errorf("session/prompt before initialize: %v; want invalid request (-32600)", err)
	}
	h.initialize(t, false)
	if _, err := h.client.Prompt(ctx, sdk.PromptRequest{SessionId: "nope", Prompt: prompt("hi")}); rpcCode(err) != -32602 {
		t.Errorf("session/prompt of an unknown session: %v; want invalid params (-32602)", err)
	}
	s, err := h.client.NewSession(ctx, sdk.NewSessionRequest{Cwd: t.TempDir(), McpServers: []sdk.McpServer{}})
	if err != nil || s.SessionId != "s1" {
		t.Fatalf("session/new = %v, %v", s, err)
	}
	if _, err := h.client.Prompt(ctx, sdk.PromptRequest{SessionId: "s1", Prompt: []sdk.ContentBlock{}}); rpcCode(err) != -32602 {
		t.Errorf("an empty prompt: %v; want invalid params", err)
	}
	if _, err := h.client.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: "s1", Cwd: t.TempDir(), McpServers: []sdk.McpServer{}}); rpcCode(err) != -32602 {
		t.Errorf("session/load of the open session: %v; want invalid params", err)
	}
	r, err := h.client.Prompt(ctx, sdk.PromptRequest{SessionId: "s1", Prompt: prompt("still there?")})
	if err != nil || r.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("a prompt after the bad messages = %+v, %v; want end_turn", r, err)
	}
	if got := h.sessions[0].prompts; len(got) != 1 || got[0] != "still there?" {
		t.Errorf("the session's turns = %q; want only the good prompt", got)
	}
	if len(h.sessions) != 1 {
		t.Errorf("%d sessions opened; want 1", len(h.sessions))
	}
}

// TestCancel: session/cancel ends the running turn, whose prompt answers
// stopReason cancelled; the session takes the next prompt.
func TestCancel(t *testing.T) {
	started := make(chan struct{}, 1)
	h := serve(t, func(OpenRequest) (*fakeSession, error) {
		return &fakeSession{id: "s1", turn: func(ctx context.Context, s *fakeSession, p string) (*agents.Outcome, error) {
			if p != "long" {
				return &agents.Outcome{Reason: agents.ReasonAnswer}, nil
			}
			started <- struct{}{}
			select {
			case <-ctx.Done():
				return &agents.Outcome{Reason: agents.ReasonCancelled}, ctx.Err()
			case <-time.After(time.Minute):
				return &agents.Outcome{Reason: agents.ReasonAnswer}, nil
			}
		}}, nil
	})
	h.initialize(t, false)
	ctx := t.Context()
	if _, err := h.client.NewSession(ctx, sdk.NewSessionRequest{Cwd: t.TempDir(), McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatal(err)
	}
	type result struct {
		r   sdk.PromptResponse
		err error
	}
	res := make(chan result, 1)
	go func() {
		r, err := h.client.Prompt(ctx, sdk.PromptRequest{SessionId: "s1", Prompt: prompt("long")})
		res <- result{r, err}
	}()
	<-started
	if err := h.client.Cancel(ctx, sdk.CancelNotification{SessionId: "s1"}); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-res:
		if got.err != nil || got.r.StopReason != sdk.StopReasonCancelled {
			t.Errorf("the cancelled prompt = %+v, %v; want stopReason cancelled", got.r, got.err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("session/cancel did not end the turn")
	}
	if r, err := h.client.Prompt(ctx, sdk.PromptRequest{SessionId: "s1", Prompt: prompt("next")}); err != nil || r.StopReason != sdk.StopReasonEndTurn {
		t.Errorf("the prompt after a cancel = %+v, %v", r, err)
	}
}

// TestLoadReplays: session/load reopens the session by its id and replays
// its history as updates before it answers.
func TestLoadReplays(t *testing.T) {
	h := serve(t, func(r OpenRequest) (*fakeSession, error) {
		if r.Resume != "old" {
			return nil, errors.New("no such session")
		}
		r.Sink.Emit(event.Event{Type: event.Notice, Agent: "yagent", Text: "recovered 1 delegation"})
		return &fakeSession{id: "old", history: []llm.Message{
			{Role: llm.RoleUser, Content: "hello"},
			{Role: llm.RoleAssistant, Content: "hi there"},
		}}, nil
	})
	h.initialize(t, false)
	ctx := t.Context()
	if _, err := h.client.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: "missing", Cwd: t.TempDir(), McpServers: []sdk.McpServer{}}); err == nil {
		t.Error("session/load of a session that does not exist succeeded")
	}
	if _, err := h.client.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: "old", Cwd: t.TempDir(), McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatal(err)
	}
	got := h.ed.seen()
	if len(got) != 3 || got[0].UserMessageChunk == nil || got[0].UserMessageChunk.Content.Text.Text != "hello" ||
		got[1].AgentMessageChunk == nil || got[1].AgentMessageChunk.Content.Text.Text != "hi there" ||
		got[2].AgentThoughtChunk == nil || got[2].AgentThoughtChunk.Content.Text.Text != "recovered 1 delegation\n" {
		t.Errorf("replayed updates = %+v; want the user's hello, the answer, then the opening's notice", got)
	}
	if r := h.sessions[0].req; r.Resume != "old" {
		t.Errorf("opened with %+v; want Resume old", r)
	}
}

// TestPromptStreamsAndAsks: a turn's events reach the editor as updates
// while the prompt runs, its approval question is a permission request,
// and the editor's fs methods write the files when it offers them.
func TestPromptStreamsAndAsks(t *testing.T) {
	dir := t.TempDir()
	ws, err := agents.OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	var answers []agents.Answer
	var results []agents.Result
	h := serve(t, func(r OpenRequest) (*fakeSession, error) {
		r.Sink.Emit(event.Event{Type: event.Notice, Agent: "yagent", Text: "replaying demo"})
		return &fakeSession{id: "s1", turn: func(ctx context.Context, s *fakeSession, p string) (*agents.Outcome, error) {
			s.req.Sink.Emit(event.Event{Type: event.TextDelta, Agent: "director", Text: "Writing."})
			a, err := s.req.Ask.Ask(ctx, agents.Question{Action: "run `go test ./...` in " + dir, Prefix: "go test"})
			if err != nil {
				return nil, err
			}
			answers = append(answers, a)
			// The file tools of a run, with the editor's fs methods.
			tools := agents.FSTools(ws, agents.ShellPolicy{Approval: agents.ApproveNever})
			for _, tool := range tools {
				if tool.Name == "write_file" {
					res, err := tool.Run(ctx, &agents.Call{ID: "w", Name: "write_file", Args: []byte(`{"path":"a.txt","content":"x\n"}`)})
					if err != nil {
						return nil, err
					}
					results = append(results, res)
				}
			}
			return &agents.Outcome{Reason: agents.ReasonAnswer}, nil
		}}, nil
	})
	ctx := t.Context()
	h.ed.pick = optionAlways
	h.initialize(t, true)
	if _, err := h.client.NewSession(ctx, sdk.NewSessionRequest{Cwd: dir, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.client.Prompt(ctx, sdk.PromptRequest{SessionId: "s1", Prompt: prompt("write it")}); err != nil {
		t.Fatal(err)
	}
	if len(answers) != 1 || answers[0] != agents.AllowPrefix {
		t.Errorf("answers = %v; want always (the editor picked it)", answers)
	}
	if len(h.ed.asked) != 1 || *h.ed.asked[0].ToolCall.Title != "run `go test ./...` in "+dir {
		t.Errorf("permission requests = %+v", h.ed.asked)
	}
	if len(results) != 1 || results[0].IsError {
		t.Errorf("write_file = %+v", results)
	}
	if h.ed.writes[filepath.Join(ws.Dir(), "a.txt")] != "x\n" {
		t.Errorf("the editor's writes = %v; want a.txt through fs/write_text_file", h.ed.writes)
	}
	if _, err := os.Stat(filepath.Join(dir, "a.txt")); err == nil {
		t.Error("a.txt was written on the disk; the editor offered fs/write_text_file")
	}
	if u := h.ed.seen(); len(u) != 2 || u[0].AgentThoughtChunk == nil || u[0].AgentThoughtChunk.Content.Text.Text != "replaying demo\n" ||
		u[1].AgentMessageChunk == nil || u[1].AgentMessageChunk.Content.Text.Text != "Writing." {
		t.Errorf("updates = %+v; want the opening's notice, then the streamed text", u)
	}
}
