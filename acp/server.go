// Package acp is `yagent acp`: an Agent Client Protocol server on stdio
// (github.com/coder/acp-go-sdk), through which an editor (Zed, JetBrains,
// Neovim) runs yagent's sessions. A session is a director's session as
// chat opens it; its events are mapped to session updates by Mapper
// (updates.go) from the one event vocabulary, its approval questions are
// session/request_permission (asker.go), and its file tools read and write
// through the editor's fs methods when the editor offers them
// (agents.ClientFiles: the paths are checked as ever). session/load
// reopens a session from its rollout and replays its history.
package acp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/chat"
	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/director"
	"github.com/yagent/yagent/event"
	"github.com/yagent/yagent/internal/buildinfo"
	"github.com/yagent/yagent/llm"
)

// Session is what the server drives of an open session.
type Session interface {
	ID() string
	// History is the conversation a load replays.
	History() []llm.Message
	Turn(ctx context.Context, prompt string) (*agents.Outcome, error)
	Close()
}

// Director is a director's session as the server drives it. ctx is for
// its closing: a session left with no turn is removed, as interactive
// mode removes one (chat.RemoveSession), so an editor that opens sessions
// it never prompts leaves none behind.
func Director(ctx context.Context, r *director.Run) Session {
	return directorSession{context.WithoutCancel(ctx), r}
}

type directorSession struct {
	ctx context.Context
	r   *director.Run
}

func (d directorSession) ID() string             { return d.r.Session.ID() }
func (d directorSession) History() []llm.Message { return d.r.Session.History() }

func (d directorSession) Close() {
	id, st := d.r.Session.ID(), d.r.Session.Store()
	d.r.Close()
	if in, err := st.Get(d.ctx, id); err == nil && in.Turns == 0 {
		if _, err := chat.RemoveSession(d.ctx, st, id); err != nil {
			d.r.Warn("drop the empty session "+id, err)
		}
	}
}
func (d directorSession) Turn(ctx context.Context, prompt string) (*agents.Outcome, error) {
	return d.r.Director.Turn(ctx, prompt)
}

// OpenRequest says which session to open and where its events and
// approval questions go.
type OpenRequest struct {
	// Dir is the workspace (the client's cwd).
	Dir string
	// Resume is the session to reopen ("" = a new one).
	Resume string
	Sink   agents.Sink
	Ask    agents.Asker
	// MCPServers are the MCP servers the editor passed (session/new,
	// session/load), as mcp_servers entries: the session uses them beside
	// the configured ones (a configured name wins).
	MCPServers map[string]config.MCPServer
}

// OpenFunc opens a session (cmd/yagent: its openSession over
// director.Open, with the request's workspace, sink and asker).
type OpenFunc func(ctx context.Context, r OpenRequest) (Session, error)

// Serve speaks ACP on in and out until the client closes its end or ctx
// ends, then closes the sessions it opened. The connection's own
// warnings (a line that is no JSON-RPC) go to errOut.
func Serve(ctx context.Context, in io.Reader, out, errOut io.Writer, open OpenFunc) error {
	s := newServer(ctx, open)
	// The SDK starts reading in its constructor and SetLogger is not
	// synchronised with that reader: hold the reader's first Read until the
	// logger is set (a client that closes at once raced it under -race).
	gate := &gatedReader{r: in, open: make(chan struct{})}
	conn := sdk.NewAgentSideConnection(s, out, gate)
	conn.SetLogger(slog.New(slog.NewTextHandler(errOut, &slog.HandlerOptions{Level: slog.LevelWarn})))
	close(gate.open)
	s.conn.Store(conn)
	select {
	case <-conn.Done():
	case <-ctx.Done():
	}
	s.closeAll()
	return nil
}

// Server is the agent side of one connection.
type Server struct {
	ctx  context.Context
	open OpenFunc
	// conn is set once the connection exists (its reader may hand a
	// request over before Serve has stored it: an early message is
	// answered, its updates are not sent).
	conn atomic.Pointer[sdk.AgentSideConnection]

	initialized atomic.Bool
	asked       atomic.Int64 // numbers the tool calls approval questions are shown as
	mu          sync.Mutex
	fs          sdk.FileSystemCapabilities
	sessions    map[string]*session
}

