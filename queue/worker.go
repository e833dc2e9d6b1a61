package queue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/budget"
	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/telemetry"
)

// WorkerOptions configure Serve.
type WorkerOptions struct {
	// Runner is this host's: its model clients, tool registry, workspace
	// and project instructions run every job. Its board is never read or
	// written here.
	Runner *agents.SubRunner
	// Concurrency is how many jobs run at once.
	Concurrency int
	// Name identifies the worker in outputs and errors (host:pid).
	Name string
	// Events receives a notice per job started and finished.
	Events agents.Sink
	// FetchCooldown is River's pause between fetches (0: 5 ms).
	FetchCooldown time.Duration
	// Drain makes Serve return nil once the queue has no job left to run
	// (none available, scheduled, retryable or running anywhere).
	Drain bool
	// Models, when set, resolves a job's model name to this host's
	// settings: a job whose settings (JobArgs.Settings) name a model this
	// host lacks, or under another model id, fails that attempt and runs
	// elsewhere, never on another model.
	Models ModelsFunc
	// HoldOff is how long the worker takes no job after its model failed
	// (0: DefaultHoldOff), so other workers take the retries.
	HoldOff time.Duration
}

// DefaultHoldOff is how long a worker whose model failed (a 5xx after the
// client's retries, a refused key, a model it lacks) stops fetching jobs.
const DefaultHoldOff = 30 * time.Second

// heldSnooze is how long a job fetched while the worker holds off waits
// before any worker may take it; snoozing spends no attempt.
const heldSnooze = time.Second

// resolved is o with its defaults, or why it cannot serve.
func (o WorkerOptions) resolved() (WorkerOptions, error) {
	if o.Runner == nil || o.Concurrency < 1 {
		return o, errors.New("serve the queue: no runner or a concurrency below 1")
	}
	if o.HoldOff <= 0 {
		o.HoldOff = DefaultHoldOff
	}
	return o, nil
}

// Serve runs delegation jobs until ctx ends. Jobs running then are handed
// back to the queue without spending an attempt (river.JobSnooze(0)), so
// another worker takes them.
func (q *Queue) Serve(ctx context.Context, opts WorkerOptions) error {
	opts, err := opts.resolved()
	if err != nil {
		return err
	}
	workers := river.NewWorkers()
	w := &delegationWorker{opts: opts, q: q}
	if err := river.AddWorkerSafely(workers, w); err != nil {
		return err
	}
	cfg := workerConfig(opts, workers, time.Now())
	client, err := q.client(cfg)
	if err != nil {
		return fmt.Errorf("start the worker on %s: %w", q.addr, err)
	}
	// The heartbeat first: a job this worker runs always has its row.
	if w.beat, err = q.startHeartbeat(ctx, cfg.ID, opts.Name, w.notice); err != nil {
		return err
	}
	w.quit = make(chan struct{})
	defer close(w.quit)
	defer w.beat.stop()
	var pauseCtx context.Context
	pauseCtx, w.endPauses = context.WithCancel(context.WithoutCancel(ctx))
	w.pause = func() {
		w.hold.run(pauseCtx, func(ctx context.Context) error { return client.Queues().Remove(ctx, QueueName) },
			func() error { return client.Queues().Add(QueueName, river.QueueConfig{MaxWorkers: opts.Concurrency}) })
	}
	// Jobs get a context of their own: a stopping worker must tell its
	// jobs apart from a remote cancel, so it cancels them itself.
	if err := client.Start(context.WithoutCancel(ctx)); err != nil {
		return fmt.Errorf("start the worker on %s: %w", q.addr, err)
	}
	drained := false
	if opts.Drain {
		drained = q.waitDrained(ctx)
	} else {
		<-ctx.Done()
	}
	w.stopping.Store(true)
	w.hold.close()
	w.endPauses()
	w.hold.wg.Wait()
	stop, cancel := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
	defer cancel()
	if err := client.StopAndCancel(stop); err != nil {
		return fmt.Errorf("stop the worker: %w", err)
	}
	if drained {
		return nil
	}
	return ctx.Err()
}

