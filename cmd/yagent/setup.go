package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/app"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/director"
	"github.com/yagent/yagent/internal/ttyask"
	"github.com/yagent/yagent/llm/llmtest"
	"github.com/yagent/yagent/memory"
	"github.com/yagent/yagent/sandbox"
)

// agentFlags are the flags of the commands that run the director.
type agentFlags struct {
	JSON       bool
	Replay     scenarioFlag
	AllowShell bool
	Dir        dirFlag
	Model      string
	MaxSteps   countFlag
	Approval   approvalFlag
	Toolset    string
	Sandbox    sandboxFlag
	// Wait waits for a session another process holds instead of failing.
	Wait bool
}

// registerIO registers the flags batch shares with the other director
// commands: output, replay, shell, sandbox and workspace.
func (a *agentFlags) registerIO(fl *pflag.FlagSet) {
	fl.BoolVar(&a.JSON, "json", false, "print one JSON event per line")
	fl.Var(&a.Replay, "replay", "serve the model from a scripted scenario file (offline); demo: the bundled one")
	fl.BoolVar(&a.AllowShell, "allow-shell", false, "let this run use the shell tool without a terminal to ask")
	fl.Var(&a.Sandbox, "sandbox", "shell commands' OS sandbox: workspace-write, read-only or off (default agents.sandbox)")
	fl.Var(&a.Dir, "cd", "workspace directory (default: the current directory)")
}

// register registers every flag of the commands that run the director.
func (a *agentFlags) register(fl *pflag.FlagSet) {
	a.registerIO(fl)
	fl.StringVar(&a.Model, "model", "", "the default model: a name under models:, else a model id (overrides YAGENT_MODEL)")
	fl.Var(&a.MaxSteps, "max-steps", "the director's model calls per turn (default agents.max_steps)")
	fl.Var(&a.Approval, "approval", "untrusted, on-request or never (default agents.approval)")
	fl.StringVar(&a.Toolset, "toolset", "", "limit the director's tools to this toolset (toolsets: in the configuration); no curation then")
	fl.BoolVar(&a.Wait, "wait", false, "when another yagent process is working in the session, wait for it instead of failing")
}

// session is an assembled run (app.App) and, for the commands that talk
// to a director, the director over an open session; with what it prints
// through and what must be released.
type session struct {
	app     *app.App
	d       *director.Director
	sess    *memory.Session
	sink    agents.Sink
	human   *humanPrinter
	closers []func()
	// model is the default model's id ("" when no endpoint is configured
	// and the run may go without one).
	model string
	dir   string
	// cfg is the configuration with the flags folded in (--max-steps).
	cfg *config.Config
	// price is the lead's model's price, nil when none is configured.
	price *config.Price
}

func (s *session) close() {
	for i := len(s.closers) - 1; i >= 0; i-- {
		s.closers[i]()
	}
}

// sessionRequest says which session to open.
type sessionRequest struct {
	Kind   string
	Resume string // id, id prefix or name; "" = a new session
	ID     string // a new session's id ("" = a fresh one)
	Board  string // a new session's board ("" = its own)
	Title  string // a new session's title ("" = its first prompt)
	// Sink, when set, receives the events instead of the standard printers.
	Sink agents.Sink
	// Ask, when set, asks approvals instead of the terminal prompt (the
	// interactive mode's modal).
	Ask agents.Asker
	// Inspect opens a session without needing a model endpoint (tools
	// profile, tools stats): nothing will run a turn.
	Inspect bool
}