func newServer(ctx context.Context, open OpenFunc) *Server {
	return &Server{ctx: ctx, open: open, sessions: map[string]*session{}}
}

var (
	_ sdk.Agent       = (*Server)(nil)
	_ sdk.AgentLoader = (*Server)(nil)
)

// session is one open session: its run, the events' mapping and the
// running turn.
type session struct {
	srv    *Server
	sid    atomic.Value // string, set once open
	mu     sync.Mutex   // the mapper, the order of updates, pending
	mapper Mapper
	run    Session
	// pending are the events of the session's opening (a warning, a
	// recovered delegation, a replay's label), sent once the client knows
	// the session: after a load's replay, else at the first prompt.
	pending []event.Event
	ready   bool

	turn   sync.Mutex // one turn at a time
	cmu    sync.Mutex
	cancel context.CancelFunc // the running turn's
}

func (ss *session) id() string {
	id, _ := ss.sid.Load().(string)
	return id
}

// Emit implements agents.Sink: the event's updates go to the client, in
// the order the events came.
func (ss *session) Emit(e event.Event) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if !ss.ready {
		ss.pending = append(ss.pending, e)
		return
	}
	ss.send(ss.mapper.Updates(e))
}

// flush sends what was held back while the session opened (under ss.mu).
func (ss *session) flush() {
	ss.ready = true
	for _, e := range ss.pending {
		ss.send(ss.mapper.Updates(e))
	}
	ss.pending = nil
}

// send sends updates (under ss.mu); nothing before the session has its id.
func (ss *session) send(updates []sdk.SessionUpdate) {
	id := ss.id()
	conn := ss.srv.conn.Load()
	if id == "" || conn == nil {
		return
	}
	for _, u := range updates {
		// A client gone is seen by Serve; an update it missed is not an
		// error of the turn.
		_ = conn.SessionUpdate(ss.srv.ctx, sdk.SessionNotification{SessionId: sdk.SessionId(id), Update: u})
	}
}

// JSON-RPC errors of messages out of order: the session is left as it was.
func errNotInitialized(method string) error {
	return &sdk.RequestError{Code: -32600, Message: method + " before initialize: send initialize first"}
}

func errUnknownSession(id sdk.SessionId) error {
	return &sdk.RequestError{Code: -32602, Message: fmt.Sprintf("unknown session %q: create one with session/new or reopen it with session/load", id)}
}

// Initialize implements sdk.Agent: protocol version 1, session/load, and
// the client's fs methods noted for the file tools.
func (s *Server) Initialize(_ context.Context, p sdk.InitializeRequest) (sdk.InitializeResponse, error) {
	s.mu.Lock()
	s.fs = p.ClientCapabilities.Fs
	s.mu.Unlock()
	s.initialized.Store(true)
	return sdk.InitializeResponse{
		ProtocolVersion: sdk.ProtocolVersionNumber,
		AgentCapabilities: sdk.AgentCapabilities{
			LoadSession:        true,
			PromptCapabilities: sdk.PromptCapabilities{EmbeddedContext: true},
			McpCapabilities:    sdk.McpCapabilities{Http: true}, // stdio: every agent's
		},
		AgentInfo:   &sdk.Implementation{Name: "yagent", Version: buildinfo.Version()},
		AuthMethods: []sdk.AuthMethod{},
	}, nil
}

// Authenticate implements sdk.Agent: yagent asks for no authentication
// (the model's key is in its configuration).
func (s *Server) Authenticate(context.Context, sdk.AuthenticateRequest) (sdk.AuthenticateResponse, error) {
	return sdk.AuthenticateResponse{}, nil
}

// NewSession implements sdk.Agent: a new session in the client's cwd.
func (s *Server) NewSession(_ context.Context, p sdk.NewSessionRequest) (sdk.NewSessionResponse, error) {
	if !s.initialized.Load() {
		return sdk.NewSessionResponse{}, errNotInitialized("session/new")
	}
	ss, err := s.openSession(OpenRequest{Dir: p.Cwd}, p.McpServers)
	if err != nil {
		return sdk.NewSessionResponse{}, err
	}
	return sdk.NewSessionResponse{SessionId: sdk.SessionId(ss.id())}, nil
}

