package queue

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/yagent/yagent/llm"
)

// A job's progress while it runs (issue 30 item 1 with queue.dsn): the
// worker records each attempt's steps (model responses) and last tool in
// its yagent_job_attempt row (schema version 7), and the director's
// process reads them for the index's "[background · running]" line;
// `yagent workers` and the web view show them too.

// progressSchema adds the progress of an attempt to its row; a new
// attempt starts at 0 (startAttempt).
const progressSchema = `ALTER TABLE yagent_job_attempt
		ADD COLUMN steps int NOT NULL DEFAULT 0,
		ADD COLUMN last_tool text NOT NULL DEFAULT ''`

// progressTimeout bounds one write or read of a job's progress.
const progressTimeout = 5 * time.Second

// progressPoll is how often a background delegation's executor reads its
// job's progress while it runs. Tests lower it.
var progressPoll = time.Second

// writeProgress records a's steps and last tool, only while a holds the
// job's token: ok is false for a stale attempt (nothing written).
func (a *attempt) writeProgress(ctx context.Context, steps int, tool string) (ok bool, err error) {
	tag, err := a.q.pool.Exec(ctx, `UPDATE yagent_job_attempt SET steps = $3, last_tool = $4 WHERE job_id = $1 AND token = $2`,
		a.job, a.token, steps, tool)
	if err != nil {
		return false, err
	}
	return tag.RowsAffected() == 1, nil
}

// progress is a worker's record of one attempt's progress. The delegation
// never waits for it: a writer of its own writes the latest state once
// per step (when the step's answer is recorded; steps that come faster
// than a write are written together), and a write that fails is a
// notice, never the job's failure.
type progress struct {
	att    *attempt
	notice func(string)
	wake   chan struct{}
	cancel context.CancelFunc
	done   chan struct{}

	mu    sync.Mutex
	steps int
	tool  string
}

// startProgress starts the writer of att's progress; stop ends it.
func startProgress(ctx context.Context, att *attempt, notice func(string)) *progress {
	p := &progress{att: att, notice: notice, wake: make(chan struct{}, 1), done: make(chan struct{})}
	ctx, p.cancel = context.WithCancel(context.WithoutCancel(ctx))
	go p.write(ctx)
	return p
}

// response counts a model response (a step).
func (p *progress) response() {
	p.mu.Lock()
	p.steps++
	p.mu.Unlock()
}

// message notes the tool an assistant message calls last and has the
// step written: one write per step at most.
func (p *progress) message(m llm.Message) {
	if m.Role != llm.RoleAssistant {
		return
	}
	p.mu.Lock()
	if n := len(m.ToolCalls); n > 0 {
		p.tool = m.ToolCalls[n-1].Name
	}
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default: // a write is due already: it takes this step too
	}
}

func (p *progress) write(ctx context.Context) {
	defer close(p.done)
	var wroteSteps int
	var wroteTool string
	failing := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-p.wake:
		}
		p.mu.Lock()
		steps, tool := p.steps, p.tool
		p.mu.Unlock()
		if steps == wroteSteps && tool == wroteTool {
			continue
		}
		wctx, cancel := context.WithTimeout(ctx, progressTimeout)
		ok, err := p.att.writeProgress(wctx, steps, tool)
		cancel()
		switch {
		case err != nil && ctx.Err() != nil:
			return
		case err != nil:
			if !failing {
				p.notice(fmt.Sprintf("job %d: could not record its progress (step %d): %v; the job runs on, and the coordinator shows its last recorded step",
					p.att.job, steps, scrub(err, p.att.q.opts.DSN)))
			}
			failing = true
		case !ok:
			return // stale: the job's current attempt writes its own
		default:
			failing = false
			wroteSteps, wroteTool = steps, tool
		}
	}
}

// stop ends the writer (a write under way is cut short).
func (p *progress) stop() {
	p.cancel()
	<-p.done
}

// progress returns the steps and last tool of delegation id's job while
// it runs at the attempt its row records; running is false once it ended
// (or before an attempt started).
func (c *Coordinator) progress(ctx context.Context, id string) (steps int, tool string, running bool, err error) {
	err = c.q.pool.QueryRow(ctx, `SELECT a.steps, a.last_tool FROM yagent_batch_job b
			JOIN river_job j ON j.id = b.job_id
			JOIN yagent_job_attempt a ON a.job_id = j.id AND a.attempt = j.attempt
		WHERE b.run_id = $1 AND b.delegation = $2 AND j.state = 'running'`, c.run, id).Scan(&steps, &tool)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, "", false, nil
	}
	if err != nil {
		return 0, "", false, fmt.Errorf("queue %s: read the progress of %s: %w", c.q.addr, id, scrub(err, c.q.opts.DSN))
	}
	return steps, tool, true, nil
}

// watchProgress reads the progress of stem's job every progressPoll and
// tells its hooks' Progress of each change, until stop (which waits for
// the reader: nothing is told after it returns) or Close. A read that
// fails is said once per run of failures. Hooks without Progress (or
// none) are not read for.
func (b *Background) watchProgress(c *Coordinator, stem string) (stop func()) {
	b.mu.Lock()
	h, ok := b.hooks[stem]
	b.mu.Unlock()
	if !ok || h.Progress == nil {
		return func() {}
	}
	ctx, cancel := context.WithCancel(b.ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(progressPoll)
		defer t.Stop()
		lastSteps, lastTool, failing := 0, "", false
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			rctx, rcancel := context.WithTimeout(ctx, progressTimeout)
			steps, tool, running, err := c.progress(rctx, stem)
			rcancel()
			if err != nil {
				if ctx.Err() != nil {
					return
				}
				if !failing {
					c.notice(fmt.Sprintf("%v (tried again every %s; the index shows its last known step)", err, progressPoll))
				}
				failing = true
				continue
			}
			failing = false
			if running && (steps != lastSteps || tool != lastTool) {
				lastSteps, lastTool = steps, tool
				b.report(stem, steps, tool)
			}
		}
	}()
	return func() {
		cancel()
		<-done
	}
}

// report tells stem's hooks its progress while they are held here: once
// its note lands (take), nothing more is told.
func (b *Background) report(stem string, steps int, tool string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if h, ok := b.hooks[stem]; ok && h.Progress != nil {
		h.Progress(steps, tool)
	}
}