// prepareRun is the first half of assembling a run, from the flags: the
// printers, the model clients (or a replay), the approval and sandbox
// policy and the workspace. On error it releases what it opened.
func prepareRun(f *Factory, fl *agentFlags, req sessionRequest) (_ *session, _ *app.Clients, _ agents.ShellPolicy, err error) {
	cfg, err := f.Config()
	if err != nil {
		return nil, nil, agents.ShellPolicy{}, err
	}
	out := &session{}
	defer func() {
		if err != nil {
			out.close()
		}
	}()
	switch {
	case req.Sink != nil:
		out.sink = req.Sink
	case fl.JSON:
		out.sink = newJSONPrinter(f.IO.Out, f.IO.ErrOut)
	default:
		out.human = newHumanPrinter(f.IO.Out, f.IO.ErrOut)
		out.human.buffered = !f.IO.OutTTY
		out.human.reasoning = f.IO.ErrTTY && req.Kind == memory.KindInteractive
		out.sink = out.human
	}
	co := app.ClientOptions{Getenv: f.Getenv, Model: fl.Model, Warn: func(msg string) { out.notice(f, "warning: "+msg) }}
	if fl.Replay.sc != nil {
		srv, err := llmtest.Start(fl.Replay.sc, llmtest.WithReplay(true))
		if err != nil {
			return nil, nil, agents.ShellPolicy{}, fmt.Errorf("--replay %s: %w", fl.Replay.path, err)
		}
		out.closers = append(out.closers, srv.Close)
		co.Replay = srv.URL()
		out.notice(f, fmt.Sprintf("▶ replay of %s — a scripted model, not a live LLM", fl.Replay.path))
	}
	if err := director.CheckToolset(cfg, fl.Toolset); err != nil {
		return nil, nil, agents.ShellPolicy{}, err
	}
	if fl.MaxSteps > 0 { // flags are the last configuration layer
		c := *cfg
		c.Agents.MaxSteps = int(fl.MaxSteps)
		cfg = &c
	}
	out.cfg = cfg
	out.price = modelPrice(cfg, fl.Model)
	if req.Board != "" {
		if err := blackboard.CheckBoardID(req.Board); err != nil {
			return nil, nil, agents.ShellPolicy{}, err
		}
	}
	if out.dir, err = workspaceDir(f, fl); err != nil {
		return nil, nil, agents.ShellPolicy{}, err
	}
	po := app.PolicyOptions{Approval: string(fl.Approval), AllowShell: fl.AllowShell, Sandbox: sandbox.Mode(fl.Sandbox), Workspace: out.dir}
	if f.IO.CanAsk() {
		po.Ask = ttyask.New(f.IO.In, f.IO.ErrOut)
		if req.Ask != nil {
			po.Ask = req.Ask
		}
	}
	policy, err := app.NewPolicy(cfg, po)
	if err != nil {
		return nil, nil, agents.ShellPolicy{}, err
	}
	out.closers = append(out.closers, func() { policy.Sandbox.Close() })
	if !req.Inspect {
		out.notice(f, policy.Sandbox.Describe())
	}
	clients := app.NewClients(cfg, co)
	if _, out.model, err = clients.Resolve(""); err != nil && !req.Inspect {
		return nil, nil, agents.ShellPolicy{}, err
	}
	return out, clients, policy, nil
}

// modelPrice is the price of the model --model names (a name under
// models:; without --model, models.default), nil when none is configured:
// a model id --model gives has no price.
func modelPrice(cfg *config.Config, model string) *config.Price {
	if model == "" {
		model = "default"
	}
	if mc, ok := cfg.Models[model]; ok && mc.Price != (config.Price{}) {
		p := mc.Price
		return &p
	}
	return nil
}

// assembleRun is the second half: the board, the session's extra tools
// (knowledge base, MCP servers) and the App. sessionID names the session
// the knowledge base's tools act for ("" when there is none: a worker).
func assembleRun(ctx context.Context, f *Factory, out *session, clients *app.Clients, policy agents.ShellPolicy, sessionID func() string) error {
	store, err := f.Board()
	if err != nil {
		return err
	}
	extra, err := sessionTools(ctx, f, policy, sessionID, out.sink)
	if err != nil {
		return err
	}
	a, err := app.New(app.Options{Config: out.cfg, Client: clients.Resolve, Workspace: out.dir, Board: store,
		Events: out.sink, Policy: policy, Tools: extra, Now: f.Now})
	if err != nil {
		return err
	}
	out.app = a
	out.closers = append(out.closers, func() { out.warn(f, "closing the workspace", a.Workspace.Close()) })
	return nil
}

// openRun assembles a run without a session (a queue worker): nothing is
// persisted by opening it.
func openRun(ctx context.Context, f *Factory, fl *agentFlags, req sessionRequest) (*session, error) {
	if err := f.startTelemetry(ctx); err != nil {
		return nil, err
	}
	out, clients, policy, err := prepareRun(f, fl, req)
	if err != nil {
		return nil, err
	}
	if err := assembleRun(ctx, f, out, clients, policy, func() string { return "" }); err != nil {
		out.close()
		return nil, err
	}
	return out, nil
}