// LoadSession implements sdk.AgentLoader: the session reopened from its
// rollout, its history replayed as updates before the answer.
func (s *Server) LoadSession(_ context.Context, p sdk.LoadSessionRequest) (sdk.LoadSessionResponse, error) {
	if !s.initialized.Load() {
		return sdk.LoadSessionResponse{}, errNotInitialized("session/load")
	}
	s.mu.Lock()
	_, open := s.sessions[string(p.SessionId)]
	s.mu.Unlock()
	if open {
		return sdk.LoadSessionResponse{}, &sdk.RequestError{Code: -32602, Message: fmt.Sprintf("session %s is open on this connection already: send it session/prompt", p.SessionId)}
	}
	ss, err := s.openSession(OpenRequest{Dir: p.Cwd, Resume: string(p.SessionId)}, p.McpServers)
	if err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	for _, m := range ss.run.History() {
		ss.send(ss.mapper.Updates(event.Event{Type: event.Message, Message: &m}))
	}
	ss.flush()
	return sdk.LoadSessionResponse{}, nil
}

// openSession opens a session (on the server's context: it outlives the
// request) with the MCP servers the editor passed, and registers it. An
// editor's server yagent cannot use is a warning in the session.
func (s *Server) openSession(r OpenRequest, servers []sdk.McpServer) (*session, error) {
	ss := &session{srv: s}
	r.Sink, r.Ask = ss, asker{ss}
	var skipped []string
	r.MCPServers, skipped = editorServers(servers)
	for _, why := range skipped {
		ss.Emit(event.Event{Type: event.Notice, Time: time.Now(), Text: "warning: not using " + why})
	}
	run, err := s.open(s.ctx, r)
	if err != nil {
		return nil, &sdk.RequestError{Code: -32603, Message: "open the session: " + err.Error()}
	}
	ss.run = run
	ss.sid.Store(run.ID())
	s.mu.Lock()
	s.sessions[run.ID()] = ss
	s.mu.Unlock()
	return ss, nil
}

func (s *Server) session(id sdk.SessionId) (*session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss, ok := s.sessions[string(id)]
	if !ok {
		return nil, errUnknownSession(id)
	}
	return ss, nil
}

// Prompt implements sdk.Agent: one turn of the director, its updates
// streamed as it runs; session/cancel ends it with stopReason cancelled.
func (s *Server) Prompt(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
	if !s.initialized.Load() {
		return sdk.PromptResponse{}, errNotInitialized("session/prompt")
	}
	ss, err := s.session(p.SessionId)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	prompt := promptText(p.Prompt)
	if strings.TrimSpace(prompt) == "" {
		return sdk.PromptResponse{}, &sdk.RequestError{Code: -32602, Message: "the prompt holds no text: send a text or resource block"}
	}
	ss.turn.Lock()
	defer ss.turn.Unlock()
	ss.mu.Lock()
	ss.flush()
	ss.mu.Unlock()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ss.cmu.Lock()
	ss.cancel = cancel
	ss.cmu.Unlock()
	out, err := ss.run.Turn(s.withFiles(ctx, p.SessionId), prompt)
	if ctx.Err() != nil || errors.Is(err, context.Canceled) {
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	}
	if err != nil {
		return sdk.PromptResponse{}, &sdk.RequestError{Code: -32603, Message: "the turn failed: " + err.Error()}
	}
	return sdk.PromptResponse{StopReason: stopReason(out)}, nil
}

// stopReason is how a turn ended, in ACP's words.
func stopReason(out *agents.Outcome) sdk.StopReason {
	if out == nil {
		return sdk.StopReasonEndTurn
	}
	switch out.Reason {
	case agents.ReasonMaxSteps:
		return sdk.StopReasonMaxTurnRequests
	case agents.ReasonLength:
		return sdk.StopReasonMaxTokens
	case agents.ReasonCancelled:
		return sdk.StopReasonCancelled
	}
	return sdk.StopReasonEndTurn
}

// Cancel implements sdk.Agent: session/cancel ends the running turn (the
// prompt answers stopReason cancelled). A session with none, or unknown,
// is left as it is.
func (s *Server) Cancel(_ context.Context, p sdk.CancelNotification) error {
	ss, err := s.session(p.SessionId)
	if err != nil {
		return nil // a notification has no answer
	}
	ss.cmu.Lock()
	defer ss.cmu.Unlock()
	if ss.cancel != nil {
		ss.cancel()
	}
	return nil
}

