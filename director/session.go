package director

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/memory"
	"github.com/yagent/yagent/notebook"
)

// window returns the model's context window and the compaction threshold
// (0 when compaction is off) for this session's kind.
func (d *Director) window() (window, threshold int) {
	cfg := d.app.Config
	m, _ := cfg.Model("default")
	window = m.ContextWindow
	budget := cfg.Context.CompactBudgetFor(d.opts.Session.Info().Kind)
	return window, int(float64(window) * budget)
}

// prefixTokens estimates the stable prefix (system prompt and tool
// declarations) for a measure without a provider anchor.
func (d *Director) prefixTokens() int {
	a := d.Agent(agents.Gates{Master: true})
	return llm.EstimateTokens([]llm.Message{{Role: llm.RoleSystem, Content: a.System}}, agents.Defs(a.Tools))
}

// Measure is the session's token measure of the next request: the one
// number compaction, the pressure line and budgets all use.
func (d *Director) Measure() int { return d.opts.Session.Measure(d.prefixTokens) }

func (d *Director) compactionDue() bool {
	_, threshold := d.window()
	return threshold > 0 && d.Measure() >= threshold
}

// Compact summarises older history now (/compact: PreCompact hooks with
// trigger manual). On failure the history is unchanged and the error says
// so.
func (d *Director) Compact(ctx context.Context) (memory.CompactResult, error) {
	return d.compact(ctx, "manual")
}

// compact summarises older history, PreCompact hooks first (trigger
// manual or auto), SessionStart (source compact) after.
func (d *Director) compact(ctx context.Context, trigger string) (memory.CompactResult, error) {
	o, err := d.compactOptions()
	if err != nil {
		return memory.CompactResult{}, err
	}
	d.preCompact(ctx, trigger)
	res, err := memory.Compact(ctx, d.opts.Session, o)
	if err == nil {
		d.notice(fmt.Sprintf("compacted %d older messages into a summary", res.Replaced))
	}
	d.compacted(ctx, err)
	return res, err
}

// Tail is the transient tail of the director's next call: the [state]
// block (the [window] pressure line, a squeeze notice, the notebook), then
// the board index rebuilt from disk right now.
func (d *Director) Tail(ctx context.Context) (string, error) {
	var state []string
	t := turnOf(ctx)
	if t == nil {
		t = &turnState{} // outside a turn (a test, a tool's preview)
	}
	line := d.pressureLine(ctx)
	if line != "" {
		state = append(state, line)
	}
	if d.book != nil {
		notes, err := d.book.List(ctx)
		if err != nil {
			return "", err
		}
		if block := notebook.Block(notes, t.mode, line != "", d.book.PinLimits()); block != "" {
			state = append(state, block)
		}
	}
	if t.fit != nil && t.fit.squeezed > 0 {
		state = append(state, fmt.Sprintf("[turn] this turn is long: %d older tool outputs of it were shrunk to fit; keep what you still need in your answer.", t.fit.squeezed))
	}
	if d.State != nil {
		extra, err := d.State(ctx)
		if err != nil {
			return "", err
		}
		if extra != "" {
			state = append(state, extra)
		}
	}
	block := ""
	if len(state) > 0 {
		block = "[state]\n" + strings.Join(state, "\n")
	}
	idx, err := d.boardIndex(ctx)
	if err != nil {
		return "", err
	}
	return agents.ComposeTail(block, idx), nil
}

// pressureLine computes the [window] line and records one-time nudges. In
// a turn it measures the request being sent (as the fitter left it).
func (d *Director) pressureLine(ctx context.Context) string {
	s := d.opts.Session
	window, threshold := d.window()
	info := s.Info()
	cfg := d.app.Config.Context
	measure := 0
	if t := turnOf(ctx); t != nil && t.fit != nil {
		measure = t.fit.measure
	}
	if measure == 0 {
		measure = d.Measure()
	}
	line, stage := memory.Pressure(memory.PressureInput{
		Measure: measure, Threshold: threshold, Window: window, Reserve: cfg.WrapUpReserveTokens,
		SummaryUpto: info.SummaryUpto, WrapNudgedUpto: info.WrapNudgedUpto, NotesNudgedUpto: info.NotesNudgedUpto,
	}, memory.PressureTexts{Window: cfg.Pressure.Window, WrapUp: cfg.Pressure.WrapUp, Compacted: cfg.Pressure.Compacted})
	switch stage {
	case memory.StageWrapUp:
		d.warn("record the wrap-up nudge", s.SetNudged(ctx, "wrap_nudged_upto", info.SummaryUpto))
	case memory.StageCompacted:
		d.warn("record the compaction nudge", s.SetNudged(ctx, "notes_nudged_upto", info.SummaryUpto))
	}
	return line
}

