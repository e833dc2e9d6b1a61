package queue

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/budget"
	"github.com/yagent/yagent/change"
	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/telemetry"
)

// CoordinatorOptions say which plan run to coordinate.
type CoordinatorOptions struct {
	// Runner is the coordinator's own: its catalog, board and workspace
	// prepare each job (SubRunner.Prepare) and its Recorder books each
	// landed delegation's spend. It runs no model.
	Runner *agents.SubRunner
	Board  string
	// Plan names the plan (its file) and Digest identifies its
	// delegations: --resume reattaches to the newest unfinished run with
	// the same board and digest.
	Plan   string
	Digest string
	Resume bool
	// Events receives notices: the run, reattachment, failed attempts.
	Events agents.Sink
	// OnLost is called once when the coordinator loses its lease
	// (ErrLeaseLost): it lands nothing more, and the caller should stop
	// the batch (cancel its context: the jobs are left to the new holder).
	OnLost func(error)
	// Models, when set, resolves each delegation's model name to the
	// settings its job carries (JobArgs.Settings), so that every worker
	// runs that model or refuses the attempt.
	Models ModelsFunc
}

// Coordinator runs a plan's delegations on the queue's workers and lands
// their handoffs on the board; it is the batch.Executor of a
// distributed batch. Its Run is safe for concurrent use.
type Coordinator struct {
	q      *Queue
	opts   CoordinatorOptions
	client *river.Client[pgx.Tx]
	run    string
	lease  *runLease
	// onBoard are notes of this run found on the board when it was
	// reattached (their landing may not have been recorded).
	onBoard map[string]blackboard.NoteMeta

	mu      sync.Mutex
	waiting map[int64]*waiter
	stop    context.CancelFunc
	done    chan struct{}
	closed  sync.Once
	// unisolated says once that the workspace cannot be isolated.
	unisolated sync.Once
}

type waiter struct {
	id     string
	ch     chan *rivertype.JobRow
	errors int // failed attempts already shown
}

