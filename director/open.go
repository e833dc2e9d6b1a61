package director

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/app"
	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/memory"
	"github.com/yagent/yagent/queue"
)

// OpenOptions say which session Open opens and over which run.
type OpenOptions struct {
	// Run is the run the director works over (its Board is a new
	// session's board, its Model the session's model).
	Run app.RunOptions
	// Sessions opens the session store.
	Sessions func(ctx context.Context) (*memory.Store, error)
	Kind     string
	// Resume is the session to reopen: id, id prefix or name ("" = a new
	// session).
	Resume string
	// ID and Title are a new session's ("" = a fresh id, its first prompt).
	ID    string
	Title string
	// Toolset limits the lead's tools (Options.Toolset).
	Toolset string
	// Wait waits for a session another process holds instead of failing.
	Wait bool
	// Opened, when set, is told the session as soon as it is open, before
	// any of its notices (the --json printer names it in its events).
	Opened func(*memory.Session)
}

// Run is a session's run: the assembled run, the session and its
// director. Close releases them.
type Run struct {
	*app.Run
	Session  *memory.Session
	Director *Director

	// fresh: the session was created by this run; discard: remove it as
	// the run closes (Discard).
	fresh, discard bool
}

// Discard marks the run's session to be removed as the run closes when
// it is new in this run and failed before any answer — no assistant
// message in its history, its last turn an error or no turn at all —
// so a failed `yagent run` leaves no empty session behind (issue 32
// item 6), and says so in a notice. It reports whether it will be removed.
func (r *Run) Discard() bool {
	in := r.Session.Info()
	if !r.fresh || (in.Turns > 0 && in.LastReason != agents.ReasonError) {
		return false
	}
	for _, m := range r.Session.History() {
		if m.Role == llm.RoleAssistant {
			return false
		}
	}
	r.discard = true
	r.Notice("nothing was answered: the session is not kept")
	return true
}

// drop removes the session Discard marked, once its rollout is closed:
// its rows, rollout, sub-agents' sessions and checkpoints.
func (r *Run) drop(ctx context.Context) {
	if !r.discard {
		return
	}
	st, in := r.Session.Store(), r.Session.Info()
	if _, err := st.Delete(ctx, in.ID); err != nil {
		r.Warn("remove the unanswered session "+in.ID, err)
		return
	}
	r.Warn("remove the unanswered session's checkpoints", DropCheckpoints(ctx, st.Home, in.Cwd, in.ID))
}