// workerConfig is a worker's River configuration: opts.Concurrency jobs at
// once, a short fetch cooldown (opts.FetchCooldown, 0: 5 ms) and a poll
// for the insert notifications it misses; River's leader table names the
// host (opts.Name).
func workerConfig(opts WorkerOptions, workers *river.Workers, now time.Time) *river.Config {
	cooldown := opts.FetchCooldown
	if cooldown <= 0 {
		cooldown = 5 * time.Millisecond
	}
	name := opts.Name
	if name == "" {
		name = "worker"
	}
	return &river.Config{
		// The heartbeat's row is keyed by it (river_job.attempted_by).
		ID:                fmt.Sprintf("%.60s-%d", name, now.UnixNano()),
		Queues:            map[string]river.QueueConfig{QueueName: {MaxWorkers: opts.Concurrency}},
		Workers:           workers,
		FetchCooldown:     cooldown,
		FetchPollInterval: 200 * time.Millisecond,
	}
}

// waitDrained returns true once two looks half a second apart find no
// job of the queue left to run, false when ctx ends first.
func (q *Queue) waitDrained(ctx context.Context) bool {
	t := time.NewTicker(500 * time.Millisecond)
	defer t.Stop()
	empty := 0
	for {
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
		}
		var n int
		err := q.pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE queue = $1
			AND state IN ('available', 'pending', 'retryable', 'running', 'scheduled')`, QueueName).Scan(&n)
		switch {
		case err != nil || n > 0:
			empty = 0
		default:
			empty++
		}
		if empty == 2 {
			return true
		}
	}
}

type delegationWorker struct {
	river.WorkerDefaults[JobArgs]
	opts     WorkerOptions
	q        *Queue
	stopping atomic.Bool
	// hold pauses fetching after a model failure; pause runs one pause
	// (Serve sets it, over the River client), endPauses ends them.
	hold      holdOff
	pause     func()
	endPauses context.CancelFunc
	// beat is the worker's heartbeat; quit closes when Serve returns
	// (a stale attempt parks until then).
	beat *heartbeat
	quit chan struct{}
}

func (w *delegationWorker) notice(text string) {
	if w.opts.Events != nil {
		w.opts.Events.Emit(agents.Event{Type: agents.EventNotice, Time: time.Now(), Agent: "worker", Text: text})
	}
}

// Work runs one delegation and records its note as the job's output.
func (w *delegationWorker) Work(ctx context.Context, job *river.Job[JobArgs]) error {
	a := job.Args
	// However Work ends, River writes it only while the job is still at
	// this attempt (fence.go).
	w.q.driver.pilot.working(job.ID, job.Attempt)
	if w.hold.paused(time.Now()) {
		// Fetched just before this worker stopped fetching: another
		// worker takes it, and no attempt is spent.
		return river.JobSnooze(heldSnooze)
	}
	w.notice(fmt.Sprintf("job %d: %s (%s) attempt %d of %d", job.ID, a.Delegation, a.Agent.Name, job.Attempt, job.MaxAttempts))
	att, err := w.q.startAttempt(ctx, job.ID, w.opts.Name, job.Attempt)
	if err != nil && !errors.Is(err, errStale) && ctx.Err() == nil {
		// Once more, on another connection: a worker frozen inside the
		// start has its transaction ended by the server (idleTxTimeout),
		// and by then its job may have gone to another worker — stale.
		att, err = w.q.startAttempt(ctx, job.ID, w.opts.Name, job.Attempt)
	}
	if errors.Is(err, errStale) {
		return w.dropStale(ctx, job)
	}
	if err != nil {
		return err
	}
	w.beat.running(job.ID, true)
	defer w.beat.running(job.ID, false)
	out, err := w.run(budget.WithChain(telemetry.Extract(ctx, a.Trace), w.q.Ledger(), a.Budget), a, att)
	if serr := att.check(context.WithoutCancel(ctx)); serr != nil || errors.Is(err, errStale) {
		return w.dropStale(ctx, job)
	}
	out.Version, out.Worker = outputVersion, w.opts.Name
	if err == nil && !patchFits(out.Patch) {
		if err = w.storePatch(ctx, job.ID, out.Patch); err == nil {
			out.Patch, out.PatchStored = nil, true
		}
	}
	if err != nil {
		out.Error = err.Error()
		out.Patch = nil
	}
	if rerr := river.RecordOutput(ctx, out); rerr != nil && err == nil {
		err = fmt.Errorf("record the handoff of %s: %w", a.Delegation, rerr)
	}
	switch {
	case errors.Is(context.Cause(ctx), rivertype.ErrJobCancelledRemotely):
		w.notice(fmt.Sprintf("job %d: %s cancelled by the coordinator", job.ID, a.Delegation))
		return context.Cause(ctx)
	case ctx.Err() != nil && w.stopping.Load():
		w.notice(fmt.Sprintf("job %d: %s handed back (this worker is stopping)", job.ID, a.Delegation))
		return river.JobSnooze(0)
	case err != nil:
		if att.check(context.WithoutCancel(ctx)) != nil {
			return w.dropStale(ctx, job)
		}
		w.notice(fmt.Sprintf("job %d: %s failed: %v", job.ID, a.Delegation, err))
		var me *modelError
		if errors.As(err, &me) {
			w.holdOff(me)
		}
		return fmt.Errorf("worker %s: %w", w.opts.Name, err)
	}
	status := "abandoned (" + out.Abandoned + ")"
	if out.Handoff != nil {
		status = string(out.Handoff.Status)
	}
	if err := w.complete(ctx, job, att); errors.Is(err, errStale) {
		return w.dropStale(ctx, job)
	}
	w.notice(fmt.Sprintf("job %d: %s %s", job.ID, a.Delegation, status))
	return nil
}

// dropStale drops the outcome of an attempt another worker holds the job
// for now (this one missed its heartbeats): nothing is recorded, and Work
// returns only once the job is finalized, so River writes nothing of it.
func (w *delegationWorker) dropStale(ctx context.Context, job *river.Job[JobArgs]) error {
	w.notice(fmt.Sprintf("job %d: %s attempt %d is stale (this worker missed its heartbeats and the job went to another worker): its outcome is dropped",
		job.ID, job.Args.Delegation, job.Attempt))
	w.q.park(job.ID, w.quit)
	// River merges a returning job's recorded output into its row even
	// when finalized (the fence drops it only when another process worked
	// the later attempt): record the output it holds, so nothing changes.
	_ = river.RecordOutput(ctx, w.q.heldOutput(ctx, job.ID))
	return nil
}

// heldOutput is job's recorded output as its row holds it now (JSON
// null when it has none, or when the row cannot be read).
func (q *Queue) heldOutput(ctx context.Context, job int64) json.RawMessage {
	var current []byte
	qctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	_ = q.pool.QueryRow(qctx, `SELECT metadata->'output' FROM river_job WHERE id = $1`, job).Scan(&current)
	if current == nil {
		current = []byte("null")
	}
	return current
}

// holdOff stops this worker from fetching jobs for opts.HoldOff after its
// model failed, saying so once per model and kind of failure: the job's
// retries, and the jobs after it, go to the other workers.
func (w *delegationWorker) holdOff(me *modelError) {
	start, first := w.hold.hold(time.Now(), w.opts.HoldOff, me.model+" "+me.kind.String())
	if first {
		w.notice(fmt.Sprintf("worker %s: model %s %s: %v; this worker takes no job for %s, the others take its jobs",
			w.opts.Name, me.model, me.kind, me.err, w.opts.HoldOff))
	}
	if start && w.pause != nil {
		go w.pause()
	}
}

// complete marks the job completed, with its output, at once, fenced:
// in one transaction that locks the job and its attempt row and finds
// this attempt's token (errStale otherwise). River's batch completer
// would flush it up to 250 ms later, and the coordinator waits for it.
// Should the transaction fail otherwise, returning nil leaves it to the
// completer.
func (w *delegationWorker) complete(ctx context.Context, job *river.Job[JobArgs], att *attempt) error {
	// Said on stderr: a completion left to River is the thing to look
	// at when a job ends otherwise than its worker reported.
	leave := func(step string, err error) error {
		w.notice(fmt.Sprintf("job %d: %s: could not complete it at once (%s: %v); River's completer will", job.ID, job.Args.Delegation, step, err))
		return nil
	}
	tx, err := w.q.pool.Begin(ctx)
	if err != nil {
		return leave("begin", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if err := att.fence(ctx, tx); err != nil {
		if errors.Is(err, errStale) {
			return err
		}
		return leave("fence", err)
	}
	if _, err := river.JobCompleteTx[*riverpgxv5.Driver](ctx, tx, job); err != nil {
		return leave("complete", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return leave("commit", err)
	}
	return nil
}

// storePatch keeps a patch too large for the job's output in
// yagent_job_patch until the coordinator takes it (a retried job's
// replaces its earlier attempt's).
func (w *delegationWorker) storePatch(ctx context.Context, job int64, patch []byte) error {
	_, err := w.q.pool.Exec(ctx, `INSERT INTO yagent_job_patch (job_id, patch) VALUES ($1, $2)
		ON CONFLICT (job_id) DO UPDATE SET patch = excluded.patch, created_at = now()`, job, patch)
	if err != nil {
		return fmt.Errorf("store the change of job %d (%d bytes) in yagent_job_patch: %w", job, len(patch), err)
	}
	return nil
}

// run runs the delegation with this host's runner; the note is captured
// instead of written.
func (w *delegationWorker) run(ctx context.Context, a JobArgs, att *attempt) (JobOutput, error) {
	var out JobOutput
	// A stale attempt stops at its next model call, tool call, landing or
	// spend: each checks the attempt's token first.
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	fenced := func(ctx context.Context) error {
		if err := att.check(ctx); err != nil {
			stop(err)
			return err
		}
		return nil
	}
	base := w.opts.Runner
	if missing := missingTools(base.Registry, a.Tools); len(missing) > 0 {
		return out, fmt.Errorf("cannot run agent %s: this worker has no tool %s (configure it here, or run the job on a worker that has it)",
			a.Agent.Name, strings.Join(missing, ", "))
	}
	label := w.modelLabel(a.Settings, a.modelName())
	if s := a.Settings; s != nil && w.opts.Models != nil {
		have, ok := w.opts.Models(s.Name)
		switch {
		case !ok:
			return out, &modelError{model: label, kind: refused, err: fmt.Errorf("this worker has no model %q (configure models.%s here, or leave the job to workers that have it)", s.Name, s.Name)}
		case have.ID != s.ID:
			return out, &modelError{model: label, kind: refused, err: fmt.Errorf("this worker's model %q is %s, not %s (the coordinator's)", s.Name, have.ID, s.ID)}
		}
	}
	r := *base
	r.ExtraTools = nil // no nested delegations: they would write to a board
	var mu sync.Mutex
	// The last model call's error: a delegation that ended on it failed
	// because of this worker's model, and another worker may do better.
	var modelErr error
	r.Client = func(name string) (llm.Client, string, error) {
		cl, id, err := base.Client(name)
		if err != nil {
			if k := classify(err); k != notModel {
				return nil, "", &modelError{model: label, kind: k, err: err}
			}
			return nil, "", err
		}
		return watchedClient{Client: cl, check: fenced, record: func(err error) {
			mu.Lock()
			modelErr = err
			mu.Unlock()
		}}, id, nil
	}
	// No team tools here: post_task, send_message and claim_task would
	// act on this host's own board, which no one reads (the claims and
	// the mailbox are the coordinator's: a team member's round gets its
	// messages in the index it was sent).
	r.Registry = base.Registry.Without(agents.TeamToolNames...).Guarded(func(ctx context.Context, _ string) error { return fenced(ctx) })
	r.NoClaims = true
	stems := base.Board
	if stems == nil {
		stems = blackboard.Open("") // names only: nothing is written
	}
	r.Land = func(_ string, n blackboard.NewNote) (blackboard.NoteMeta, error) {
		if err := fenced(ctx); err != nil {
			return blackboard.NoteMeta{}, err
		}
		mu.Lock()
		defer mu.Unlock()
		h := n.Handoff
		out.Handoff, out.Body, out.Observed, out.Patch, out.Stem = &h, n.Body, n.ObservedArtifacts, n.Patch, n.Stem
		if out.Stem == "" {
			out.Stem = stems.NewStem()
		}
		ref := blackboard.Ref{Agent: blackboard.NormalizeAgent(h.Agent), Stem: out.Stem}.String()
		return blackboard.NoteMeta{Ref: ref, Agent: h.Agent, Stem: out.Stem, Status: h.Status, Task: h.Task, Conclusion: h.Conclusion}, nil
	}
	// Its steps and last tool, for the coordinator and yagent workers.
	prog := startProgress(ctx, att, w.notice)
	defer prog.stop()
	inner := base.Recorder
	r.Recorder = func(ctx context.Context, d agents.Delegation) (agents.DelegationHooks, error) {
		var hooks agents.DelegationHooks
		if inner != nil {
			var err error
			if hooks, err = inner(ctx, d); err != nil {
				return hooks, err
			}
		}
		onResp := hooks.OnResponse
		hooks.OnResponse = func(resp llm.Response) {
			if fenced(ctx) != nil {
				return // a stale attempt's spend is not its job's
			}
			mu.Lock()
			out.Responses = append(out.Responses, resp.Usage)
			mu.Unlock()
			prog.response()
			if onResp != nil {
				onResp(resp)
			}
		}
		appendMsg := hooks.Append
		hooks.Append = func(m llm.Message) error {
			prog.message(m)
			if appendMsg == nil {
				return nil
			}
			return appendMsg(m)
		}
		return hooks, nil
	}
	tools := a.Tools
	if tools == nil {
		tools = []string{}
	}
	d := agents.Delegation{
		CallID: a.Delegation, Agent: a.Agent.Name, Task: a.Task, BoardID: a.Board, Depth: 1, Key: a.Key,
		Model: a.Model, MaxSteps: a.MaxSteps, Base: a.Base, Stem: a.Stem,
		Prepared: &agents.Prepared{
			Definition: agents.Definition{Name: a.Agent.Name, Tools: tools, Model: a.Agent.Model, MaxSteps: a.Agent.MaxSteps, Source: a.Agent.Source},
			Prompt:     a.Agent.Prompt, Index: a.Index, Pack: a.Pack, Unresolved: a.Unresolved,
		},
	}
	res, err := r.Run(ctx, d)
	mu.Lock()
	defer mu.Unlock()
	if cause := context.Cause(ctx); errors.Is(cause, errStale) {
		return out, cause
	}
	out.Usage, out.ElapsedMS = res.Usage, res.Elapsed.Milliseconds()
	if err != nil {
		return out, err
	}
	if out.Handoff != nil && out.Handoff.Status == blackboard.StatusError {
		if k := classify(modelErr); k != notModel {
			out.Handoff, out.Body, out.Observed, out.Patch = nil, "", nil, nil
			return out, &modelError{model: label, kind: k, err: modelErr}
		}
	}
	if res.Abandoned {
		if errors.Is(context.Cause(ctx), context.DeadlineExceeded) {
			return out, fmt.Errorf("stopped after rescue_after (%s): the delegation ran longer than queue.rescue_after; raise it above your longest delegation",
				shortDuration(w.q.opts.RescueAfter))
		}
		if ctx.Err() != nil {
			return out, fmt.Errorf("abandoned: %s", res.Reason)
		}
		out.Abandoned = res.Reason
	}
	return out, nil
}

// modelLabel names the job's model for messages: the settings it carries,
// else this host's, else its name.
func (w *delegationWorker) modelLabel(s *ModelSettings, name string) string {
	switch {
	case s != nil:
		return s.String()
	case w.opts.Models != nil:
		if m, ok := w.opts.Models(name); ok {
			return m.String()
		}
	}
	if name == "" {
		return "default"
	}
	return name
}

// watchedClient tells record how each model call ended (nil: answered);
// a call the delegation's own context cut short is not the model's.
type watchedClient struct {
	llm.Client
	check  func(context.Context) error // before each call: the attempt is current
	record func(error)
}

func (c watchedClient) Stream(ctx context.Context, req llm.Request) (llm.Response, error) {
	if err := c.check(ctx); err != nil {
		return llm.Response{}, err
	}
	resp, err := c.Client.Stream(ctx, req)
	if ctx.Err() == nil {
		c.record(err)
	}
	return resp, err
}

// Profile is the wrapped client's provider profile (spans name it).
func (c watchedClient) Profile() llm.Profile {
	if p, ok := c.Client.(interface{ Profile() llm.Profile }); ok {
		return p.Profile()
	}
	return llm.Profile{}
}

// CallCost is the wrapped client's price of usage (budget.Guard's), so
// a job's usage carries its cost.
func (c watchedClient) CallCost(u llm.Usage) (float64, bool) {
	if p, ok := c.Client.(interface {
		CallCost(llm.Usage) (float64, bool)
	}); ok {
		return p.CallCost(u)
	}
	return 0, false
}

// missingTools returns the names among want that reg lacks (agent_exit is
// every sub-agent's own).
func missingTools(reg *agents.Registry, want []string) []string {
	var missing []string
	for _, name := range want {
		if name == agents.ExitTool().Name {
			continue
		}
		if _, ok := reg.Get(name); !ok {
			missing = append(missing, name)
		}
	}
	slices.Sort(missing)
	return missing
}

// shortDuration spells d as a person would set it: 1h, 90m → 1h30m, 10s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