// Coordinate starts (or, with Resume, reattaches to) a plan run. The
// caller must Close it.
func (q *Queue) Coordinate(ctx context.Context, opts CoordinatorOptions) (_ *Coordinator, err error) {
	if opts.Runner == nil || opts.Board == "" {
		return nil, errors.New("coordinate a plan run: no runner or board")
	}
	c := &Coordinator{q: q, opts: opts, waiting: map[int64]*waiter{}, onBoard: map[string]blackboard.NoteMeta{}}
	if c.client, err = q.client(coordinatorConfig()); err != nil {
		return nil, err
	}
	// The lease comes first: a second coordinator of the same plan and
	// board is refused before it finds or records a run.
	if c.lease, err = q.acquireLease(ctx, opts.Board, opts.Plan, opts.Digest, c.lost); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			c.lease.release()
		}
	}()
	attached := false
	if opts.Resume {
		err := q.pool.QueryRow(ctx, `SELECT id FROM yagent_batch_run WHERE board = $1 AND digest = $2 AND finished_at IS NULL
			ORDER BY created_at DESC LIMIT 1`, opts.Board, opts.Digest).Scan(&c.run)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return nil, fmt.Errorf("find the plan run to resume: %w", err)
		}
		attached = c.run != ""
	}
	if !attached {
		c.run = newRunID(time.Now())
		if _, err := q.pool.Exec(ctx, `INSERT INTO yagent_batch_run (id, board, plan, digest) VALUES ($1, $2, $3, $4)`,
			c.run, opts.Board, opts.Plan, opts.Digest); err != nil {
			return nil, fmt.Errorf("record the plan run: %w", err)
		}
	}
	if attached {
		if err := c.findLanded(); err != nil {
			return nil, err
		}
		var known, finished int
		_ = q.pool.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE j.state IN ('completed', 'discarded') AND b.landed_ref IS NULL)
			FROM yagent_batch_job b LEFT JOIN river_job j ON j.id = b.job_id WHERE b.run_id = $1`, c.run).Scan(&known, &finished)
		c.notice(fmt.Sprintf("queue %s: reattached to plan run %s: %d jobs known, %d finished while away and not landed yet", q.addr, c.run, known, finished))
	} else {
		c.notice(fmt.Sprintf("queue %s: plan run %s; delegations go to yagent worker processes", q.addr, c.run))
	}
	pctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	c.stop, c.done = stop, make(chan struct{})
	go c.poll(pctx)
	return c, nil
}

// coordinatorConfig is the coordinator's River configuration: it works no
// jobs, but its FetchCooldown also spaces its insert notifications, kept
// short so a worker hears of each new job at once.
func coordinatorConfig() *river.Config {
	return &river.Config{FetchCooldown: 5 * time.Millisecond}
}

// Run runs d on a worker and lands its handoff: it enqueues d's job (or,
// in a reattached run, waits for the job enqueued before, or returns the
// note already landed), waits for the job's end and writes its one note.
// A cancelled ctx cancels the job, queued or running (one a reattached
// run finds too), and abandons d; it enqueues nothing new.
func (c *Coordinator) Run(ctx context.Context, d agents.Delegation) (agents.DelegationResult, error) {
	id := d.CallID
	if m, ok := c.onBoard[id]; ok {
		c.markLanded(ctx, id, m)
		return agents.DelegationResult{Status: m.Status, Ref: m.Ref, Conclusion: m.Conclusion}, nil
	}
	// What is in the queue is looked up and inserted apart from ctx: an
	// insert cut short by Ctrl-C may have committed all the same, and a
	// job nobody waits for is never cancelled — a worker would run it to
	// the end. Once its ID is known, wait cancels it.
	dbctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), queryTimeout)
	defer cancel()
	var jobID int64
	var landedRef, landedStatus *string
	err := c.retrying(func() error {
		return c.q.pool.QueryRow(dbctx, `SELECT job_id, landed_ref, landed_status FROM yagent_batch_job WHERE run_id = $1 AND delegation = $2`,
			c.run, id).Scan(&jobID, &landedRef, &landedStatus)
	})
	switch {
	case err == nil && landedRef != nil:
		// Landed, and the note is gone from the board since: never twice.
		return agents.DelegationResult{Status: blackboard.Status(*landedStatus), Ref: *landedRef, Conclusion: "landed earlier in this plan run"}, nil
	case err == nil:
		var row *rivertype.JobRow
		gerr := c.retrying(func() (err error) {
			row, err = c.client.JobGet(dbctx, jobID)
			return err
		})
		if gerr == nil && row.State != rivertype.JobStateCancelled {
			return c.wait(ctx, d, jobID)
		}
	case !errors.Is(err, pgx.ErrNoRows):
		return agents.DelegationResult{}, fmt.Errorf("queue: look up delegation %s: %w", id, err)
	}
	if ctx.Err() != nil { // nothing new starts
		return agents.DelegationResult{Abandoned: true, Reason: "cancelled"}, nil
	}
	// A retried enqueue whose first commit went through after all leaves
	// a job nobody lands (the row points at the new one): a model call
	// spent twice, never a second note.
	err = c.retrying(func() (err error) {
		jobID, err = c.enqueue(dbctx, d)
		return err
	})
	if err != nil {
		return agents.DelegationResult{}, err
	}
	return c.wait(ctx, d, jobID)
}

// retrying runs f again while it fails for want of the database (a
// PostgreSQL restart drops every connection) and the lease holds.
func (c *Coordinator) retrying(f func() error) error {
	for {
		err := f()
		if err == nil || !dbGone(err) {
			return err
		}
		if lerr := c.lease.check(); lerr != nil {
			return fmt.Errorf("%w (last error: %v)", lerr, err)
		}
		time.Sleep(landRetry)
	}
}

// dbGone reports whether err is the database's going away rather than
// an answer: a connection that failed or was closed, a server shutting
// down (SQLSTATE class 08, 57P).
func dbGone(err error) bool {
	var pge *pgconn.PgError
	if errors.As(err, &pge) {
		return strings.HasPrefix(pge.Code, "08") || strings.HasPrefix(pge.Code, "57P")
	}
	var ce *pgconn.ConnectError
	return errors.As(err, &ce) || pgconn.SafeToRetry(err) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		strings.Contains(err.Error(), "conn closed") || strings.Contains(err.Error(), "connection reset")
}

// queryTimeout bounds a query run apart from the caller's context.
const queryTimeout = 30 * time.Second

// enqueue prepares d (definition, index, context pack; d's Prepared when
// it was prepared already: a team member's round, with its mailbox) and
// inserts its job together with the row that ties it to the run, in one
// transaction.
func (c *Coordinator) enqueue(ctx context.Context, d agents.Delegation) (int64, error) {
	r := c.opts.Runner
	prep := d.Prepared
	if prep == nil {
		var err error
		if prep, err = r.Prepare(d); err != nil {
			return 0, err
		}
	}
	def := prep.Definition
	var tools []string
	for _, t := range r.Registry.Reachable(agents.Gates{SubAgent: true, Master: true, Allow: def.Tools}) {
		tools = append(tools, t.Name)
	}
	args := JobArgs{
		Run: c.run, Delegation: d.CallID, Board: d.BoardID, Key: LandingKey(c.run, d.CallID), Task: d.Task,
		Agent: JobAgent{Name: def.Name, Model: def.Model, MaxSteps: def.MaxSteps, Prompt: prep.Prompt, Source: def.Source},
		Tools: tools, Model: d.Model, MaxSteps: d.MaxSteps, Index: prep.Index, Pack: prep.Pack, Unresolved: prep.Unresolved,
		Trace: telemetry.Inject(ctx), Stem: d.Stem,
	}
	if b := budget.From(ctx); b != nil {
		args.Budget = b.Scopes
	}
	if c.opts.Models != nil {
		if m, ok := c.opts.Models(args.modelName()); ok && m.ID != "" {
			args.Settings = &m
		}
	}
	if r.Isolates(ctx, d, &def) {
		// The worker rebuilds the person's workspace from this base in
		// its own checkout; the change comes back as a patch (land).
		base, err := change.Capture(ctx, r.Workspace.Dir())
		switch {
		case errors.Is(err, change.ErrNotRepository):
			c.unisolated.Do(func() {
				c.notice(fmt.Sprintf("warning: the workspace %s is no git repository: delegations on workers are not isolated, they edit the workers' own workspaces and no change comes back", r.Workspace.Dir()))
			})
		case err != nil:
			return 0, fmt.Errorf("queue: enqueue %s: %w", d.CallID, err)
		default:
			args.Base = base
		}
	}
	tx, err := c.q.pool.Begin(ctx)
	if err != nil {
		return 0, fmt.Errorf("queue: enqueue %s: %w", d.CallID, err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	res, err := c.client.InsertTx(ctx, tx, args, &river.InsertOpts{Queue: QueueName, MaxAttempts: c.q.opts.MaxAttempts})
	if err != nil {
		return 0, fmt.Errorf("queue: enqueue %s: %w", d.CallID, err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO yagent_batch_job (run_id, delegation, job_id) VALUES ($1, $2, $3)
		ON CONFLICT (run_id, delegation) DO UPDATE SET job_id = excluded.job_id, landed_ref = NULL, landed_status = NULL, landed_at = NULL`,
		c.run, d.CallID, res.Job.ID); err != nil {
		return 0, fmt.Errorf("queue: enqueue %s: %w", d.CallID, err)
	}
	if err := tx.Commit(ctx); err != nil {
		return 0, fmt.Errorf("queue: enqueue %s: %w", d.CallID, err)
	}
	return res.Job.ID, nil
}

