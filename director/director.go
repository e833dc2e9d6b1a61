package director

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/app"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/budget"
	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/memory"
	"github.com/yagent/yagent/notebook"
	"github.com/yagent/yagent/sleep"
	"github.com/yagent/yagent/telemetry"
)

// Options are what a session's director is built from.
type Options struct {
	// Session is the conversation: its history, rollout and spend. Each
	// delegation gets a sub-agent session of its own under it.
	Session *memory.Session
	// Interactive is a person's session (yagent chat, the TUI): a spent
	// budget asks to be raised; a headless one (run, resume, batch) stops.
	Interactive bool
	// BoardID is the session's board ("" = the session's own; see
	// agents.SetBoardScope).
	BoardID string
	// Toolset, when set, names a toolset (config toolsets:) that limits
	// the lead's tools; tool curation does not apply then.
	Toolset string
	// Model is the session's model as the person named it (--model: a
	// name under models: or a model id); "" = models.default. Client("")
	// resolves it; the curation's environment snapshot records it, so a
	// sleep run later, from any process, asks the session's own model.
	Model string
}

// ErrUnknownToolset reports a toolset (--toolset) that the configuration
// does not define: the person's mistake.
var ErrUnknownToolset = errors.New("is not configured")

// CheckToolset reports whether name ("" = none) is a toolset of cfg, with
// an ErrUnknownToolset that says how to define it. New calls it; a command
// calls it first to refuse before anything is opened.
func CheckToolset(cfg *config.Config, name string) error {
	if _, ok := cfg.Toolsets[name]; name != "" && !ok {
		return fmt.Errorf("--toolset %q %w: add it under toolsets: in the configuration", name, ErrUnknownToolset)
	}
	return nil
}

// Director is the lead of a session: it talks to the person, delegates, and
// keeps the conversation's history. It runs on an assembled App (the
// workspace, registry, catalog, clients, policy and runner of delegations)
// and adds what only a lead has: the session, the notebook, delegate and
// tool curation.
type Director struct {
	app       *app.App
	opts      Options
	client    llm.Client
	model     string
	delegator *Delegator
	system    string
	cps       *checkpointer // nil: no home, no checkpoints

	// State, when set, contributes extra [state] lines (the notebook)
	// after the [window] line, before the board index.
	State func(ctx context.Context) (string, error)

	// book is the lead's notebook (nil when notes.enabled is false).
	book *notebook.Book

	cur curation // tool curation ("sleep"); zero when chat_sleep is off

	// raise asks the person to raise a spent budget (interactive
	// sessions; raiser).
	raise     *budget.Raiser
	raiseOnce sync.Once

	bg backgrounds // background delegations (background.go)

	// pending is SessionStart hooks' context for the next turn (hooks.go).
	pending pendingContext
}

// New builds a session's director over a: it registers the notebook and
// delegate tools in a's registry (one director per App), books the
// sub-agents' spend to the session, and builds the stable prompt. Close
// the director before the App.
func New(a *app.App, opts Options) (*Director, error) {
	cfg := a.Config
	if opts.Session == nil {
		return nil, fmt.Errorf("director: no session")
	}
	if err := CheckToolset(cfg, opts.Toolset); err != nil {
		return nil, err
	}
	if opts.BoardID == "" {
		opts.BoardID = opts.Session.BoardID()
	}
	var book *notebook.Book
	if cfg.Notes.Enabled {
		book = notebook.Open(opts.Session.Store().DB, opts.Session.ID(), cfg.Notes)
		for _, t := range book.Tools(func(e notebook.Event) {
			if a.Events != nil {
				a.Events.Emit(agents.Event{Type: agents.EventNoteSaved, Time: time.Now(), Agent: "director",
					Note: &agents.NoteEvent{Action: e.Action, Name: e.Name, Description: e.Description, Body: e.Body, PrevBody: e.PrevBody}})
			}
		}) {
			if err := a.Registry.Add(t); err != nil {
				return nil, err
			}
		}
	}
	ag := cfg.Agents
	del := NewDelegator(a.Runner, Guards{MaxParallel: ag.MaxParallelDelegations, MaxPerTurn: ag.MaxDelegationsPerTurn, MaxDepth: ag.MaxDepth}, a.Events)
	var cps *checkpointer
	if cfg.Agents.Checkpoints {
		cps = newCheckpointer(cfg.Home, a.Workspace.Dir(), opts.Session.ID(), a.Board)
	}
	if cps != nil {
		cps.maxBytes = cfg.Agents.IsolationMaxBytes
	}
	for _, t := range append([]*agents.Tool{del.Tool(1), del.FollowUpTool()}, ChangeTools(a, cps)...) {
		if err := a.Registry.Add(t); err != nil {
			return nil, err
		}
	}
	rules := ""
	if book != nil {
		rules = notebook.Rules()
	}
	d := &Director{
		app: a, opts: opts, delegator: del, cps: cps,
		system: SystemPrompt(a.Workspace.Dir(), a.Catalog, rules, a.Project), book: book,
	}
	a.Runner.Recorder = d.subRecorder(opts.Session)
	del.Background = d.background
	for _, t := range d.backgroundTools() {
		if err := a.Registry.Add(t); err != nil {
			return nil, err
		}
	}
	if cps != nil {
		cps.notice = d.notice
		del.Around = d.aroundDelegation
	}
	if cfg.ChatSleep.Enabled {
		if err := d.setupCuration(); err != nil {
			return nil, err
		}
	}
	// A window that cannot hold the stable prefix is a configuration
	// error, found now rather than at the first request.
	if ft := d.newFitter(opts.Session, "the director", "", opts.Session.Info().Kind); ft.window > 0 {
		if prefix := d.prefixTokens(); prefix >= ft.window {
			d.Close()
			return nil, ft.prefixError(prefix)
		}
	}
	return d, nil
}