// subRecorder gives every delegation a sub-agent session of its own (kind
// subagent, parent = this session, same board), records its start and end
// in the parent's rollout (synced: a killed process leaves a record of what
// was in flight), books its tokens under subagent:<agent>, and keeps its
// requests inside its model's window with a fitter of its own (the
// director's mechanism, on the sub-agent's session). What cannot be
// recorded once the delegation runs goes to warn, never ends it.
func (d *Director) subRecorder(parent *memory.Session) func(context.Context, agents.Delegation) (agents.DelegationHooks, error) {
	return func(ctx context.Context, del agents.Delegation) (agents.DelegationHooks, error) {
		info := parent.Info()
		var sub *memory.Session
		var history []llm.Message
		var err error
		if del.FollowUp != nil {
			sub, history, err = reopenSub(ctx, parent.Store(), del)
		} else {
			sub, err = parent.Store().Create(ctx, memory.CreateOptions{Kind: memory.KindSubagent, Cwd: info.Cwd, Model: info.Model,
				BoardID: del.BoardID, ParentID: info.ID, Title: del.Agent + ": " + del.Task})
		}
		if err != nil {
			return agents.DelegationHooks{}, err
		}
		if err := parent.DelegationStarted(agents.DelegationEvent{CallID: del.CallID, Agent: del.Agent, Task: del.Task, SubSession: sub.ID(),
			Ref: refOf(del), Background: del.Background}); err != nil {
			sub.Close()
			return agents.DelegationHooks{}, err
		}
		label := "subagent:" + del.Agent
		fit := d.newFitter(sub, del.Agent, del.Model, memory.KindSubagent)
		hooks := agents.DelegationHooks{
			Session: sub.ID(), Transcript: sub.Info().Rollout, History: history,
			Append: sub.Append, Read: sub.Read, MarkRead: sub.MarkRead,
			OnResponse: func(resp llm.Response) {
				d.warn("record the sub-agent's window use", sub.Observe(resp))
				d.warn("record the sub-agent's tokens", sub.RecordUsage(ctx, "turn", resp.Usage))
				d.warn("record the sub-agent's tokens", parent.RecordUsage(ctx, label, resp.Usage))
			},
			Fit: fit.fit,
			Finish: func(res agents.DelegationResult) {
				status := string(res.Status)
				if res.Abandoned {
					status = "abandoned"
				}
				// A background delegation stopped in flight lands its
				// note after this (runBackground, recoverOne), or — left
				// by Close — stays in flight for the next resume.
				if !res.Abandoned || !del.Background {
					d.warn("record the end of the delegation", parent.DelegationFinished(agents.DelegationEvent{CallID: del.CallID, Agent: del.Agent,
						Ref: res.Ref, Status: status, Conclusion: res.Conclusion, SubSession: sub.ID(), Background: del.Background}))
				}
				d.warn("close the sub-agent's rollout", sub.Close())
			},
		}
		if j := jobOf(ctx); j != nil && j.callID == del.CallID && del.Background {
			hooks = j.watch(hooks)
		}
		return hooks, nil
	}
}