// wait waits for the job's end and lands it; a cancelled ctx cancels the
// job (queued or running) and abandons the delegation.
func (c *Coordinator) wait(ctx context.Context, d agents.Delegation, jobID int64) (agents.DelegationResult, error) {
	w := &waiter{id: d.CallID, ch: make(chan *rivertype.JobRow, 1)}
	c.mu.Lock()
	c.waiting[jobID] = w
	c.mu.Unlock()
	select {
	case row := <-w.ch:
		return c.land(ctx, d, row)
	case <-ctx.Done():
		c.mu.Lock()
		delete(c.waiting, jobID)
		c.mu.Unlock()
		if err := c.lease.check(); err != nil {
			// The run has another coordinator now: its jobs are its.
			return agents.DelegationResult{Abandoned: true, Reason: err.Error()}, nil
		}
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		if _, err := c.client.JobCancel(cctx, jobID); err != nil {
			c.notice(fmt.Sprintf("queue: cancel the job of %s: %v", d.CallID, err))
		}
		return agents.DelegationResult{Abandoned: true, Reason: "cancelled"}, nil
	}
}

// land writes the finished job's note on the board, records that it
// landed, and books its spend.
func (c *Coordinator) land(ctx context.Context, d agents.Delegation, row *rivertype.JobRow) (agents.DelegationResult, error) {
	var args JobArgs
	_ = json.Unmarshal(row.EncodedArgs, &args)
	out, outErr := decodeOutput(row.Output())
	res := agents.DelegationResult{Unresolved: args.Unresolved, Usage: out.Usage, Elapsed: time.Duration(out.ElapsedMS) * time.Millisecond}
	var note blackboard.NewNote
	switch {
	case row.State == rivertype.JobStateCancelled:
		res.Abandoned, res.Reason = true, "its job was cancelled in the queue"
		return res, nil
	case row.State == rivertype.JobStateCompleted && outErr == nil && out.Abandoned != "":
		res.Abandoned, res.Reason = true, out.Abandoned
		return res, nil
	case row.State == rivertype.JobStateCompleted && outErr == nil && out.Handoff != nil:
		note = blackboard.NewNote{Handoff: *out.Handoff, Body: out.Body, ObservedArtifacts: out.Observed}
		if blackboard.IsNoteStem(out.Stem) {
			note.Stem = out.Stem // the worker's spans name the note by it
		}
		note.Handoff.Change = nil
		if out.Handoff.Change != nil {
			c.importChange(ctx, d, row.ID, args.Base, out, &note)
		}
	default:
		note = degradedNote(d, row, out)
	}
	note.Handoff.Key = LandingKey(c.run, d.CallID)
	if d.FollowUp != nil {
		// A follow-up ran anew on a worker (the history it continues
		// stays where it ran): its note still supersedes the last.
		note.Handoff.Supersedes = d.FollowUp.Ref
	}
	meta, err := c.landNote(ctx, d, note)
	if err != nil {
		return res, err
	}
	c.dropPatch(ctx, row.ID)
	res.Status, res.Ref, res.Conclusion, res.Reason = meta.Status, meta.Ref, meta.Conclusion, note.Handoff.Reason
	if rec := c.opts.Runner.Recorder; rec != nil {
		if hooks, err := rec(ctx, d); err == nil {
			if hooks.OnResponse != nil {
				for _, u := range out.Responses {
					hooks.OnResponse(llm.Response{Usage: u})
				}
			}
			if hooks.Finish != nil {
				hooks.Finish(res)
			}
		}
	}
	return res, nil
}

