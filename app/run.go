package app

import (
	"context"
	"fmt"
	"time"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/budget"
	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/llm/llmtest"
	"github.com/yagent/yagent/mcp"
)

// RunOptions are what Open builds a run from: the configuration and what
// the command's flags chose.
type RunOptions struct {
	Config *config.Config
	// Getenv reads the variables that hold keys and headers.
	Getenv func(string) string
	// Now is the clock of the events (nil: time.Now).
	Now func() time.Time
	// Events receive the run's events and yagent's notices.
	Events agents.Sink
	// Model is --model ("" = models.default).
	Model string
	// Replay, when set, serves every model from this scripted scenario
	// (offline); ReplayName labels it.
	Replay     *llmtest.Scenario
	ReplayName string
	// Check, when set, checks the configuration before anything is built
	// (the director's --toolset).
	Check func(*config.Config) error
	// MaxSteps, when > 0, is --max-steps: the last configuration layer.
	MaxSteps int
	// Budget is --max-cost and --max-tokens (zero: budget.* decides).
	Budget budget.Limits
	// Board is a new session's board ("" = none), checked here.
	Board string
	// Dir is the workspace ("" = ".").
	Dir string
	// Policy is the approval and sandbox policy's flags; its Workspace is
	// Dir, resolved.
	Policy PolicyOptions
	// Inspect opens a run nothing will run a turn in: no model endpoint is
	// needed and the sandbox is not announced.
	Inspect bool
	// Reopen: the person saw the sandbox announced when the session began
	// (a chat's /model and /resume reopen it); it is not said again.
	Reopen bool
	// Store opens the notes root.
	Store func() (*blackboard.Store, error)
	// Claims, when set, gives where the run's team claims are kept
	// instead of the files beside the board, and what closes them (with
	// queue.dsn: its PostgreSQL rows, queue.ClaimsOf; issue 30 item 4).
	Claims func(context.Context) (blackboard.Claims, func())
	// KBTools, when set, are the knowledge base's tools of the run's
	// agents (KBTools, over the process's store): sessionID names the
	// session they act for ("" when there is none), warn shows what
	// switches them off.
	KBTools func(sessionID func() string, warn func(error)) ([]*agents.Tool, error)
	// MCP, when set, are the external MCP servers (started once per
	// process, by the first run that asks for their tools).
	MCP func() (*mcp.Servers, error)
}

// Run is a run being assembled (Prepare), then assembled (Assemble): the
// configuration with the flags folded in, the model clients, the policy,
// the workspace directory and, once assembled, the App. Close releases
// what it opened, last first.
type Run struct {
	// App is nil until Assemble.
	App     *App
	Config  *config.Config
	Clients *Clients
	Policy  agents.ShellPolicy
	// Model is the default model's id ("" when no endpoint is configured
	// and the run may go without one).
	Model string
	// Dir is the workspace directory, resolved.
	Dir string
	// Budget is the run's budget (RunBudget), without its key.
	Budget budget.Scope

	opts    RunOptions
	closers []func()
}