// Close stops background sleeps (a sleep cut short loses nothing: its
// capture moved the due time, it runs again later) and leaves the
// background delegations still running to the next resume (detach). The
// App stays open: its owner closes it.
func (d *Director) Close() error {
	d.bg.detach()
	if d.cur.cancel != nil {
		d.cur.cancel()
		d.cur.sched.Wait()
	}
	return nil
}

// SubRunner returns the runner of delegations.
func (d *Director) SubRunner() *agents.SubRunner { return d.delegator.Runner }

// Agent returns the director as a turn starting now would run with the
// given gates: the reachable tools minus what curation hides (listed in the
// catalogue at the end of the stable prefix, loadable with tool_load).
func (d *Director) Agent(g agents.Gates) *agents.Agent {
	t := &turnState{loaded: &agents.Loaded{}, profile: d.readProfile(context.Background())}
	return d.agent(t, g)
}

// agent builds the turn's agent and keeps its hidden tools in t.
func (d *Director) agent(t *turnState, g agents.Gates) *agents.Agent {
	if d.opts.Toolset != "" {
		g.Allow = d.app.Config.Toolsets[d.opts.Toolset]
	}
	in, hidden, catalogue := d.curatedTools(t.profile, g)
	t.hidden = hidden
	return &agents.Agent{Name: "director", System: agents.SystemPrompt(d.system, catalogue), Tools: in, Model: d.model, MaxSteps: d.app.Config.Agents.MaxSteps, Loaded: t.loaded}
}

// turnState is what one turn owns (codex's TurnContext, adk's
// InvocationContext): made by Turn, reached through the turn's context
// (the tail, the pressure line and the curation tools read it), gone when
// the turn ends. Nothing of a turn stays on the long-lived Director.
type turnState struct {
	fit  *fitter       // keeps the turn's requests inside the window
	mode notebook.Mode // the notebook's mode, fixed for the turn
	// profile is the session's tool profile read at turn entry (a sleep's
	// curation applies from the next turn on, never in the running one).
	profile sleep.Profile
	hidden  []*agents.Tool // the turn's hidden tools (tool_find, tool_load)
	loaded  *agents.Loaded // tools brought back in the turn
	// shown are the finished background delegations the request being
	// sent lists; a response to it marks them seen (markShown).
	shown []string
	// mail are the mailbox messages that request shows (markShown
	// marks them read).
	mail []string
}

type turnKey struct{}

func withTurn(ctx context.Context, t *turnState) context.Context {
	return context.WithValue(ctx, turnKey{}, t)
}

// turnOf is the running turn of ctx; nil outside a turn.
func turnOf(ctx context.Context) *turnState {
	t, _ := ctx.Value(turnKey{}).(*turnState)
	return t
}