// landNote writes note on the board and records that it landed, fenced
// by the lease: in one transaction that holds the lease row for share
// (no other coordinator can take it meanwhile) and fails when this
// coordinator no longer holds it. A database that does not answer is
// retried while the lease lasts; then the lease is lost.
func (c *Coordinator) landNote(ctx context.Context, d agents.Delegation, note blackboard.NewNote) (blackboard.NoteMeta, error) {
	for {
		meta, written, err := c.landTx(ctx, d, note)
		switch {
		case written:
			if err != nil {
				c.notice(fmt.Sprintf("warning: queue: record that %s landed as %s: %v (--resume finds the note by its key)", d.CallID, meta.Ref, err))
			}
			return meta, nil
		case errors.Is(err, ErrLeaseLost):
			return meta, fmt.Errorf("land the handoff of %s: %w", d.CallID, err)
		case err != nil && errors.Is(err, errBoard):
			return meta, fmt.Errorf("land the handoff of %s: %w", d.CallID, err)
		}
		if lerr := c.lease.check(); lerr != nil {
			return meta, fmt.Errorf("land the handoff of %s: %w (last error: %v)", d.CallID, lerr, err)
		}
		time.Sleep(landRetry)
	}
}

// landRetry spaces the attempts to land while the database does not answer.
const landRetry = 200 * time.Millisecond

