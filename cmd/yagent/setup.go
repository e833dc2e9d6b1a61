package main

import (
	"context"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/director"
	"github.com/yagent/yagent/llm/llmtest"
	"github.com/yagent/yagent/memory"
)

// agentFlags are the flags every command that runs the director shares.
type agentFlags struct {
	JSON       bool
	Replay     string
	Model      string
	MaxSteps   int
	Approval   string
	AllowShell bool
	Dir        string
	Toolset    string
	Sandbox    string
}

func (a *agentFlags) register(fl *pflag.FlagSet) {
	fl.BoolVar(&a.JSON, "json", false, "print one JSON event per line")
	fl.StringVar(&a.Replay, "replay", "", "serve the model from a scripted scenario file (offline)")
	fl.StringVar(&a.Model, "model", "", "the default model's id (overrides YAGENT_MODEL)")
	fl.IntVar(&a.MaxSteps, "max-steps", 0, "the director's model calls per turn (default agents.max_steps)")
	fl.StringVar(&a.Approval, "approval", "", "untrusted, on-request or never (default agents.approval)")
	fl.BoolVar(&a.AllowShell, "allow-shell", false, "let this run use the shell tool without a terminal to ask")
	fl.StringVar(&a.Dir, "cd", "", "workspace directory (default: the current directory)")
	fl.StringVar(&a.Toolset, "toolset", "", "limit the director's tools to this toolset (toolsets: in the configuration); no curation then")
	fl.StringVar(&a.Sandbox, "sandbox", "", "shell commands' OS sandbox: workspace-write, read-only or off (default agents.sandbox)")
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
	// Inspect opens a session without needing a model endpoint (tools
	// profile, tools stats): nothing will run a turn.
	Inspect bool
}

// openSession builds the whole runtime over a new or resumed session:
// configuration, model clients (or a replay), shell policy, session store,
// board, director — and on resume recovers delegations a dead process left
// in flight.
func openSession(ctx context.Context, f *Factory, fl *agentFlags, req sessionRequest) (*session, error) {
	cfg, err := f.Config()
	if err != nil {
		return nil, err
	}
	out := &session{}
	switch {
	case req.Sink != nil:
		out.sink = req.Sink
	case fl.JSON:
		out.sink = newJSONPrinter(f.IO.Out)
	default:
		out.human = newHumanPrinter(f.IO.Out, f.IO.ErrOut)
		out.sink = out.human
	}
	cl := &clients{cfg: cfg, getenv: f.Getenv, override: fl.Model}
	if fl.Replay != "" {
		sc, err := llmtest.Load(fl.Replay)
		if err != nil {
			return nil, &usageError{fmt.Errorf("--replay: %w", err)}
		}
		srv, err := llmtest.Start(sc, llmtest.WithReplay(true))
		if err != nil {
			return nil, &usageError{fmt.Errorf("--replay: %w", err)}
		}
		out.closers = append(out.closers, srv.Close)
		cl.replay = srv
		out.sink.Emit(agents.Event{Type: agents.EventNotice, Time: f.Now(), Agent: "yagent",
			Text: fmt.Sprintf("▶ replay of %s — a scripted model, not a live LLM", fl.Replay)})
	}
	approval := fl.Approval
	if approval == "" {
		approval = cfg.Agents.Approval
	}
	pol, err := agents.ParseApproval(approval)
	if err != nil {
		out.close()
		return nil, &usageError{err}
	}
	policy := agents.ShellPolicy{Approval: pol, Allowed: fl.AllowShell || cfg.Agents.AllowShell}
	if f.IO.CanAsk() {
		policy.Ask = &ttyAsker{in: f.IO.In, out: f.IO.ErrOut}
	}
	boxMode, err := sandboxMode(cfg, fl.Sandbox)
	if err != nil {
		out.close()
		return nil, err
	}
	if fl.MaxSteps < 0 {
		out.close()
		return nil, usagef("--max-steps must be positive")
	}
	if req.Board != "" {
		if err := checkBoard(req.Board); err != nil {
			out.close()
			return nil, err
		}
	}
	dir, err := workspaceDir(f, fl)
	if err != nil {
		out.close()
		return nil, err
	}
	if policy.Sandbox, err = sandboxPolicy(cfg, boxMode, dir); err != nil {
		out.close()
		return nil, err
	}
	if !req.Inspect {
		out.sink.Emit(agents.Event{Type: agents.EventNotice, Time: f.Now(), Agent: "yagent", Text: policy.Sandbox.Describe()})
	}
	sessions, err := f.Sessions(ctx)
	if err != nil {
		out.close()
		return nil, err
	}
	_, model, err := cl.resolve("")
	if err != nil && !req.Inspect {
		out.close()
		return nil, &usageError{err}
	}
	var sess *memory.Session
	if req.Resume != "" {
		sess, err = sessions.Resume(ctx, req.Resume)
	} else {
		sess, err = sessions.Create(ctx, memory.CreateOptions{ID: req.ID, Kind: req.Kind, Cwd: dir, Model: model, BoardID: req.Board, Title: req.Title})
	}
	if err != nil {
		out.close()
		return nil, err
	}
	out.sess = sess
	out.closers = append(out.closers, func() { sess.Close() })
	for _, w := range sess.Warnings {
		out.sink.Emit(agents.Event{Type: agents.EventNotice, Time: f.Now(), Agent: "yagent", Text: "warning: " + w})
	}
	store, err := f.Board()
	if err != nil {
		out.close()
		return nil, err
	}
	extra, err := sessionTools(ctx, f, sess.ID(), out.sink)
	if err != nil {
		out.close()
		return nil, err
	}
	d, err := director.New(director.Options{
		Config: cfg, Client: cl.resolve, Workspace: dir, Board: store, BoardID: sess.BoardID(),
		Events: out.sink, Policy: policy, MaxSteps: fl.MaxSteps, Session: sess, Toolset: fl.Toolset, Tools: extra,
	})
	if err != nil {
		out.close()
		return nil, err
	}
	out.d = d
	out.closers = append(out.closers, func() { d.Close() })
	if !req.Inspect {
		d.Start(ctx)
	}
	if len(sess.Pending) > 0 && !req.Inspect {
		if _, err := d.RecoverInterrupted(ctx); err != nil {
			out.close()
			return nil, err
		}
	}
	return out, nil
}

// workspaceDir is --cd, else the factory's directory, else ".".
func workspaceDir(f *Factory, fl *agentFlags) (string, error) {
	dir := fl.Dir
	if dir == "" {
		dir = f.Dir
	}
	if dir == "" {
		dir = "."
	}
	w, err := agents.OpenWorkspace(dir)
	if err != nil {
		return "", &usageError{err}
	}
	defer w.Close()
	return w.Dir(), nil
}

// turn runs one turn and prints its end.
func (s *session) turn(ctx context.Context, f *Factory, prompt string) (*agents.Outcome, error) {
	out, err := s.d.Turn(ctx, prompt)
	if s.human != nil {
		s.human.finish()
	}
	return out, err
}