// Open assembles a run without a session (a queue worker): nothing is
// persisted by opening it.
func Open(ctx context.Context, o RunOptions) (*Run, error) {
	r, err := Prepare(o)
	if err != nil {
		return nil, err
	}
	if err := r.Assemble(ctx, func() string { return "" }); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// Prepare is the first half of assembling a run: the model clients (or a
// replay), the approval and sandbox policy and the workspace. On error it
// releases what it opened.
func Prepare(o RunOptions) (_ *Run, err error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	cfg := o.Config
	r := &Run{opts: o}
	defer func() {
		if err != nil {
			r.Close()
		}
	}()
	co := ClientOptions{Getenv: o.Getenv, Model: o.Model, Warn: func(msg string) { r.Notice("warning: " + msg) }}
	if o.Replay != nil {
		srv, err := llmtest.Start(o.Replay, llmtest.WithReplay(true))
		if err != nil {
			return nil, fmt.Errorf("--replay %s: %w", o.ReplayName, err)
		}
		r.OnClose(srv.Close)
		co.Replay = srv.URL()
		r.Notice(fmt.Sprintf("▶ replay of %s — a scripted model, not a live LLM", o.ReplayName))
	}
	if o.Check != nil {
		if err := o.Check(cfg); err != nil {
			return nil, err
		}
	}
	if o.MaxSteps > 0 { // flags are the last configuration layer
		c := *cfg
		c.Agents.MaxSteps = o.MaxSteps
		cfg = &c
	}
	r.Config = cfg
	r.Budget = RunBudget(cfg.Budget, o.Budget, nil)
	if o.Board != "" {
		if err := blackboard.CheckBoardID(o.Board); err != nil {
			return nil, err
		}
	}
	if r.Dir, err = WorkspaceDir(o.Dir); err != nil {
		return nil, err
	}
	po := o.Policy
	po.Workspace = r.Dir
	if r.Policy, err = NewPolicy(cfg, po); err != nil {
		return nil, err
	}
	// The person's PermissionRequest and Notification hooks come before
	// every approval question a tool call asks.
	r.Policy.Ask = agents.HookAsker(r.Policy.Ask)
	r.OnClose(func() { r.Policy.Sandbox.Close() })
	if !o.Inspect && !o.Reopen {
		r.Notice(r.Policy.Sandbox.Describe())
	}
	r.Clients = NewClients(cfg, co)
	if _, r.Model, err = r.Clients.Resolve(""); err != nil && !o.Inspect {
		return nil, err
	}
	return r, nil
}

// Assemble is the second half: the board, the run's extra tools and the
// App. sessionID names the session the knowledge base's tools act for.
func (r *Run) Assemble(ctx context.Context, sessionID func() string) error {
	store, err := r.opts.Store()
	if err != nil {
		return err
	}
	if r.opts.Claims != nil {
		claims, closeClaims := r.opts.Claims(ctx)
		store.WithClaims(claims)
		r.OnClose(closeClaims)
	}
	extra, err := r.extraTools(ctx, sessionID)
	if err != nil {
		return err
	}
	a, err := New(Options{Config: r.Config, Client: r.Clients.Resolve, Workspace: r.Dir, Board: store,
		Events: r.opts.Events, Policy: r.Policy, Tools: extra, Now: r.opts.Now})
	if err != nil {
		return err
	}
	a.Budget = r.Budget
	r.App = a
	r.OnClose(func() { r.Warn("closing the workspace", a.Workspace.Close()) })
	return nil
}

// extraTools are the tools a run adds to the built-in ones: the
// knowledge base's (in-process) and the external MCP servers', the latter
// behind the run's policy (asked about like commands, unless
// mcp_servers.NAME.allow lists them). A part that cannot be had is left
// out with a warning; only a configuration mistake fails the run.
func (r *Run) extraTools(ctx context.Context, sessionID func() string) ([]*agents.Tool, error) {
	warn := func(err error) { r.Notice("warning: " + err.Error()) }
	var tools []*agents.Tool
	if r.opts.KBTools != nil {
		var err error
		if tools, err = r.opts.KBTools(sessionID, warn); err != nil {
			return nil, err
		}
	}
	if r.opts.MCP == nil {
		return tools, nil
	}
	servers, err := r.opts.MCP()
	if err != nil {
		return nil, err
	}
	ext, errs := servers.Tools(ctx, r.Policy)
	for _, err := range errs {
		warn(err)
	}
	return append(tools, ext...), nil
}

// OnClose adds what Close releases (last added, first released).
func (r *Run) OnClose(fn func()) { r.closers = append(r.closers, fn) }

// JobRunner is the run's runner of delegations for jobs whose events
// another process reports (a queue worker: the coordinator reports each
// delegation): a copy that emits none of its own.
func (r *Run) JobRunner() *agents.SubRunner {
	runner := *r.App.Runner
	runner.Events = nil
	return &runner
}

// Close releases what the run opened, last first.
func (r *Run) Close() {
	for i := len(r.closers) - 1; i >= 0; i-- {
		r.closers[i]()
	}
}

// Notice shows a line of yagent's own through the run's events.
func (r *Run) Notice(text string) {
	if r.opts.Events != nil {
		r.opts.Events.Emit(agents.Event{Type: agents.EventNotice, Time: r.opts.Now(), Agent: "yagent", Text: text})
	}
}

// Warn shows a non-fatal error as a notice; nil shows nothing.
func (r *Run) Warn(doing string, err error) {
	if err != nil {
		r.Notice(fmt.Sprintf("warning: %s: %v", doing, err))
	}
}

// WorkspaceDir is the workspace a directory names ("" = "."), resolved.
func WorkspaceDir(dir string) (string, error) {
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