// errBoard marks a failed write of the board (not retried).
var errBoard = errors.New("board")

// landTx is one attempt of landNote; written says the note is on the board.
func (c *Coordinator) landTx(ctx context.Context, d agents.Delegation, note blackboard.NewNote) (meta blackboard.NoteMeta, written bool, err error) {
	dbctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), queryTimeout)
	defer cancel()
	tx, err := c.q.pool.Begin(dbctx)
	if err != nil {
		return meta, false, err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if err := c.lease.fence(dbctx, tx); err != nil {
		return meta, false, err
	}
	meta, err = c.opts.Runner.Board.WriteNote(d.BoardID, note)
	if err != nil {
		return meta, false, fmt.Errorf("%w: %w", errBoard, err)
	}
	if _, err := tx.Exec(dbctx, `UPDATE yagent_batch_job SET landed_ref = $3, landed_status = $4, landed_at = now()
		WHERE run_id = $1 AND delegation = $2`, c.run, d.CallID, meta.Ref, string(meta.Status)); err != nil {
		return meta, true, err
	}
	return meta, true, tx.Commit(dbctx)
}

// importChange makes the change a worker sent back a change of the
// coordinator's repository, as a local isolated delegation's is: the
// patch (from the output, or yagent_job_patch) imported onto the base
// the job carried as the branch yagent/<board>/<stem>, the note's
// change: and <stem>.patch. A change that cannot be imported leaves the
// note degraded, saying why.
func (c *Coordinator) importChange(ctx context.Context, d agents.Delegation, job int64, base *change.Base, out JobOutput, note *blackboard.NewNote) {
	fail := func(err error) {
		note.Handoff.Status = blackboard.StatusDegraded
		note.Handoff.Reason = fmt.Sprintf("the change the worker %s made could not be imported: %v", out.Worker, err)
	}
	if base == nil {
		fail(errors.New("the job carried no base"))
		return
	}
	patch := out.Patch
	if out.PatchStored {
		dbctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), queryTimeout)
		defer cancel()
		if err := c.q.pool.QueryRow(dbctx, `SELECT patch FROM yagent_job_patch WHERE job_id = $1`, job).Scan(&patch); err != nil {
			fail(fmt.Errorf("read its patch from yagent_job_patch: %w", err))
			return
		}
	}
	// A change made in a snapshot (the worker's workspace is no
	// repository) is relative to the workspace, not to the repository.
	dir := ""
	if out.Handoff.Change.GitDir != "" {
		dir = base.Dir
	}
	r := c.opts.Runner
	board := blackboard.SanitizeBoardID(d.BoardID)
	stem := note.Stem
	if stem == "" {
		stem = r.Board.NewStem()
	}
	ch, err := change.Import(context.WithoutCancel(ctx), r.Workspace.Dir(), change.BranchName(board, stem), base.Snapshot, patch, dir,
		fmt.Sprintf("yagent: %s's change (%s/%s, worker %s)", d.Agent, board, stem, out.Worker))
	if err != nil {
		fail(err)
		return
	}
	if ch.Empty() {
		return
	}
	note.Stem = stem
	note.Handoff.Change = &blackboard.NoteChange{Branch: ch.Branch, Base: ch.Base, Head: ch.Head, Files: ch.Files,
		Insertions: ch.Insertions, Deletions: ch.Deletions, State: blackboard.ChangePending}
	note.Patch = ch.Patch
}

