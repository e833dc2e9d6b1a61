package queue

import (
	"context"
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
}

// Serve runs delegation jobs until ctx ends. Jobs running then are handed
// back to the queue without spending an attempt (river.JobSnooze(0)), so
// another worker takes them.
func (q *Queue) Serve(ctx context.Context, opts WorkerOptions) error {
	if opts.Runner == nil || opts.Concurrency < 1 {
		return errors.New("serve the queue: no runner or a concurrency below 1")
	}
	workers := river.NewWorkers()
	w := &delegationWorker{opts: opts, q: q}
	if err := river.AddWorkerSafely(workers, w); err != nil {
		return err
	}
	client, err := q.client(workerConfig(opts, workers, time.Now()))
	if err != nil {
		return fmt.Errorf("start the worker on %s: %w", q.addr, err)
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
	id := ""
	if opts.Name != "" {
		id = fmt.Sprintf("%.60s-%d", opts.Name, now.UnixNano())
	}
	return &river.Config{
		ID:                id,
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
}

func (w *delegationWorker) notice(text string) {
	if w.opts.Events != nil {
		w.opts.Events.Emit(agents.Event{Type: agents.EventNotice, Time: time.Now(), Agent: "worker", Text: text})
	}
}

// Work runs one delegation and records its note as the job's output.
func (w *delegationWorker) Work(ctx context.Context, job *river.Job[JobArgs]) error {
	a := job.Args
	w.notice(fmt.Sprintf("job %d: %s (%s) attempt %d of %d", job.ID, a.Delegation, a.Agent.Name, job.Attempt, job.MaxAttempts))
	out, err := w.run(telemetry.Extract(ctx, a.Trace), a)
	out.Version, out.Worker = outputVersion, w.opts.Name
	if err == nil && len(out.Patch) > maxOutputPatch {
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
		w.notice(fmt.Sprintf("job %d: %s failed: %v", job.ID, a.Delegation, err))
		return fmt.Errorf("worker %s: %w", w.opts.Name, err)
	}
	status := "abandoned (" + out.Abandoned + ")"
	if out.Handoff != nil {
		status = string(out.Handoff.Status)
	}
	w.notice(fmt.Sprintf("job %d: %s %s", job.ID, a.Delegation, status))
	return w.complete(ctx, job)
}

// complete marks the job completed, with its output, at once: River's
// batch completer would flush it up to 250 ms later, and the coordinator
// waits for it. Should this fail, returning nil leaves it to the completer.
func (w *delegationWorker) complete(ctx context.Context, job *river.Job[JobArgs]) error {
	tx, err := w.q.pool.Begin(ctx)
	if err != nil {
		return nil
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if _, err := river.JobCompleteTx[*riverpgxv5.Driver](ctx, tx, job); err != nil {
		return nil
	}
	_ = tx.Commit(ctx)
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
func (w *delegationWorker) run(ctx context.Context, a JobArgs) (JobOutput, error) {
	var out JobOutput
	base := w.opts.Runner
	if missing := missingTools(base.Registry, a.Tools); len(missing) > 0 {
		return out, fmt.Errorf("cannot run agent %s: this worker has no tool %s (configure it here, or run the job on a worker that has it)",
			a.Agent.Name, strings.Join(missing, ", "))
	}
	r := *base
	r.ExtraTools = nil // no nested delegations: they would write to a board
	var mu sync.Mutex
	r.Land = func(_ string, n blackboard.NewNote) (blackboard.NoteMeta, error) {
		mu.Lock()
		defer mu.Unlock()
		h := n.Handoff
		out.Handoff, out.Body, out.Observed, out.Patch = &h, n.Body, n.ObservedArtifacts, n.Patch
		return blackboard.NoteMeta{Agent: h.Agent, Status: h.Status, Task: h.Task, Conclusion: h.Conclusion}, nil
	}
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
			mu.Lock()
			out.Responses = append(out.Responses, resp.Usage)
			mu.Unlock()
			if onResp != nil {
				onResp(resp)
			}
		}
		return hooks, nil
	}
	tools := a.Tools
	if tools == nil {
		tools = []string{}
	}
	d := agents.Delegation{
		CallID: a.Delegation, Agent: a.Agent.Name, Task: a.Task, BoardID: a.Board, Depth: 1, Key: a.Key,
		Model: a.Model, MaxSteps: a.MaxSteps, Base: a.Base,
		Prepared: &agents.Prepared{
			Definition: agents.Definition{Name: a.Agent.Name, Tools: tools, Model: a.Agent.Model, MaxSteps: a.Agent.MaxSteps, Source: a.Agent.Source},
			Prompt:     a.Agent.Prompt, Index: a.Index, Pack: a.Pack, Unresolved: a.Unresolved,
		},
	}
	res, err := r.Run(ctx, d)
	mu.Lock()
	defer mu.Unlock()
	out.Usage, out.ElapsedMS = res.Usage, res.Elapsed.Milliseconds()
	if err != nil {
		return out, err
	}
	if res.Abandoned {
		if ctx.Err() != nil {
			return out, fmt.Errorf("abandoned: %s", res.Reason)
		}
		out.Abandoned = res.Reason
	}
	return out, nil
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
