package main

import (
	"cmp"
	"context"

	"github.com/spf13/pflag"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/app"
	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/director"
	"github.com/yagent/yagent/internal/flagvalue"
	"github.com/yagent/yagent/internal/ttyask"
	"github.com/yagent/yagent/mcp"
	"github.com/yagent/yagent/memory"
	"github.com/yagent/yagent/printer"
	"github.com/yagent/yagent/queue"
	"github.com/yagent/yagent/sandbox"
)

// agentFlags are the flags of the commands that run the director.
type agentFlags struct {
	JSON       bool
	Replay     flagvalue.Scenario
	AllowShell bool
	Dir        flagvalue.Dir
	Model      string
	MaxSteps   flagvalue.Count
	Budget     flagvalue.Budget
	Approval   flagvalue.Approval
	Toolset    string
	Sandbox    flagvalue.Sandbox
	// Wait waits for a session another process holds instead of failing.
	Wait    bool
	Verbose bool // -v (run, resume): diffs, outputs and reasoning on stderr
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
	a.Budget.Register(fl)
	fl.StringVar(&a.Model, "model", "", "the default model: a name under models:, else a model id (overrides YAGENT_MODEL)")
	fl.Var(&a.MaxSteps, "max-steps", "the director's model calls per turn (default agents.max_steps)")
	fl.Var(&a.Approval, "approval", "untrusted, on-request or never (default agents.approval)")
	fl.StringVar(&a.Toolset, "toolset", "", "limit the director's tools to this toolset (toolsets: in the configuration); no curation then")
	fl.BoolVar(&a.Wait, "wait", false, "when another yagent process is working in the session, wait for it instead of failing")
}

// session is an assembled run and, for the commands that talk to a
// director, the director over an open session; with what it prints
// through.
type session struct {
	run   *app.Run
	dr    *director.Run // nil without a session
	d     *director.Director
	sess  *memory.Session
	sink  agents.Sink
	human *printer.Human
	// detach leaves background delegations when the run ends (--detach);
	// noHint: no "yagent resume" hint (the demo's home is thrown away).
	detach, noHint bool
}

func (s *session) close() { s.run.Close() }

// sessionRequest says which session to open.
type sessionRequest struct {
	Kind   string
	Resume string // id, id prefix or name; "" = a new session
	ID     string // a new session's id ("" = a fresh one)
	Board  string // a new session's board ("" = its own)
	Dir    string // the workspace ("" = --cd, else the factory's directory)
	Title  string // a new session's title ("" = its first prompt)
	// Sink, when set, receives the events instead of the standard printers.
	Sink agents.Sink
	// Ask, when set, asks approvals instead of the terminal prompt (the
	// interactive mode's modal, an editor over ACP).
	Ask agents.Asker
	// Inspect opens a session without needing a model endpoint (tools
	// profile, tools stats): nothing will run a turn.
	Inspect bool
	Reopen  bool                        // app.RunOptions.Reopen
	MCP     map[string]config.MCPServer // an editor's MCP servers (yagent acp), beside the configured ones
}

// runConfig starts telemetry and is the app.RunOptions the flags and
// the request choose, with the printers they print through.
func runConfig(ctx context.Context, f *Factory, fl *agentFlags, req sessionRequest) (*session, app.RunOptions, error) {
	if err := f.StartTelemetry(ctx); err != nil {
		return nil, app.RunOptions{}, err
	}
	cfg, err := f.Config()
	if err != nil {
		return nil, app.RunOptions{}, err
	}
	out := &session{}
	switch {
	case req.Sink != nil:
		out.sink = req.Sink
	case fl.JSON:
		out.sink = printer.NewJSON(f.IO.Out, f.IO.ErrOut)
	default:
		out.human = printer.NewHuman(f.IO.Out, f.IO.ErrOut)
		out.human.Buffered = !f.IO.OutTTY
		out.human.Reasoning = f.IO.ErrTTY && (req.Kind == memory.KindInteractive || fl.Verbose)
		out.human.Verbose = fl.Verbose || req.Kind == memory.KindInteractive // a person at the plain chat sees what the TUI shows
		out.sink = out.human
	}
	po := app.PolicyOptions{Approval: string(fl.Approval), AllowShell: fl.AllowShell, Sandbox: sandbox.Mode(fl.Sandbox)}
	switch {
	case req.Ask != nil: // the TUI's modal, an editor over ACP
		po.Ask = req.Ask
	case f.IO.CanAsk():
		po.Ask = ttyask.New(f.IO.In, f.IO.ErrOut)
	}
	dir := cmp.Or(req.Dir, workspaceDirFlag(f, fl))
	o := app.RunOptions{Config: cfg, Getenv: f.Getenv, Now: f.Now, Events: out.sink, Model: fl.Model,
		Replay: fl.Replay.Scenario, ReplayName: fl.Replay.Path, MaxSteps: int(fl.MaxSteps),
		Budget: fl.Budget.Limits(), Board: req.Board, Dir: dir,
		Policy: po, Inspect: req.Inspect, Reopen: req.Reopen, Store: f.Board, MCP: func() (*mcp.Servers, error) { return f.MCPServersWith(req.MCP) }, KBTools: f.KBTools,
		Claims: queue.ClaimsOf(queue.OptionsFromConfig(cfg.Queue, "", f.IO.ErrOut))}
	return out, o, nil
}

// openRun assembles a run without a session (a queue worker): nothing is
// persisted by opening it.
func openRun(ctx context.Context, f *Factory, fl *agentFlags, req sessionRequest) (*session, error) {
	out, o, err := runConfig(ctx, f, fl, req)
	if err != nil {
		return nil, err
	}
	if out.run, err = app.Open(ctx, o); err != nil {
		return nil, err
	}
	return out, nil
}

// openSession assembles a run over a new or resumed session and its
// director (director.Open).
func openSession(ctx context.Context, f *Factory, fl *agentFlags, req sessionRequest) (*session, error) {
	out, o, err := runConfig(ctx, f, fl, req)
	if err != nil {
		return nil, err
	}
	r, err := director.Open(ctx, director.OpenOptions{Run: o, Sessions: f.Sessions, Kind: req.Kind, Resume: req.Resume,
		ID: req.ID, Title: req.Title, Toolset: fl.Toolset, Wait: fl.Wait,
		Opened: func(sess *memory.Session) {
			if jp, ok := out.sink.(*printer.JSON); ok {
				jp.SetSession(sess.ID())
			}
		}})
	if err != nil {
		return nil, err
	}
	out.run, out.dr, out.d, out.sess = r.Run, r, r.Director, r.Session
	return out, nil
}

// workspaceDir is --cd, else the factory's directory, else ".".
func workspaceDir(f *Factory, fl *agentFlags) (string, error) {
	return app.WorkspaceDir(workspaceDirFlag(f, fl))
}

// workspaceDirFlag is --cd, else the factory's directory (unresolved).
func workspaceDirFlag(f *Factory, fl *agentFlags) string { return cmp.Or(string(fl.Dir), f.Dir) }

// turn runs one turn and prints its end.
func (s *session) turn(ctx context.Context, prompt string) (*agents.Outcome, error) {
	out, err := s.d.Turn(ctx, prompt)
	if s.human != nil {
		s.human.Finish()
	}
	return out, err
}
