package queue

import (
	"context"
	"fmt"
	"sync"

	"github.com/yagent/yagent/agents"
)

// Background runs a director session's background delegations on the
// queue's workers (issue 30 item 3: "with queue.dsn, background
// delegations run on workers like batch jobs"): one Coordinator per
// session and process — the same enqueue, leases, fencing, budgets and
// landing as a batch's — whose plan run is the session
// ("session <id>", digest "session:<id>"). Each delegation is one job
// keyed by the stem its note was reserved under (its CallID within the
// run), so the note lands once, at the ref the director announced. The queue and the coordinator are
// opened at the first delegation, never before; Close releases them.
type Background struct {
	opts Options
	co   CoordinatorOptions
	ctx  context.Context // the coordinator's: lives until Close
	// record is the director's Recorder (nil: none): called as a
	// delegation starts, so a process that dies while the job runs leaves
	// it in flight in the session (a resume recovers it at its ref); the
	// coordinator gets those hooks back when it lands the note.
	record func(context.Context, agents.Delegation) (agents.DelegationHooks, error)

	mu     sync.Mutex
	hooks  map[string]agents.DelegationHooks // by stem, from start to landing
	q      *Queue
	c      *Coordinator
	err    error
	closed bool
	stop   context.CancelFunc
}

// NewBackground returns the executor of session's background delegations
// on the queue o names; co.Runner and co.Board are the director's. ctx
// gives the coordinator its values (not its cancel: Close ends it).
func NewBackground(ctx context.Context, o Options, session string, co CoordinatorOptions) *Background {
	co.Plan, co.Digest, co.Resume = "session "+session, "session:"+session, false
	bctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	b := &Background{opts: o, ctx: bctx, stop: stop, hooks: map[string]agents.DelegationHooks{}}
	if co.Runner != nil && co.Runner.Recorder != nil {
		r := *co.Runner // the director's own runner keeps its Recorder
		b.record, r.Recorder = r.Recorder, func(ctx context.Context, d agents.Delegation) (agents.DelegationHooks, error) {
			if h, ok := b.take(d.CallID); ok {
				return h, nil
			}
			return b.record(ctx, d)
		}
		co.Runner = &r
	}
	b.co = co
	return b
}

func (b *Background) take(stem string) (agents.DelegationHooks, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	h, ok := b.hooks[stem]
	delete(b.hooks, stem)
	return h, ok
}

// coordinator opens the queue and the session's run at first use.
func (b *Background) coordinator() (*Coordinator, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.closed:
		return nil, fmt.Errorf("queue: the session is closing: nothing more goes to the workers")
	case b.c != nil || b.err != nil:
		return b.c, b.err
	}
	if b.q, b.err = Open(b.ctx, b.opts); b.err != nil {
		b.err = fmt.Errorf("background delegations run on the queue's workers (%s): %w", b.opts.Source, b.err)
		return nil, b.err
	}
	if b.c, b.err = b.q.Coordinate(b.ctx, b.co); b.err != nil {
		b.q.Close()
		b.q = nil
	}
	return b.c, b.err
}

// Run runs d on a worker and lands its note at d.Stem (reserved by the
// caller; one is reserved here when it is not) through the coordinator.
func (b *Background) Run(ctx context.Context, d agents.Delegation) (agents.DelegationResult, error) {
	if d.Stem == "" {
		d.Stem = b.co.Runner.Board.NewStem()
	}
	// Recorded first, and apart from a cancel already under way (the
	// process detaching while the queue opens): the session has the
	// delegation in flight from its start.
	if b.record != nil {
		h, err := b.record(context.WithoutCancel(ctx), d)
		if err != nil {
			return agents.DelegationResult{}, err
		}
		b.mu.Lock()
		b.hooks[d.Stem] = h
		b.mu.Unlock()
	}
	var res agents.DelegationResult
	c, err := b.coordinator()
	if err == nil {
		// The run keys a delegation by its CallID: a model's call ids
		// repeat across turns ("call_1" in every turn of a scripted
		// session), a reserved stem never does. The director knows the
		// delegation by its ref.
		run := d
		run.CallID = d.Stem
		stop := b.watchProgress(c, d.Stem) // its steps and last tool, told to its hooks
		res, err = c.Run(ctx, run)
		stop()
	}
	if h, ok := b.take(d.Stem); ok && h.Finish != nil {
		// Not landed (cancelled, the lease lost, refused): the record
		// ends as abandoned, which leaves a background delegation in
		// flight for its caller to land (or the next resume).
		r := res
		if !r.Abandoned {
			r.Abandoned, r.Reason = true, "its job did not land"
			if err != nil {
				r.Reason = err.Error()
			}
		}
		h.Finish(r)
	}
	return res, err
}

// Close releases the session's run and the queue, if a delegation opened
// them; none opens them after.
func (b *Background) Close() {
	b.mu.Lock()
	b.closed = true
	c, q := b.c, b.q
	b.mu.Unlock()
	if c != nil {
		c.Close(true)
	}
	b.stop()
	q.Close()
}
