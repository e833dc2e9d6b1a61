package sleep

import (
	"context"
	"database/sql"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/internal/prompt"
	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/toolspec"
)

//go:embed prompts/*.md
var promptFS embed.FS

// Gate bits of the environment snapshot.
const (
	GateMaster = 1 << iota
	GateNotesIndexed
)

// GatesOf encodes a turn's gates.
func GatesOf(g agents.Gates) int {
	bits := 0
	if g.Master {
		bits |= GateMaster
	}
	if g.NotesIndexed {
		bits |= GateNotesIndexed
	}
	return bits
}

// GatesFrom decodes the accumulated gates: a tool reachable under any gate
// seen in the cycle counts as reachable.
func GatesFrom(bits int) []agents.Gates {
	out := []agents.Gates{{Master: bits&GateMaster != 0}}
	if bits&GateNotesIndexed != 0 {
		out = append(out, agents.Gates{Master: bits&GateMaster != 0, NotesIndexed: true})
	}
	return out
}

// Curator runs the tools stage of a session's sleep.
type Curator struct {
	Store    *Store
	Config   config.ChatSleep
	Toolsets map[string][]string
	Registry *agents.Registry
	// Client resolves a model name ("" = the default) to a client.
	Client agents.ClientFunc
	// Spend records tokens under the label "sleep".
	Spend func(ctx context.Context, chatID string, u llm.Usage)
	// Logf receives warnings the person should see (a bookkeeping write
	// that failed); the director shows them as notices.
	Logf func(format string, args ...any)

	mu      sync.Mutex
	running map[string]bool
}

// Options of one run.
type Options struct {
	DryRun bool
	// Manual runs (chat_sleep_start, yagent sleep) do not wait for the due
	// time, but keep every threshold and the latch.
	Manual bool
	// Progress receives phases as they happen.
	Progress func(string)
}

// ErrRunning is returned when a sleep of the session is already running.
var ErrRunning = errors.New("a sleep of this session is already running")

// UnknownCore returns a warning for every chat_sleep.tools.core name that
// is no tool at all — neither in the registry nor a built-in switched off
// by the configuration (chat_note_save with notes.enabled: false): a typo
// protects nothing, silently. The director shows them when a session
// opens, so run, chat, sleep and tools profile all say so.
func (c *Curator) UnknownCore() []string {
	var out []string
	for _, n := range c.Config.Tools.Core {
		if _, ok := c.Registry.Get(n); ok || slices.Contains(Always, n) {
			continue
		}
		if _, builtin := toolspec.Lookup(n); builtin {
			continue
		}
		out = append(out, fmt.Sprintf("chat_sleep.tools.core names %q, which is not a tool: check the spelling (it protects nothing)", n))
	}
	return out
}