// withFiles is ctx with the client's fs methods as the file tools' reads
// and writes, those the client offers.
func (s *Server) withFiles(ctx context.Context, sid sdk.SessionId) context.Context {
	s.mu.Lock()
	fs := s.fs
	s.mu.Unlock()
	var cf agents.ClientFiles
	if fs.ReadTextFile {
		cf.Read = func(ctx context.Context, path string) (string, error) {
			r, err := s.conn.Load().ReadTextFile(ctx, sdk.ReadTextFileRequest{SessionId: sid, Path: path})
			return r.Content, err
		}
	}
	if fs.WriteTextFile {
		cf.Write = func(ctx context.Context, path, content string) error {
			_, err := s.conn.Load().WriteTextFile(ctx, sdk.WriteTextFileRequest{SessionId: sid, Path: path, Content: content})
			return err
		}
	}
	if cf.Read == nil && cf.Write == nil {
		return ctx
	}
	return agents.WithClientFiles(ctx, cf)
}

// promptText is the prompt's blocks as the director's input: text as
// it is, an embedded resource with its URI, a link as its URI.
func promptText(blocks []sdk.ContentBlock) string {
	var parts []string
	for _, b := range blocks {
		switch {
		case b.Text != nil:
			parts = append(parts, b.Text.Text)
		case b.Resource != nil && b.Resource.Resource.TextResourceContents != nil:
			r := b.Resource.Resource.TextResourceContents
			parts = append(parts, fmt.Sprintf("[%s]\n%s", r.Uri, r.Text))
		case b.ResourceLink != nil:
			parts = append(parts, "["+b.ResourceLink.Uri+"]")
		}
	}
	return strings.Join(parts, "\n\n")
}

// CloseSession implements sdk.Agent: the running turn cancelled, the
// session closed (kept: session/load reopens it).
func (s *Server) CloseSession(ctx context.Context, p sdk.CloseSessionRequest) (sdk.CloseSessionResponse, error) {
	ss, err := s.session(p.SessionId)
	if err != nil {
		return sdk.CloseSessionResponse{}, err
	}
	s.Cancel(ctx, sdk.CancelNotification{SessionId: p.SessionId})
	ss.turn.Lock()
	defer ss.turn.Unlock()
	s.mu.Lock()
	delete(s.sessions, string(p.SessionId))
	s.mu.Unlock()
	ss.run.Close()
	return sdk.CloseSessionResponse{}, nil
}

// closeAll cancels the running turns and closes every session.
func (s *Server) closeAll() {
	s.mu.Lock()
	all := make([]*session, 0, len(s.sessions))
	for _, ss := range s.sessions {
		all = append(all, ss)
	}
	s.sessions = map[string]*session{}
	s.mu.Unlock()
	for _, ss := range all {
		ss.cmu.Lock()
		if ss.cancel != nil {
			ss.cancel()
		}
		ss.cmu.Unlock()
		ss.turn.Lock()
		ss.run.Close()
		ss.turn.Unlock()
	}
}

// What yagent does not offer (not advertised in its capabilities).
func (s *Server) ListSessions(context.Context, sdk.ListSessionsRequest) (sdk.ListSessionsResponse, error) {
	return sdk.ListSessionsResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionList)
}

func (s *Server) ResumeSession(context.Context, sdk.ResumeSessionRequest) (sdk.ResumeSessionResponse, error) {
	return sdk.ResumeSessionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionResume)
}

func (s *Server) SetSessionMode(context.Context, sdk.SetSessionModeRequest) (sdk.SetSessionModeResponse, error) {
	return sdk.SetSessionModeResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionSetMode)
}

func (s *Server) SetSessionConfigOption(context.Context, sdk.SetSessionConfigOptionRequest) (sdk.SetSessionConfigOptionResponse, error) {
	return sdk.SetSessionConfigOptionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionSetConfigOption)
}

// gatedReader reads r once open is closed.
type gatedReader struct {
	r    io.Reader
	open chan struct{}
}

func (g *gatedReader) Read(p []byte) (int, error) {
	<-g.open
	return g.r.Read(p)
}