// Turn runs one master turn: the person's input, the director's work, its
// answer. Before it, history over the compaction budget is compacted; every
// message is recorded as it happens; the turn's start and end are synced.
func (d *Director) Turn(ctx context.Context, input string) (outcome *agents.Outcome, err error) {
	s := d.opts.Session
	if d.client == nil {
		// The model is resolved at the first turn, so commands that only
		// inspect a session (yagent tools profile) need no endpoint.
		if d.client, d.model, err = d.app.Client(""); err != nil {
			return &agents.Outcome{Reason: agents.ReasonError}, err
		}
	}
	ctx, sp := telemetry.StartAgent(ctx, "director", d.model, 0, s.ID())
	if sp != nil {
		defer func() { endTurnSpan(sp, input, outcome, err) }()
	}
	// The person's UserPromptSubmit hooks see the prompt first: a block
	// erases it before anything is recorded or sent.
	sent, err := d.userPromptSubmit(ctx, input)
	if err != nil {
		return &agents.Outcome{Reason: agents.ReasonError}, err
	}
	d.delegator.StartTurn()
	t := &turnState{fit: d.newFitter(s, "director", "", s.Info().Kind), loaded: &agents.Loaded{}}
	ctx = withTurn(ctx, t)
	// Every model call of the turn, its delegations' too, is checked
	// against the run's budget, summed over the session's turns and
	// processes in the state database.
	ctx = d.withBudget(ctx)
	if r := d.raiser(); r != nil {
		r.Forget() // a refusal of the last turn is asked again
	}
	if d.compactionDue() {
		if _, err := d.compact(ctx, "auto"); err != nil && !errors.Is(err, memory.ErrNothingToCompact) {
			d.notice(err.Error())
		}
	}
	// SessionStart's context (the session opened, or was compacted just
	// now) comes with this turn's message.
	sent = withHookContext(sent, d.pending.take())
	turn, err := s.BeginTurn(ctx, input)
	if err != nil {
		return &agents.Outcome{Reason: agents.ReasonError}, err
	}
	// The workspace as the turn found it: taken while the first request
	// is out, waited for before the first tool runs.
	taking := d.cps.start(ctx, turnCheckpoint(turn))
	checkpoint := sync.OnceFunc(func() { d.warn("take the checkpoint of turn "+strconv.Itoa(turn), taking()) })
	// The profile is read before the nudge: a sleep it starts applies from
	// the next turn, never to this one.
	t.profile = d.readProfile(ctx)
	d.CheckSleep()
	gates := agents.Gates{Master: true}
	if d.book != nil {
		if t.mode, err = d.book.EnterTurn(ctx); err != nil {
			return &agents.Outcome{Reason: agents.ReasonError}, err
		}
		gates.NotesIndexed = t.mode == notebook.Index
	}
	cfg := d.app.Config.Agents
	loop := &agents.Loop{
		Client: d.client, Events: beforeTools(d.app.Events, checkpoint), Tail: d.Tail, TailRole: llm.Role(cfg.TailRole),
		ParallelTools: cfg.ParallelTools, StallRepeats: cfg.StallRepeats, Append: s.Append,
		OnResponse: func(resp llm.Response) {
			d.warn("record the answer's window use", s.Observe(resp))
			d.warn("record the answer's tokens", s.RecordUsage(ctx, "turn", resp.Usage))
			d.markShown(t)
		},
		Fit:   t.fit.fit,
		Hooks: d.app.Hooks, HookBase: d.hookBase(""),
	}
	bctx := blackboard.WithBoardID(ctx, d.opts.BoardID)
	agent := d.agent(t, gates)
	out, runErr := loop.Run(bctx, agent, s.History(), llm.Message{Role: llm.RoleUser, Content: sent})
	checkpoint() // a turn without tools waits here
	d.warn("take the checkpoint of what the turn left", d.cps.take(context.WithoutCancel(ctx), latestCheckpoint))
	// The end of a turn is recorded even when it was cancelled, with a
	// context that still works.
	if err := s.EndTurn(context.WithoutCancel(ctx), turn, out.Reason); err != nil && runErr == nil {
		runErr = err
	}
	d.recordTurn(context.WithoutCancel(ctx), turn, gates, out)
	if runErr == nil {
		d.rebuildNotebook(ctx, turn) // after the answer; it never fails the turn
	}
	return out, runErr
}

func (d *Director) notice(text string) {
	if d.app.Events != nil {
		d.app.Events.Emit(agents.Event{Type: agents.EventNotice, Time: time.Now(), Agent: "director", Text: text})
	}
}

// warn shows a failure that must not end the turn — a bookkeeping record
// (spend, a nudge mark, curation statistics) that could not be written —
// as a notice: never dropped, never fatal. nil shows nothing.
func (d *Director) warn(doing string, err error) {
	if err != nil {
		d.notice(fmt.Sprintf("warning: could not %s: %v", doing, err))
	}
}