// capture takes the session for a sleep with one UPDATE that also moves
// its due time by retry_after: duplicate nudges, a nudge during a sleep
// and a crash mid-sleep are all covered by it. A dry run only asks whether
// it could (the same conditions, read): it writes nothing but its journal
// entry (seed 001), so it neither holds the latch nor moves the schedule.
func (c *Curator) capture(ctx context.Context, chatID string, manual, dry bool) (bool, error) {
	now := c.Store.Now().UTC()
	retry := c.Config.RetryAfter.D()
	cond := `id = ? AND deleted = 0 AND (sleep_started IS NULL OR sleep_started < ?)`
	args := []any{chatID, now.Add(-retry).UnixMilli()}
	if !manual {
		cond += ` AND next_sleep_at IS NOT NULL AND next_sleep_at <= ?`
		args = append(args, now.UnixMilli())
	}
	if dry {
		var n int
		if err := c.Store.DB.QueryRowContext(ctx, `SELECT COUNT(*) FROM chats WHERE `+cond, args...).Scan(&n); err != nil {
			return false, fmt.Errorf("check the session for a dry run: %w", err)
		}
		return n == 1, nil
	}
	res, err := c.Store.DB.ExecContext(ctx, `UPDATE chats SET sleep_started = ?, next_sleep_at = ? WHERE `+cond,
		append([]any{now.UnixMilli(), now.Add(retry).UnixMilli()}, args...)...)
	if err != nil {
		return false, fmt.Errorf("capture the session for a sleep: %w", err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// release ends a sleep. A sleep that came to an outcome (journaled ok,
// skipped, dropped or failed) is next due an interval from now; one cut
// short — cancelled at the end of a one-shot run, or an error before any
// outcome — keeps the due time its capture set, retry_after from the
// capture, exactly like a crash. A failure to write leaves the latch set
// until retry_after passes: the session is curated again then, so it is a
// warning, not an error of the run.
func (c *Curator) release(ctx context.Context, chatID string, completed bool) {
	q, args := `UPDATE chats SET sleep_started = NULL WHERE id = ?`, []any{chatID}
	if completed {
		next := c.Store.Now().UTC().Add(c.Config.Interval.D())
		q, args = `UPDATE chats SET sleep_started = NULL, next_sleep_at = ? WHERE id = ?`, []any{next.UnixMilli(), chatID}
	}
	if _, err := c.Store.DB.ExecContext(context.WithoutCancel(ctx), q, args...); err != nil {
		c.logf("ending the sleep of %s: %v (it is retried after chat_sleep.retry_after)", chatID, err)
	}
}

// Due returns a session's due time (nil: never scheduled). The scheduler
// reads it after every nudge it served, off the hot path, so the director
// can keep its in-memory copy current.
func (c *Curator) Due(ctx context.Context, chatID string) (*time.Time, error) {
	var due sql.NullInt64
	if err := c.Store.DB.QueryRowContext(ctx, `SELECT next_sleep_at FROM chats WHERE id = ?`, chatID).Scan(&due); err != nil {
		return nil, fmt.Errorf("the due time of %s: %w", chatID, err)
	}
	if !due.Valid {
		return nil, nil
	}
	t := time.UnixMilli(due.Int64).UTC()
	return &t, nil
}

// logf reports a warning through Logf, when set.
func (c *Curator) logf(format string, args ...any) {
	if c.Logf != nil {
		c.Logf(format, args...)
	}
}

// SetDueIfUnset gives a session never scheduled its first due time; it
// reports whether it did (the first nudge of such a session only does this).
func (c *Curator) SetDueIfUnset(ctx context.Context, chatID string) (bool, error) {
	next := c.Store.Now().UTC().Add(c.Config.Interval.D())
	res, err := c.Store.DB.ExecContext(ctx, `UPDATE chats SET next_sleep_at = ? WHERE id = ? AND next_sleep_at IS NULL`, next.UnixMilli(), chatID)
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// Run runs the tools stage for a session and journals the outcome. It
// calls no model and spends nothing when a threshold says no.
func (c *Curator) Run(ctx context.Context, chatID string, o Options) (Run, error) {
	progress := func(s string) {
		if o.Progress != nil {
			o.Progress(s)
		}
	}
	c.mu.Lock()
	if c.running == nil {
		c.running = map[string]bool{}
	}
	if c.running[chatID] {
		c.mu.Unlock()
		return Run{}, ErrRunning
	}
	c.running[chatID] = true
	c.mu.Unlock()
	defer func() { c.mu.Lock(); delete(c.running, chatID); c.mu.Unlock() }()

	ok, err := c.capture(ctx, chatID, o.Manual, o.DryRun)
	if err != nil {
		return Run{}, err
	}
	if !ok {
		if o.Manual {
			return Run{}, ErrRunning
		}
		return Run{Status: "skipped", Reason: "not due"}, nil
	}
	completed := false
	if !o.DryRun { // a dry run took nothing: nothing to release
		defer func() { c.release(ctx, chatID, completed) }()
	}
	run := Run{ChatID: chatID, Started: c.Store.Now().UTC(), DryRun: o.DryRun}
	finish := func(status, reason string) (Run, error) {
		run.Status, run.Reason, run.Finished = status, reason, c.Store.Now().UTC()
		if err := c.Store.journal(context.WithoutCancel(ctx), run); err != nil {
			return run, err
		}
		completed = status != "cancelled"
		progress(fmt.Sprintf("sleep %s: %s (%s)", status, reason, run.Summary()))
		return run, nil
	}
	progress("checking whether the tools still fit")
	var kind string
	var lastOK sql.NullInt64
	if err := c.Store.DB.QueryRowContext(ctx, `SELECT kind FROM chats WHERE id = ?`, chatID).Scan(&kind); err != nil {
		return run, fmt.Errorf("sleep: session %s: %w", chatID, err)
	}
	if slices.Contains(c.Config.SkipKinds, kind) {
		return finish("skipped", fmt.Sprintf("sessions of kind %s are not curated (chat_sleep.skip_kinds)", kind))
	}
	if !o.Manual {
		if err := c.Store.DB.QueryRowContext(ctx, `SELECT MAX(finished) FROM sleep_runs WHERE chat_id = ? AND status = 'ok' AND dry_run = 0`, chatID).Scan(&lastOK); err != nil {
			return run, fmt.Errorf("sleep: the journal of %s: %w", chatID, err)
		}
		if lastOK.Valid && run.Started.Sub(time.UnixMilli(lastOK.Int64)) < c.Config.MinGap.D() {
			return finish("skipped", "the last curation is more recent than chat_sleep.min_gap")
		}
	}
	env, ok, err := c.Store.LoadEnv(ctx, chatID)
	if err != nil {
		return run, err
	}
	if !ok {
		return finish("skipped", "the session has not run a turn yet (no environment snapshot)")
	}
	if env.Access != "" {
		return finish("skipped", "an explicit toolset is active ("+env.Access+")")
	}
	reachable := c.reachable(env.Gates, "")
	cost := llm.EstimateTokens(nil, agents.Defs(reachable))
	budget := int(float64(env.Window) * c.Config.Tools.BudgetPercent / 100)
	if cost <= budget {
		return finish("skipped", fmt.Sprintf("the reachable tools fit: %d tokens of schemas within the budget of %d", cost, budget))
	}
	profile, err := c.Store.Profile(ctx, chatID)
	if err != nil {
		return run, err
	}
	table, err := c.Store.Stats(ctx, chatID, agents.Names(reachable), c.Config.Tools.Windows, c.Config.Tools.ThinTurns, profile.LastCurated)
	if err != nil {
		return run, err
	}
	if table.TotalTurns < c.Config.Tools.MinTurns {
		return finish("skipped", fmt.Sprintf("too little data: %d turns, chat_sleep.tools.min_turns is %d", table.TotalTurns, c.Config.Tools.MinTurns))
	}
	progress(fmt.Sprintf("asking the model (%d tools, %d tokens of schemas, budget %d)", len(reachable), cost, budget))
	proposed, reason, usage, err := c.ask(ctx, env, profile, reachable, table, cost, budget)
	if c.Spend != nil && usage.PromptTokens+usage.CompletionTokens > 0 {
		c.Spend(context.WithoutCancel(ctx), chatID, usage) // a call cut short still cost what it cost
	}
	if err != nil && ctx.Err() != nil {
		// Cut short (the end of a one-shot run): not a failure of the
		// curation. It is due again retry_after from the capture.
		if _, jerr := finish("cancelled", fmt.Sprintf("cut short (%v); retried after chat_sleep.retry_after", ctx.Err())); jerr != nil {
			return run, jerr
		}
		return run, ctx.Err()
	}
	if err != nil {
		return finish("failed", err.Error())
	}
	plan, err := ApplySafeguards(PlanInput{Reachable: reachable, Old: profile, Proposed: proposed, Table: table,
		Core: c.Config.Tools.Core, Toolsets: c.Toolsets, MaxHide: c.Config.Tools.MaxHidePerNight})
	planJSON, _ := json.Marshal(map[string]any{"visible": proposed, "reason": reason, "notes": plan.Notes})
	run.Plan = string(planJSON)
	if err != nil {
		return finish("failed", err.Error())
	}
	run.Added, run.Removed = plan.Added, plan.Removed
	if plan.Status == "dropped" {
		return finish("dropped", strings.Join(plan.Notes, "; "))
	}
	if plan.Status == "unchanged" {
		return finish("ok", "no change: "+reason)
	}
	if o.DryRun {
		return finish("ok", "dry run, nothing applied: "+reason)
	}
	profile.Visible, profile.Curated, profile.LastCurated = plan.Visible, true, c.Store.Now().UTC()
	if err := c.Store.SaveProfile(ctx, chatID, profile); err != nil {
		return run, err
	}
	// A new cycle: the gates accumulate afresh from the next turn. The
	// master bit stays — every turn of the lead is the person's — or until
	// that turn (a second sleep, tools profile) the MasterOnly tools would
	// not count as reachable, and a plan made then would hide them.
	env.Gates &= GateMaster
	if err := c.Store.SaveEnv(ctx, chatID, env); err != nil {
		// The next turn writes the snapshot again; until then the old
		// gates count, which only widens what is reachable.
		c.logf("resetting the gates of %s after its curation: %v", chatID, err)
	}
	return finish("ok", reason)
}

// reachable is the union of the tools reachable under every gate seen in
// the cycle, in name order, within access (an explicit toolset "set:NAME";
// "" = no limit).
func (c *Curator) reachable(bits int, access string) []*agents.Tool {
	seen := map[string]*agents.Tool{}
	for _, g := range GatesFrom(bits) {
		if set, ok := strings.CutPrefix(access, "set:"); ok {
			g.Allow = append([]string{}, c.Toolsets[set]...) // an empty or unknown toolset allows nothing
		}
		for _, t := range c.Registry.Reachable(g) {
			seen[t.Name] = t
		}
	}
	var out []*agents.Tool
	for _, t := range seen {
		if t.Name != "sleep_finish" {
			out = append(out, t)
		}
	}
	slices.SortFunc(out, func(a, b *agents.Tool) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// finishIn are sleep_finish's arguments (schemas.json has their
// descriptions; TestFinishInMatchesSchema checks the two agree).
type finishIn struct {
	Visible []string `json:"visible"`
	Reason  string   `json:"reason"`
}

// ask makes the one model call: the statistics in, sleep_finish out (the
// call is the answer).
func (c *Curator) ask(ctx context.Context, env Env, p Profile, reachable []*agents.Tool, table Table, cost, budget int) ([]string, string, llm.Usage, error) {
	model := c.Config.Tools.Model
	if model == "" {
		model = env.Model
	}
	client, id, err := c.Client(model)
	if err != nil {
		return nil, "", llm.Usage{}, err
	}
	in, _ := Split(p, reachable, c.Config.Tools.Core, c.Toolsets)
	text := prompt.Render(promptFS, "sleep", map[string]string{"cost": strconv.Itoa(cost), "budget": strconv.Itoa(budget),
		"current": strings.Join(agents.Names(in), ", "), "core": strings.Join(append(slices.Clone(c.Config.Tools.Core), p.Pinned...), ", "),
		"stats": table.Text()})
	spec := toolspec.MustLookup("sleep_finish")
	resp, err := client.Stream(ctx, llm.Request{Model: id, ToolChoice: "required",
		Messages: []llm.Message{{Role: llm.RoleUser, Content: text}},
		Tools:    []llm.ToolDef{{Name: spec.Name, Description: spec.Description, Parameters: spec.Parameters}}})
	if err != nil {
		return nil, "", resp.Usage, fmt.Errorf("the curation call failed: %w", err)
	}
	for _, call := range resp.Message.ToolCalls {
		if call.Name != "sleep_finish" {
			continue
		}
		if _, err := spec.Validate([]byte(call.Arguments)); err != nil {
			return nil, "", resp.Usage, fmt.Errorf("sleep_finish: %v", err)
		}
		var a finishIn
		if err := json.Unmarshal([]byte(call.Arguments), &a); err != nil {
			return nil, "", resp.Usage, fmt.Errorf("sleep_finish: %v", err)
		}
		return a.Visible, a.Reason, resp.Usage, nil
	}
	return nil, "", resp.Usage, errors.New("the model did not answer with sleep_finish")
}