// reopenSub reopens the sub-agent session a follow-up continues — the
// very one its note names, a sub-agent session of the same board — and
// returns it with the history to continue from. A session that is gone
// (removed, its rollout lost) is an error naming the note.
func reopenSub(ctx context.Context, st *memory.Store, del agents.Delegation) (*memory.Session, []llm.Message, error) {
	f := del.FollowUp
	gone := func(err error) error {
		return fmt.Errorf("the rollout of %s (sub-agent session %s) is gone: %w; delegate the task anew instead", f.Ref, f.Session, err)
	}
	in, err := st.Get(ctx, f.Session)
	if err != nil {
		return nil, nil, gone(err)
	}
	// Get also takes prefixes and names: only the very session will do.
	if in.ID != f.Session || in.Kind != memory.KindSubagent || in.BoardID != del.BoardID {
		return nil, nil, gone(fmt.Errorf("%s is not a sub-agent session of board %s", f.Session, del.BoardID))
	}
	sub, err := st.Resume(ctx, in.ID)
	if err != nil {
		if errors.Is(err, memory.ErrSessionBusy) {
			return nil, nil, fmt.Errorf("follow up %s: %w: wait for the follow-up running on it to finish", f.Ref, err)
		}
		return nil, nil, gone(err)
	}
	history := sub.History()
	if len(history) == 0 {
		sub.Close()
		return nil, nil, gone(errors.New("its rollout holds no messages"))
	}
	return sub, history, nil
}

// RecoverInterrupted handles delegations a dead process left in flight
// (found when the session was resumed): each gets exactly one note with
// status degraded and the best deliverable in its sub-agent's rollout (a
// background one at the ref it was started with); the recovery is
// recorded at once, so it never happens twice; and the director's
// dangling delegate call gets a result that names the note.
func (d *Director) RecoverInterrupted(ctx context.Context) ([]blackboard.NoteMeta, error) {
	s := d.opts.Session
	var notes []blackboard.NoteMeta
	var tasks []string
	// Every note lands before any claim goes back: a background team
	// member's round on a worker is a delegation of its own, at its
	// task's ref, so its task ends failed with that one note rather than
	// open again beside a note no claim names.
	for _, p := range s.Pending {
		if _, err := d.landRecovered(ctx, p, agents.RecoveredReason); err != nil {
			return notes, err
		}
	}
	for _, p := range s.Pending {
		meta, err := d.recoverOne(ctx, p, agents.RecoveredReason)
		if err != nil {
			return notes, err
		}
		s.Interrupted(p.CallID, fmt.Sprintf("status: degraded\nref: %s\nconclusion: %s\n(the process ended while this delegation ran; its last output was recovered into the note — read_note gives it)", meta.Ref, meta.Conclusion))
		notes = append(notes, meta)
		tasks = append(tasks, p.Task)
		d.notice(fmt.Sprintf("recovered the interrupted delegation to %s as %s (degraded)", p.Agent, meta.Ref))
	}
	s.Pending = nil
	if len(notes) > 0 {
		d.notice(RecoveredList(d.opts.BoardID, notes, tasks))
	}
	return notes, nil
}

// RecoveredList is what a resume shows of the delegations it recovered
// (notes, with the task each was given): each ref and task, and the two
// ways on — a re-run (a new delegation with the same agent and task) and
// a follow-up (the same sub-agent from its kept rollout) — as slash
// commands and as commands of the command line.
func RecoveredList(board string, notes []blackboard.NoteMeta, tasks []string) string {
	var b strings.Builder
	what := agents.Count(len(notes), "delegation", "delegations") + " the ended process left were recovered as degraded notes"
	if len(notes) == 1 {
		what = "1 delegation the ended process left was recovered as a degraded note"
	}
	fmt.Fprintf(&b, "%s (their rollouts kept):", what)
	for i, m := range notes {
		task := m.Task
		if i < len(tasks) && tasks[i] != "" {
			task = tasks[i]
		}
		fmt.Fprintf(&b, "\n  %s · task: %s", m.Ref, cutLine(oneLine(task), 120))
		fmt.Fprintf(&b, "\n    re-run:    /rerun %s   or   yagent board rerun %s --board %s", m.Ref, m.Ref, board)
		fmt.Fprintf(&b, "\n    follow up: /follow-up %s MESSAGE   or   yagent board follow-up %s \"MESSAGE\" --board %s", m.Ref, m.Ref, board)
	}
	return b.String()
}

