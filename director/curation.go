package director

import (
	"context"
	"slices"
	"time"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/memory"
	"github.com/yagent/yagent/sleep"
)

// curation is the director's side of per-session tool curation.
type curation struct {
	store   *sleep.Store
	curator *sleep.Curator
	sched   *sleep.Scheduler
	cancel  context.CancelFunc

	turnCtx context.Context
	profile sleep.Profile  // read at turn entry
	hidden  []*agents.Tool // the running turn's hidden tools
	loaded  *agents.Loaded // tools brought back in the running turn
	env     *sleep.Env     // the last snapshot written (nil: none yet)
	envRead bool
	due     *time.Time // in-memory copy of chats.next_sleep_at
	nudged  bool
}

// enterTurn reads the session's tool profile for the turn (the curation
// of a sleep applies from the next turn on, never in the running one).
func (d *Director) enterTurn(ctx context.Context) {
	d.cur.turnCtx = ctx
	d.cur.loaded = &agents.Loaded{}
	if d.cur.store == nil {
		return
	}
	p, err := d.cur.store.Profile(ctx, d.opts.Session.ID())
	if err != nil {
		d.warn("read the session's tool profile", err)
		return
	}
	d.cur.profile = p
}

func (d *Director) setupCuration() error {
	cfg := d.opts.Config
	s := d.opts.Session
	st := &sleep.Store{DB: s.Store().DB, Now: s.Store().Now}
	cur := &sleep.Curator{
		Store: st, Config: cfg.ChatSleep, Toolsets: cfg.Toolsets, Registry: d.reg, Client: d.opts.Client,
		Spend: func(ctx context.Context, chatID string, u llm.Usage) {
			d.warn("record the curation's tokens", s.Store().AddSpend(ctx, chatID, memory.SpendRow{Label: "sleep", Requests: 1, PromptTokens: u.PromptTokens,
				CachedTokens: u.CachedPromptTokens, CompletionTokens: u.CompletionTokens}))
		},
		Logf: func(format string, args ...any) { d.notice("warning: " + sprintf(format, args...)) },
	}
	d.cur = curation{store: st, curator: cur, sched: sleep.NewScheduler(cur), due: s.Info().NextSleepAt, loaded: &agents.Loaded{}}
	d.cur.sched.OnRun = func(r sleep.Run, err error) {
		if err != nil {
			d.notice("tool curation failed: " + err.Error())
		} else if r.Status == "ok" && len(r.Added)+len(r.Removed) > 0 {
			d.notice("tool curation: " + r.Summary() + " (from the next turn)")
		}
	}
	hidden := func() []*agents.Tool { return d.cur.hidden }
	loaded := func() *agents.Loaded { return d.cur.loaded }
	count := func(name string) {
		if d.cur.turnCtx != nil { // tool_load runs only inside a turn
			d.warn("count the tool_load of "+name, st.RecordLoad(context.WithoutCancel(d.cur.turnCtx), s.ID(), name))
		}
	}
	for _, t := range []*agents.Tool{sleep.FindTool(hidden), sleep.LoadTool(hidden, loaded, count), sleep.StartTool(cur, s.ID, d.notice)} {
		if err := d.reg.Add(t); err != nil {
			return err
		}
	}
	return nil
}

// Start runs the background scheduler of curation until Close.
func (d *Director) Start(ctx context.Context) {
	if d.cur.sched == nil {
		return
	}
	ctx, d.cur.cancel = context.WithCancel(ctx)
	d.cur.sched.Start(ctx)
}

func (d *Director) curationApplies() bool {
	if d.cur.store == nil || d.opts.Toolset != "" {
		return false
	}
	return !slices.Contains(d.opts.Config.ChatSleep.SkipKinds, d.opts.Session.Info().Kind)
}

// curatedTools splits the reachable tools into those in the request, those
// only in the catalogue (hidden) and the catalogue text. tool_find and
// tool_load are there only when something is hidden. It has no side
// effects: Turn keeps the hidden list for tool_load.
func (d *Director) curatedTools(g agents.Gates) (in, hidden []*agents.Tool, catalogue string) {
	reachable := d.reg.Reachable(g)
	if !d.curationApplies() {
		return withoutCuration(reachable), nil, ""
	}
	cfg := d.opts.Config
	in, hidden = sleep.Split(d.cur.profile, reachable, cfg.ChatSleep.Tools.Core, cfg.Toolsets)
	if len(hidden) == 0 {
		return withoutCuration(in), nil, ""
	}
	window, _ := d.window()
	return in, hidden, sleep.Catalogue(hidden, cfg.Toolsets, sleep.CatalogueLimit(window))
}

// withoutCuration drops tool_find and tool_load: with nothing hidden they
// would only cost room.
func withoutCuration(tools []*agents.Tool) []*agents.Tool {
	return slices.DeleteFunc(slices.Clone(tools), func(t *agents.Tool) bool { return slices.Contains(sleep.Always, t.Name) })
}

// nudgeSleep sends a nudge when the session's curation is due: an
// in-memory check, no database query, and the turn never waits.
func (d *Director) nudgeSleep() {
	if d.cur.sched == nil || d.cur.nudged || !d.curationApplies() {
		return
	}
	if due := d.cur.due; due == nil || !time.Now().Before(*due) {
		d.cur.nudged = d.cur.sched.Nudge(d.opts.Session.ID())
	}
}

// recordTurn stores the turn's tool statistics and, only when access,
// gates or model changed, the environment snapshot (gates OR-accumulated
// over the curation cycle; access and model from this turn).
func (d *Director) recordTurn(ctx context.Context, turn int, g agents.Gates, out *agents.Outcome) {
	if d.cur.store == nil {
		return
	}
	id := d.opts.Session.ID()
	calls := map[string]int{}
	for _, m := range out.Messages {
		for _, c := range m.ToolCalls {
			calls[c.Name]++
		}
	}
	d.warn("record the turn's tool statistics", d.cur.store.RecordTurn(ctx, id, sleep.TurnRecord{Turn: turn, Messages: len(out.Messages), Calls: calls}))
	window, _ := d.window()
	access := ""
	if d.opts.Toolset != "" {
		access = "set:" + d.opts.Toolset
	}
	if !d.cur.envRead {
		d.cur.envRead = true
		env, ok, err := d.cur.store.LoadEnv(ctx, id)
		d.warn("read the session's last environment snapshot", err)
		if err == nil && ok {
			d.cur.env = &env
		}
	}
	env := sleep.Env{Access: access, Gates: sleep.GatesOf(g), Model: "", Window: window}
	if d.cur.env != nil {
		env.Gates |= d.cur.env.Gates
	}
	if d.cur.env == nil || *d.cur.env != env {
		err := d.cur.store.SaveEnv(ctx, id, env)
		d.warn("record the session's environment snapshot", err)
		if err == nil {
			d.cur.env = &env
		}
	}
}

// Curator returns the session's curator (nil when chat_sleep is off).
func (d *Director) Curator() *sleep.Curator { return d.cur.curator }

// SleepStore returns the curation's tables (nil when chat_sleep is off).
func (d *Director) SleepStore() *sleep.Store { return d.cur.store }
