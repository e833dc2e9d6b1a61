package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/director"
	"github.com/yagent/yagent/llm/llmtest"
	"github.com/yagent/yagent/memory"
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

// session is a director over an open session, with what it printed
// through and what must be released.
type session struct {
	d       *director.Director
	sess    *memory.Session
	sink    agents.Sink
	human   *humanPrinter
	closers []func()
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

// openSession builds the whole runtime over a new or resumed session:
// configuration, model clients (or a replay), shell policy, session store,
// board, director — and on resume recovers delegations a dead process left
// in flight. On error it releases what it opened.
func openSession(ctx context.Context, f *Factory, fl *agentFlags, req sessionRequest) (_ *session, err error) {
	cfg, err := f.Config()
	if err != nil {
		return nil, err
	}
	if err := f.startTelemetry(ctx); err != nil {
		return nil, err
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
	cl := &clients{cfg: cfg, getenv: f.Getenv, override: fl.Model, warn: func(msg string) {
		out.sink.Emit(agents.Event{Type: agents.EventNotice, Time: f.Now(), Agent: "yagent", Text: "warning: " + msg})
	}}
	if fl.Replay.sc != nil {
		srv, err := llmtest.Start(fl.Replay.sc, llmtest.WithReplay(true))
		if err != nil {
			return nil, fmt.Errorf("--replay %s: %w", fl.Replay.path, err)
		}
		out.closers = append(out.closers, srv.Close)
		cl.replay = srv
		out.notice(f, fmt.Sprintf("▶ replay of %s — a scripted model, not a live LLM", fl.Replay.path))
	}
	approval := string(fl.Approval)
	if approval == "" {
		approval = cfg.Agents.Approval
	}
	pol, err := agents.ParseApproval(approval)
	if err != nil {
		return nil, err
	}
	policy := agents.ShellPolicy{Approval: pol, Allowed: fl.AllowShell || cfg.Agents.AllowShell,
		ShellAllow: cfg.Agents.ShellAllow, Session: agents.NewApprovals()}
	if f.IO.CanAsk() {
		policy.Ask = &ttyAsker{in: f.IO.In, out: f.IO.ErrOut}
		if req.Ask != nil {
			policy.Ask = req.Ask
		}
	}
	if err := director.CheckToolset(cfg, fl.Toolset); err != nil {
		return nil, err
	}
	if fl.MaxSteps > 0 { // flags are the last configuration layer
		c := *cfg
		c.Agents.MaxSteps = int(fl.MaxSteps)
		cfg = &c
	}
	boxMode, err := sandboxMode(cfg, fl.Sandbox)
	if err != nil {
		return nil, err
	}
	if req.Board != "" {
		if err := blackboard.CheckBoardID(req.Board); err != nil {
			return nil, err
		}
	}
	dir, err := workspaceDir(f, fl)
	if err != nil {
		return nil, err
	}
	if policy.Sandbox, err = sandboxPolicy(cfg, boxMode, dir); err != nil {
		return nil, err
	}
	out.closers = append(out.closers, func() { policy.Sandbox.Close() })
	if !req.Inspect {
		out.sink.Emit(agents.Event{Type: agents.EventNotice, Time: f.Now(), Agent: "yagent", Text: policy.Sandbox.Describe()})
	}
	_, model, err := cl.resolve("")
	if err != nil && !req.Inspect {
		return nil, err
	}
	// The session's database, rollout and row are opened and written
	// (fsyncs) while the session's tools are built: the two do not depend
	// on each other until the director is.
	type opened struct {
		sess *memory.Session
		err  error
	}
	done := make(chan opened, 1)
	go func() {
		sessions, err := f.Sessions(ctx)
		if err != nil {
			done <- opened{err: err}
			return
		}
		var o opened
		if req.Resume != "" {
			o.sess, o.err = sessions.ResumeWith(ctx, req.Resume, memory.ResumeOptions{ReadOnly: req.Inspect, LockOptions: memory.LockOptions{
				Wait:   fl.Wait,
				OnWait: func(b *memory.BusyError) { out.notice(f, b.Error()+": waiting for it to finish (--wait)") },
			}})
			if errors.Is(o.err, memory.ErrSessionBusy) && !fl.Wait {
				o.err = fmt.Errorf("%w: let it finish, or pass --wait to wait for it", o.err)
			}
		} else {
			o.sess, o.err = sessions.Create(ctx, memory.CreateOptions{ID: req.ID, Kind: req.Kind, Cwd: dir, Model: model, BoardID: req.Board, Title: req.Title})
		}
		done <- o
	}()
	var sessionID string // known before any tool runs
	store, err := f.Board()
	var extra []*agents.Tool
	if err == nil {
		extra, err = sessionTools(ctx, f, policy, func() string { return sessionID }, out.sink)
	}
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
	d, err := director.New(director.Options{
		Config: cfg, Client: cl.resolve, Workspace: dir, Board: store, BoardID: sess.BoardID(),
		Events: out.sink, Policy: policy, Session: sess, Toolset: fl.Toolset, Tools: extra, Model: fl.Model,
	})
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