// recoverOne lands the one note of a delegation that ended without its
// own — the last output its sub-agent's rollout holds, degraded, for
// reason — and records its end in the session (a background one's is
// then reported in the next index).
func (d *Director) recoverOne(ctx context.Context, p memory.PendingDelegation, reason string) (blackboard.NoteMeta, error) {
	meta, err := d.landRecovered(ctx, p, reason)
	if err != nil {
		return meta, err
	}
	// A team member's open claims go back to the team: their notes never
	// come (landed ones stay: one note per task).
	released, rerr := d.app.Board.ReleaseClaimsOf(d.opts.BoardID, p.SubSession)
	for _, c := range released {
		d.notice(fmt.Sprintf("released %s, which %s held when it stopped: the task is open again", c.Task, p.Agent))
	}
	d.warn("release the claims of the interrupted delegation to "+p.Agent, rerr)
	return meta, d.opts.Session.DelegationFinished(agents.DelegationEvent{CallID: p.CallID, Agent: p.Agent, Ref: meta.Ref,
		Status: string(meta.Status), Conclusion: meta.Conclusion, SubSession: p.SubSession, Recovered: true, Background: p.Background})
}

// landRecovered lands p's recovered note (recoverOne): a second call
// takes the note the first landed (agents.RecoverDelegation finds it by
// its key, or at its reserved ref).
func (d *Director) landRecovered(ctx context.Context, p memory.PendingDelegation, reason string) (blackboard.NoteMeta, error) {
	s := d.opts.Session
	var msgs []llm.Message
	if p.SubSession != "" {
		if sub, err := s.Store().Get(ctx, p.SubSession); err == nil {
			if r, err := memory.LoadRollout(sub.Rollout); err == nil {
				mem, _ := memory.Rebuild(r.Items)
				msgs = mem.Messages
			}
		}
	}
	del := agents.Delegation{CallID: p.CallID, Agent: p.Agent, Task: p.Task, BoardID: d.opts.BoardID}
	if p.Ref != "" {
		if r, err := blackboard.ParseNoteRef(p.Ref); err == nil {
			del.Stem = r.Stem
		}
	}
	meta, err := agents.RecoverDelegation(d.app.Board, d.opts.BoardID, agents.RecoveryKey(s.ID(), p.CallID), reason, del, p.SubSession, msgs, agents.ArtifactsOf(msgs))
	if err != nil {
		return meta, fmt.Errorf("recover the interrupted delegation to %s: %w", p.Agent, err)
	}
	if p.Ref != "" {
		d.dropStaleRequest(p.Ref) // the dead process's .run file
	}
	return meta, nil
}

// rebuildNotebook rebuilds the notebook after turn when it is past the
// compact thresholds, with the session's model (notes.model overrides). A
// failure keeps the old notebook and is shown as a warning; failures back
// off (2, 4, 8… turns, counted in the state database), so a rebuild that
// keeps failing does not cost two model calls after every turn.
func (d *Director) rebuildNotebook(ctx context.Context, turn int) {
	if d.book == nil {
		return
	}
	notes, err := d.book.List(ctx)
	if err != nil || !notebook.NeedsRebuild(notes, d.app.Config.Notes) {
		return
	}
	client, model, err := d.app.Client(d.app.Config.Notes.Model)
	if err != nil {
		d.notice("notebook rebuild skipped: " + err.Error())
		return
	}
	summary, _, _ := d.opts.Session.Memory()
	res, err := d.book.Rebuild(ctx, notebook.RebuildOptions{Client: client, Model: model, Summary: summary, Turn: turn,
		Logf: func(f string, a ...any) { d.notice(fmt.Sprintf(f, a...)) },
		// Each call is a request of its own: the retry is booked too.
		Spend: func(u llm.Usage) {
			d.warn("record the notebook rebuild's tokens", d.opts.Session.RecordUsage(context.WithoutCancel(ctx), "notes", u))
		}})
	if err != nil {
		retry := ""
		if res.RetryTurn > 0 {
			retry = fmt.Sprintf(" (next try after turn %d)", res.RetryTurn)
		}
		d.notice("warning: " + err.Error() + retry)
		return
	}
	if res.Rebuilt {
		d.notice(fmt.Sprintf("📝 notebook rebuilt: %d notes, %d characters → %d notes, %d characters (the old one is archived: yagent notes restore)", res.BeforeNotes, res.BeforeChars, res.AfterNotes, res.AfterChars))
	}
}

// Notebook returns the lead's notebook (nil when notes are off).
func (d *Director) Notebook() *notebook.Book { return d.book }

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