// Open assembles a run over a new or resumed session and its director —
// and on resume recovers delegations a dead process left in flight. With
// o.Run.Inspect the director is not started and nothing is recovered.
// On error it releases what it opened.
func Open(ctx context.Context, o OpenOptions) (_ *Run, err error) {
	check := o.Run.Check
	o.Run.Check = func(cfg *config.Config) error {
		if check != nil {
			if err := check(cfg); err != nil {
				return err
			}
		}
		return CheckToolset(cfg, o.Toolset)
	}
	r, err := app.Prepare(o.Run)
	if err != nil {
		return nil, err
	}
	out := &Run{Run: r}
	defer func() {
		if err != nil {
			r.Close()
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
		var s opened
		s.sess, s.err = createOrResume(ctx, o, r)
		done <- s
	}()
	var sessionID string // known before any tool runs
	err = r.Assemble(ctx, func() string { return sessionID })
	s := <-done
	if s.err != nil {
		return nil, s.err
	}
	sess := s.sess
	sessionID = sess.ID()
	out.Session = sess
	if o.Opened != nil {
		o.Opened(sess)
	}
	out.fresh = o.Resume == ""
	r.OnClose(func() { out.drop(context.WithoutCancel(ctx)) }) // after the rollout is closed
	r.OnClose(func() { r.Warn("closing the session's rollout", sess.Close()) })
	if err != nil {
		return nil, err
	}
	for _, w := range sess.Warnings {
		r.Notice("warning: " + w)
	}
	d, err := New(r.App, Options{BoardID: sess.BoardID(), Session: sess, Toolset: o.Toolset, Model: o.Run.Model,
		Interactive: o.Kind == memory.KindInteractive})
	if err != nil {
		return nil, err
	}
	out.Director = d
	if r.Config.Queue.DSN != "" && !o.Run.Inspect {
		// With queue.dsn the background delegations run on the queue's
		// workers; closed after the director stops (closers run last
		// first), which leaves them.
		bg := queue.NewBackground(ctx, queue.OptionsFromConfig(r.Config.Queue, "", nil), sess.ID(),
			queue.CoordinatorOptions{Runner: d.SubRunner(), Board: sess.BoardID(), Events: o.Run.Events, Models: r.Clients.Settings})
		d.delegator.Remote = bg
		r.OnClose(bg.Close)
	}
	r.OnClose(func() { r.Warn("stopping the director", d.Close()) })
	if !o.Run.Inspect {
		d.Start(ctx)
		source := "startup"
		if o.Resume != "" {
			source = "resume"
		}
		d.SessionStart(ctx, source)
		r.OnClose(func() { d.SessionEnd(ctx) }) // before the director stops
	}
	if len(sess.Pending) > 0 && !o.Run.Inspect {
		if _, err := d.RecoverInterrupted(ctx); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// createOrResume opens the session o names: a new one, or the one it
// resumes (waiting for another process with Wait).
func createOrResume(ctx context.Context, o OpenOptions, r *app.Run) (*memory.Session, error) {
	sessions, err := o.Sessions(ctx)
	if err != nil {
		return nil, err
	}
	if o.Resume == "" {
		return sessions.Create(ctx, memory.CreateOptions{ID: o.ID, Kind: o.Kind, Cwd: r.Dir, Model: r.Model, BoardID: o.Run.Board, Title: o.Title})
	}
	sess, err := sessions.ResumeWith(ctx, o.Resume, memory.ResumeOptions{ReadOnly: o.Run.Inspect, LockOptions: memory.LockOptions{
		Wait:   o.Wait,
		OnWait: func(b *memory.BusyError) { r.Notice(b.Error() + ": waiting for it to finish (--wait)") },
	}})
	if errors.Is(err, memory.ErrSessionBusy) && !o.Wait {
		err = fmt.Errorf("%w: let it finish, or pass --wait to wait for it", err)
	}
	return sess, err
}

// TurnError is the error a headless turn ends with, given what Turn
// returned: an answer cut at the model's output limit fails unless
// allowTruncated, and so does a turn stopped at the step budget.
func (r *Run) TurnError(out *agents.Outcome, err error, allowTruncated bool) error {
	if err != nil {
		return err
	}
	if out.Reason == agents.ReasonLength && !allowTruncated {
		return errors.New("the answer was cut at the model's output limit (finish_reason length) and is incomplete: raise the model's output limit, ask for a shorter answer, or pass --allow-truncated to accept it")
	}
	if out.Reason == agents.ReasonMaxSteps {
		return fmt.Errorf("the director stopped at its step budget (%d model calls) before finishing: raise --max-steps or agents.max_steps", r.Director.Agent(agents.Gates{}).MaxSteps)
	}
	return nil
}

// Settle is how a headless run ends while background delegations of its
// turns still run (yagent run, resume): it waits for them to land, saying
// so (ctx ends the wait; Close then leaves them to the next resume) —
// or, with detach, leaves them at once: the process ends them and the
// next yagent resume recovers each as a degraded note at its ref. A turn
// that failed (err) is not waited on; err is returned first.
func (r *Run) Settle(ctx context.Context, detach bool, err error) error {
	running := r.Director.Running()
	if len(running) == 0 || err != nil {
		return err
	}
	refs, id := strings.Join(running, ", "), r.Session.ID()
	if detach {
		r.Notice(fmt.Sprintf("--detach: left %s unfinished (%s); yagent resume %s recovers each as a degraded note at its ref", agents.Count(len(running), "background delegation", "background delegations"), refs, id))
		return nil
	}
	r.Notice(fmt.Sprintf("waiting for %s to land (%s); Ctrl-C leaves them to yagent resume %s", agents.Count(len(running), "background delegation", "background delegations"), refs, id))
	return r.Director.WaitBackground(ctx)
}

// MeterSpend starts measuring what the session's turns cost from now on
// (app.MeterSpend): the ledger's figure for the result event.
func (r *Run) MeterSpend(ctx context.Context) func(context.Context) *float64 {
	return app.MeterSpend(r.Director.withBudget(ctx))
}

// Result is how a headless turn ended, for the --json stream (the
// printer adds the usage: its sum of every request, sub-agents included).
func (r *Run) Result(out *agents.Outcome, err error, elapsed time.Duration) agents.ResultEvent {
	res := agents.ResultEvent{Session: r.Session.ID(), Status: agents.ResultOK, ElapsedMS: elapsed.Milliseconds()}
	if out != nil {
		res.Answer = out.Final
		switch out.Reason {
		case agents.ReasonMaxSteps:
			res.Status = agents.ResultMaxSteps
		case agents.ReasonLength:
			res.Status = agents.ResultTruncated
		}
	}
	var unmet *app.GoalUnmetError
	switch {
	case errors.Is(err, context.Canceled):
		res.Status = agents.ResultCancelled
	case errors.As(err, &unmet):
		res.Status = agents.ResultCheckFailed
	case err != nil && res.Status == agents.ResultOK:
		res.Status = agents.ResultError
	}
	if err != nil {
		res.Error = err.Error()
	}
	return res
}