// openSession assembles a run over a new or resumed session and its
// director — and on resume recovers delegations a dead process left in
// flight. On error it releases what it opened.
func openSession(ctx context.Context, f *Factory, fl *agentFlags, req sessionRequest) (_ *session, err error) {
	if err := f.startTelemetry(ctx); err != nil {
		return nil, err
	}
	out, clients, policy, err := prepareRun(f, fl, req)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			out.close()
		}
	}()
	// The session's database, rollout and row are opened and written
	// (fsyncs) while the run's tools are built: the two do not depend on
	// each other until the director is.
	type opened struct {
		sess *memory.Session
		err  error
	}
	done := make(chan opened, 1)
	go func() {
		var o opened
		o.sess, o.err = createOrResume(ctx, f, fl, req, out)
		done <- o
	}()
	var sessionID string // known before any tool runs
	err = assembleRun(ctx, f, out, clients, policy, func() string { return sessionID })
	o := <-done
	if o.err != nil {
		return nil, o.err
	}
	sess := o.sess
	sessionID = sess.ID()
	out.sess = sess
	if jp, ok := out.sink.(*jsonPrinter); ok {
		jp.setSession(sess.ID())
	}
	out.closers = append(out.closers, func() { out.warn(f, "closing the session's rollout", sess.Close()) })
	if err != nil {
		return nil, err
	}
	for _, w := range sess.Warnings {
		out.notice(f, "warning: "+w)
	}
	d, err := director.New(out.app, director.Options{BoardID: sess.BoardID(), Session: sess, Toolset: fl.Toolset, Model: fl.Model})
	if err != nil {
		return nil, err
	}
	out.d = d
	out.closers = append(out.closers, func() { out.warn(f, "stopping the director", d.Close()) })
	if !req.Inspect {
		d.Start(ctx)
	}
	if len(sess.Pending) > 0 && !req.Inspect {
		if _, err := d.RecoverInterrupted(ctx); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// createOrResume opens the session a request names: a new one, or the one
// it resumes (waiting for another process with --wait).
func createOrResume(ctx context.Context, f *Factory, fl *agentFlags, req sessionRequest, out *session) (*memory.Session, error) {
	sessions, err := f.Sessions(ctx)
	if err != nil {
		return nil, err
	}
	if req.Resume == "" {
		return sessions.Create(ctx, memory.CreateOptions{ID: req.ID, Kind: req.Kind, Cwd: out.dir, Model: out.model, BoardID: req.Board, Title: req.Title})
	}
	sess, err := sessions.ResumeWith(ctx, req.Resume, memory.ResumeOptions{ReadOnly: req.Inspect, LockOptions: memory.LockOptions{
		Wait:   fl.Wait,
		OnWait: func(b *memory.BusyError) { out.notice(f, b.Error()+": waiting for it to finish (--wait)") },
	}})
	if errors.Is(err, memory.ErrSessionBusy) && !fl.Wait {
		err = fmt.Errorf("%w: let it finish, or pass --wait to wait for it", err)
	}
	return sess, err
}

// notice shows a line of yagent's own through the session's printer.
func (s *session) notice(f *Factory, text string) {
	s.sink.Emit(agents.Event{Type: agents.EventNotice, Time: f.Now(), Agent: "yagent", Text: text})
}

// warn shows a non-fatal error as a notice; nil shows nothing.
func (s *session) warn(f *Factory, doing string, err error) {
	if err != nil {
		s.notice(f, fmt.Sprintf("warning: %s: %v", doing, err))
	}
}

// workspaceDir is --cd, else the factory's directory, else ".".
func workspaceDir(f *Factory, fl *agentFlags) (string, error) {
	dir := string(fl.Dir)
	if dir == "" {
		dir = f.Dir
	}
	if dir == "" {
		dir = "."
	}
	w, err := agents.OpenWorkspace(dir)
	if err != nil {
		return "", err
	}
	defer w.Close()
	return w.Dir(), nil
}

// turn runs one turn and prints its end.
func (s *session) turn(ctx context.Context, prompt string) (*agents.Outcome, error) {
	out, err := s.d.Turn(ctx, prompt)
	if s.human != nil {
		s.human.finish()
	}
	return out, err
}
