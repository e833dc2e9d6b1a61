package director

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/skills"
	"github.com/yagent/yagent/sleep"
)

// curation is the director's side of per-session tool curation.
type curation struct {
	store   *sleep.Store
	curator *sleep.Curator
	sched   *sleep.Scheduler
	cancel  context.CancelFunc

	mu sync.Mutex // guards due and pending: the scheduler reports from its goroutine
	// due is the in-memory copy of chats.next_sleep_at (nil: never
	// scheduled), read at open and kept current by the scheduler's OnDue,
	// so the due check of a turn makes no database query.
	due *time.Time
	// pending is true from a nudge until the scheduler reports the due
	// time it left: one nudge at a time.
	pending bool
}

// readProfile reads the session's tool profile (the zero profile when
// curation is off or the read fails, which is a notice).
func (d *Director) readProfile(ctx context.Context) sleep.Profile {
	if d.cur.store == nil {
		return sleep.Profile{}
	}
	p, err := d.cur.store.Profile(ctx, d.opts.Session.ID())
	if err != nil {
		d.warn("read the session's tool profile", err)
		return sleep.Profile{}
	}
	return p
}

func (d *Director) setupCuration() error {
	cfg := d.app.Config
	s := d.opts.Session
	st := &sleep.Store{DB: s.Store().DB, Now: d.now}
	cur := &sleep.Curator{
		Store: st, Config: cfg.ChatSleep, Toolsets: cfg.Toolsets, Registry: d.app.Registry,
		// The snapshot names the session's model; this session's own is
		// the director's client (--model included), so a raw model id
		// needs no alias.
		Client: func(name string) (llm.Client, string, error) {
			if name == d.modelName() {
				name = ""
			}
			return d.app.Client(name)
		},
		Spend: func(ctx context.Context, chatID string, u llm.Usage) {
			d.warn("record the curation's tokens", s.Store().AddSpend(ctx, chatID, "sleep", u))
		},
		Logf: func(format string, args ...any) { d.notice("warning: " + sprintf(format, args...)) },
	}
	d.cur = curation{store: st, curator: cur, sched: sleep.NewScheduler(cur), due: s.Info().NextSleepAt}
	d.cur.sched.OnRun = func(r sleep.Run, err error) {
		switch {
		case errors.Is(err, context.Canceled):
			// The session closed mid-sleep: it is due again after retry_after.
		case err != nil:
			d.notice("tool curation failed: " + err.Error())
		case r.Status == "ok" && len(r.Added)+len(r.Removed) > 0:
			d.notice("tool curation: " + r.Summary() + " (from the next turn)")
		}
	}
	d.cur.sched.OnDue = func(_ string, due *time.Time, ok bool) {
		d.cur.mu.Lock()
		defer d.cur.mu.Unlock()
		if ok {
			d.cur.due = due
		}
		d.cur.pending = false
	}
	for _, w := range cur.UnknownCore() {
		d.notice("warning: " + w)
	}
	// The curation tools act on the running turn, which the call's
	// context carries; outside a turn nothing is hidden or loaded.
	hidden := func(ctx context.Context) []*agents.Tool {
		if t := turnOf(ctx); t != nil {
			return t.hidden
		}
		return nil
	}
	loaded := func(ctx context.Context) *agents.Loaded {
		if t := turnOf(ctx); t != nil {
			return t.loaded
		}
		return &agents.Loaded{}
	}
	count := func(ctx context.Context, name string) {
		d.warn("count the tool_load of "+name, st.RecordLoad(context.WithoutCancel(ctx), s.ID(), name))
	}
	for _, t := range []*agents.Tool{sleep.FindTool(hidden), sleep.LoadTool(hidden, loaded, count), sleep.StartTool(cur, s.ID, d.notice)} {
		if err := d.app.Registry.Add(t); err != nil {
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
	return !slices.Contains(d.app.Config.ChatSleep.SkipKinds, d.opts.Session.Info().Kind)
}

// curatedTools splits the reachable tools into those in the request, those
// only in the catalogue (hidden) and the catalogue text, with
// sleep.TurnSplit — the function `yagent tools profile` counts with.
// tool_find and tool_load are there only when something is hidden. It has
// no side effects: Turn keeps the hidden list for tool_load.
func (d *Director) curatedTools(p sleep.Profile, g agents.Gates) (in, hidden []*agents.Tool, catalogue string) {
	cfg := d.app.Config
	in, hidden = sleep.TurnSplit(p, d.app.Registry.Reachable(g), cfg.ChatSleep.Tools.Core, cfg.Toolsets, d.curationApplies())
	if len(hidden) == 0 {
		return in, nil, ""
	}
	return in, hidden, sleep.Catalogue(hidden, cfg.Toolsets, sleep.CatalogueLimit(d.modelWindow()))
}

// CheckSleep nudges the scheduler when the session's curation is due. The
// due time is read from memory — kept current by the scheduler after every
// nudge it serves — so the check makes no database query, and the turn
// never waits. Turn calls it at entry (the first message after the due
// time); a long-lived chat also calls it after every turn, so a session
// that becomes due while it is open is curated between turns. One nudge at
// a time: a nudge in flight is not repeated.
func (d *Director) CheckSleep() {
	if d.cur.sched == nil || !d.curationApplies() {
		return
	}
	d.cur.mu.Lock()
	defer d.cur.mu.Unlock()
	if d.cur.pending {
		return
	}
	if due := d.cur.due; due == nil || !d.now().Before(*due) {
		d.cur.pending = d.cur.sched.Nudge(d.opts.Session.ID())
	}
}

// now is the session store's clock (tests move it).
func (d *Director) now() time.Time { return d.opts.Session.Store().Now() }

// modelName is the session's model as the person named it (--model), or
// "default": what the environment snapshot records and a later curation
// asks for.
func (d *Director) modelName() string {
	if d.opts.Model != "" {
		return d.opts.Model
	}
	return "default"
}

// modelWindow is the context window of the session's model (models.NAME
// when --model names one, else models.default's).
func (d *Director) modelWindow() int {
	cfg := d.app.Config
	m, err := cfg.Model(d.opts.Model)
	if err != nil {
		m, _ = cfg.Model("default")
	}
	return m.ContextWindow
}

// recordTurn stores the turn's tool statistics and, only when access,
// gates or model changed, the environment snapshot (gates OR-accumulated
// over the curation cycle; access and model from this turn). The stored
// snapshot is read again every time, after the turn: a curation — in this
// process or another — resets its gates, and a copy kept in memory would
// then never write them back (the next cycle would lose MasterOnly tools).
func (d *Director) recordTurn(ctx context.Context, turn int, g agents.Gates, out *agents.Outcome) {
	if d.cur.store == nil {
		return
	}
	id := d.opts.Session.ID()
	calls := map[string]int{}
	for _, m := range out.Messages {
		for _, c := range m.ToolCalls {
			calls[c.Name]++
			if name := skillCalled(c); name != "" {
				calls["skill:"+name]++
			}
		}
	}
	d.warn("record the turn's tool statistics", d.cur.store.RecordTurn(ctx, id, sleep.TurnRecord{Turn: turn, Messages: len(out.Messages), Calls: calls}))
	access := ""
	if d.opts.Toolset != "" {
		access = "set:" + d.opts.Toolset
	}
	old, ok, err := d.cur.store.LoadEnv(ctx, id)
	if err != nil {
		d.warn("read the tool curation's snapshot", err)
		return
	}
	env := sleep.Env{Access: access, Gates: sleep.GatesOf(g), Model: d.modelName(), Window: d.modelWindow()}
	if ok {
		env.Gates |= old.Gates
	}
	if !ok || old != env {
		if err := d.cur.store.SaveEnv(ctx, id, env); err != nil {
			d.warn("save the tool curation's snapshot", err)
		}
	}
}

// skillCalled is the skill a call of the skill tool loaded or read from
// ("" for any other call): curation counts a skill's use as a tool's,
// under skill:NAME.
func skillCalled(c llm.ToolCall) string {
	if c.Name != "skill" {
		return ""
	}
	var in struct {
		Name string `json:"name"`
	}
	if json.Unmarshal([]byte(c.Arguments), &in) != nil || skills.ValidName(in.Name) != nil {
		return ""
	}
	return in.Name
}

// Curator returns the session's curator (nil when chat_sleep is off).
func (d *Director) Curator() *sleep.Curator { return d.cur.curator }

// SleepStore returns the curation's tables (nil when chat_sleep is off).
func (d *Director) SleepStore() *sleep.Store { return d.cur.store }