// dropPatch removes the job's patch from yagent_job_patch, if it went
// there: its result is taken.
func (c *Coordinator) dropPatch(ctx context.Context, job int64) {
	dbctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), queryTimeout)
	defer cancel()
	if _, err := c.q.pool.Exec(dbctx, `DELETE FROM yagent_job_patch WHERE job_id = $1`, job); err != nil {
		c.notice(fmt.Sprintf("warning: queue: remove the patch of job %d from yagent_job_patch: %v", job, err))
	}
}

// degradedNote is the one note of a delegation whose every attempt
// failed: each attempt's error, then the last output.
func degradedNote(d agents.Delegation, row *rivertype.JobRow, out JobOutput) blackboard.NewNote {
	last := "its job ended " + string(row.State)
	if n := len(row.Errors); n > 0 {
		last = row.Errors[n-1].Error
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s failed on every attempt (%d of %d)\n\n", d.CallID, row.Attempt, row.MaxAttempts)
	for _, e := range row.Errors {
		fmt.Fprintf(&b, "- attempt %d (%s): %s\n", e.Attempt, e.At.UTC().Format(time.RFC3339), e.Error)
	}
	if out.Worker != "" || out.Error != "" || out.Body != "" {
		fmt.Fprintf(&b, "\n## Last output (worker %s)\n\n", out.Worker)
		if out.Body != "" {
			b.WriteString(out.Body + "\n")
		} else if out.Error != "" {
			b.WriteString(out.Error + "\n")
		}
	}
	return blackboard.NewNote{
		Handoff: blackboard.Handoff{Status: blackboard.StatusDegraded, Agent: d.Agent, Task: d.Task, Reason: last,
			Conclusion: fmt.Sprintf("The delegation failed on all %d attempts: %s", row.Attempt, firstLine(last))},
		Body: b.String(),
		Stem: d.Stem, // a background delegation's reserved one ("" otherwise)
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if r := []rune(s); len(r) > 300 {
		s = string(r[:299]) + "…"
	}
	return s
}

// markLanded records that a delegation's note is on the board. A failure
// is shown, not fatal: the note's key finds it on --resume.
func (c *Coordinator) markLanded(ctx context.Context, id string, m blackboard.NoteMeta) {
	_, err := c.q.pool.Exec(context.WithoutCancel(ctx), `UPDATE yagent_batch_job SET landed_ref = $3, landed_status = $4, landed_at = now()
		WHERE run_id = $1 AND delegation = $2`, c.run, id, m.Ref, string(m.Status))
	if err != nil {
		c.notice(fmt.Sprintf("warning: queue: record that %s landed as %s: %v (--resume finds the note by its key)", id, m.Ref, err))
	}
}

// findLanded collects the notes of this run already on the board, by
// their landing key.
func (c *Coordinator) findLanded() error {
	store := c.opts.Runner.Board
	if !store.BoardExists(c.opts.Board) {
		return nil
	}
	list, err := store.ListNotes(c.opts.Board, blackboard.ListOptions{})
	if err != nil {
		return fmt.Errorf("resume: list board %s: %w", c.opts.Board, err)
	}
	suffix := "@" + c.run
	for _, m := range list.Notes {
		n, err := store.ReadNote(c.opts.Board, m.Ref)
		if err != nil || !strings.HasSuffix(n.Handoff.Key, suffix) {
			continue
		}
		id := strings.TrimSuffix(strings.TrimPrefix(n.Handoff.Key, "batch:"), suffix)
		if _, seen := c.onBoard[id]; !seen {
			c.onBoard[id] = m
		}
	}
	return nil
}

// poll hands finished jobs to their waiters and shows failed attempts.
func (c *Coordinator) poll(ctx context.Context) {
	defer close(c.done)
	t := time.NewTicker(c.q.opts.PollInterval)
	defer t.Stop()
	for tick := 0; ; tick++ {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		c.mu.Lock()
		ids := make([]int64, 0, len(c.waiting))
		for id := range c.waiting {
			ids = append(ids, id)
		}
		c.mu.Unlock()
		for start := 0; start < len(ids); start += 1000 {
			chunk := ids[start:min(start+1000, len(ids))]
			c.collect(ctx, river.NewJobListParams().IDs(chunk...).First(len(chunk)).
				States(rivertype.JobStateCompleted, rivertype.JobStateDiscarded, rivertype.JobStateCancelled))
			if tick%4 == 0 { // failed attempts, for the progress
				c.collect(ctx, river.NewJobListParams().IDs(chunk...).First(len(chunk)).Where("cardinality(errors) > 0").
					States(rivertype.JobStateAvailable, rivertype.JobStateRetryable, rivertype.JobStateRunning, rivertype.JobStateScheduled))
			}
		}
	}
}

// collect hands the finished jobs among params' to their waiters and
// shows the failed attempts of the others.
func (c *Coordinator) collect(ctx context.Context, params *river.JobListParams) {
	res, err := c.client.JobList(ctx, params)
	if err != nil {
		return // the next tick tries again
	}
	for _, row := range res.Jobs {
		c.mu.Lock()
		w := c.waiting[row.ID]
		final := row.FinalizedAt != nil
		if w != nil && final {
			delete(c.waiting, row.ID)
		}
		var fresh []rivertype.AttemptError
		if w != nil && len(row.Errors) > w.errors {
			fresh = row.Errors[w.errors:]
			w.errors = len(row.Errors)
		}
		c.mu.Unlock()
		if w == nil {
			continue
		}
		if !final {
			for _, e := range fresh {
				c.notice(fmt.Sprintf("queue: %s attempt %d of %d failed: %s; River retries it", w.id, e.Attempt, row.MaxAttempts, firstLine(e.Error)))
			}
			continue
		}
		w.ch <- row
	}
}

// Close stops watching the queue and releases the run; finished marks
// the run done, so a later --resume starts a new one.
func (c *Coordinator) Close(finished bool) {
	c.closed.Do(func() { c.close(finished) })
}

func (c *Coordinator) close(finished bool) {
	if c.stop != nil {
		c.stop()
		<-c.done
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if finished && c.lease.check() == nil {
		if _, err := c.q.pool.Exec(ctx, `UPDATE yagent_batch_run SET finished_at = now() WHERE id = $1`, c.run); err != nil {
			c.notice(fmt.Sprintf("warning: queue: mark plan run %s finished: %v", c.run, err))
		}
	}
	c.lease.release()
}

// LeaseErr is the ErrLeaseLost of a coordinator that lost its lease, else
// nil.
func (c *Coordinator) LeaseErr() error { return c.lease.check() }

// lost is the lease's onLost: it says so and tells the caller.
func (c *Coordinator) lost(err error) {
	c.notice("queue: " + err.Error())
	if c.opts.OnLost != nil {
		c.opts.OnLost(err)
	}
}

// RunID is the plan run's id.
func (c *Coordinator) RunID() string { return c.run }

func (c *Coordinator) notice(text string) {
	if c.opts.Events != nil {
		c.opts.Events.Emit(agents.Event{Type: agents.EventNotice, Time: time.Now(), Agent: "yagent", Text: text})
	}
}

// LandingKey is the key of the note a plan run lands for a delegation.
func LandingKey(run, id string) string { return "batch:" + id + "@" + run }

func newRunID(now time.Time) string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return "run-" + now.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
}
