package director

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/event"
	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/memory"
)

// Background delegations (issue 30 item 1): delegate with background:
// true returns at once with the ref the note will land at (its stem is
// reserved first), and the delegation runs on in this process. While it
// runs, the board index shows it under "running" from live state (its
// step and last tool, never written as notes); when it lands, under
// "finished since your last call" until a response of the lead came back
// to a request that showed it (memory.Session.MarkSeen: the mark is the
// session's, so a resumed session does not report it again). It still
// lands exactly one note: its own, or — cancelled, or abandoned by its
// token budget — a degraded one with the sub-agent's last output
// (agents.RecoverDelegation, the path of a delegation a dead process
// left). A process that ends while one runs (Close, yagent run --detach)
// records nothing for it: the next resume recovers it like any
// delegation a dead process left, at its ref.

// errDetached is why Close stops the background delegations still
// running: the process goes, they are left to the next resume.
var errDetached = errors.New("the process ended (left to yagent resume)")

// errCancelled is why cancel_delegation stops one.
var errCancelled = errors.New("cancelled")

// job is one background delegation of this process.
type job struct {
	ref, agent, task, callID string
	started                  time.Time
	cancel                   context.CancelCauseFunc
	done                     chan struct{} // closed when it has landed (or was left)

	mu        sync.Mutex
	steps     int
	lastTool  string
	sub       string // its sub-agent session
	cancelled bool   // by cancel_delegation or yagent board cancel
	detached  bool
	end       event.DelegationEvent // how it ended (Status "" while running)
}

type jobKey struct{}

// jobOf is the background job ctx runs (nil: none).
func jobOf(ctx context.Context) *job {
	j, _ := ctx.Value(jobKey{}).(*job)
	return j
}

// progress is a snapshot of a running job for the index.
func (j *job) progress() (steps int, tool string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.steps, j.lastTool
}

func (j *job) ended() (event.DelegationEvent, bool) {
	select {
	case <-j.done:
	default:
		return event.DelegationEvent{}, false
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.end, !j.detached
}

// watch counts the sub-agent's model calls and keeps its last tool's
// name: the "running" line's step and last tool (of a delegation on a
// queue worker, as Progress is told them).
func (j *job) watch(h agents.DelegationHooks) agents.DelegationHooks {
	j.mu.Lock()
	j.sub = h.Session
	j.mu.Unlock()
	appendMsg, onResponse := h.Append, h.OnResponse
	h.Append = func(m llm.Message) error {
		if n := len(m.ToolCalls); n > 0 && m.Role == llm.RoleAssistant {
			j.mu.Lock()
			j.lastTool = m.ToolCalls[n-1].Name
			j.mu.Unlock()
		}
		if appendMsg == nil {
			return nil
		}
		return appendMsg(m)
	}
	h.OnResponse = func(r llm.Response) {
		j.mu.Lock()
		j.steps++
		j.mu.Unlock()
		if onResponse != nil {
			onResponse(r)
		}
	}
	// A delegation on a queue worker: its executor reads the worker's
	// progress from the queue and says it here.
	progress := h.Progress
	h.Progress = func(steps int, tool string) {
		j.mu.Lock()
		j.steps, j.lastTool = steps, tool
		j.mu.Unlock()
		if progress != nil {
			progress(steps, tool)
		}
	}
	return h
}

// backgrounds are the background delegations of one director.
type backgrounds struct {
	mu     sync.Mutex
	jobs   []*job // in start order; finished ones stay (await, cancel)
	closed bool
	wg     sync.WaitGroup
	onDone func(event.DelegationEvent)
}

func (b *backgrounds) find(ref string) *job {
	b.mu.Lock()
	defer b.mu.Unlock()
	r := normalRef(ref)
	for _, j := range b.jobs {
		if j.ref == r {
			return j
		}
	}
	return nil
}

// running returns the jobs that have not landed yet.
func (b *backgrounds) running() []*job {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []*job
	for _, j := range b.jobs {
		select {
		case <-j.done:
		default:
			out = append(out, j)
		}
	}
	return out
}

// normalRef is ref as the board writes it ({agent}/{stem}, the agent
// normalised); a ref that does not parse stays as given.
func normalRef(ref string) string {
	if r, err := blackboard.ParseNoteRef(ref); err == nil {
		return r.String()
	}
	return strings.TrimSpace(ref)
}

// background starts dl in the background and tells the lead the ref its
// note will land at. The delegation is prepared now (an unknown agent or
// a bad context ref is an error for the model at once) and runs under the
// delegator's guards like a delegation waited for.
func (d *Director) background(ctx context.Context, c *agents.Call, dl agents.Delegation) (agents.Result, error) {
	if dl.Depth > 1 {
		return agents.ErrorResult("only the director delegates in the background: leave background out and wait for the note"), nil
	}
	if res, ok := d.delegator.admit(); !ok {
		return res, nil
	}
	prep, err := d.delegator.Runner.Prepare(dl)
	if err != nil {
		return agents.ErrorResult("%v", err), nil
	}
	dl.Prepared, dl.Agent, dl.Background = prep, prep.Definition.Name, true
	dl.Stem = d.app.Board.NewStem()
	ref := blackboard.Ref{Agent: blackboard.NormalizeAgent(dl.Agent), Stem: dl.Stem}.String()
	b := &d.bg
	// The turn's values (budget, board, trace) go with it; the turn's end
	// or cancel does not: only cancel_delegation and Close stop it.
	bctx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	j := &job{ref: ref, agent: dl.Agent, task: dl.Task, callID: c.ID, started: time.Now(), cancel: cancel, done: make(chan struct{})}
	bctx = context.WithValue(bctx, jobKey{}, j)
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		cancel(nil)
		return agents.ErrorResult("this session is closing: nothing more can start"), nil
	}
	b.jobs = append(b.jobs, j)
	b.wg.Add(1)
	b.mu.Unlock()
	d.watchCancelRequests(j)
	go func() {
		defer b.wg.Done()
		defer cancel(nil)
		end := d.runBackground(bctx, c, dl, j)
		j.mu.Lock()
		j.end = end
		detached := j.detached
		j.mu.Unlock()
		d.forgetCancelRequest(j)
		close(j.done)
		b.mu.Lock()
		onDone := b.onDone
		b.mu.Unlock()
		if !detached && onDone != nil {
			onDone(end)
		}
	}()
	return agents.Result{Content: fmt.Sprintf("started in the background\nref: %s\n(its note lands at this ref; the board index lists it as running until then, then as finished; await_delegations waits for it, cancel_delegation stops it)", ref),
		Summary: "background " + ref}, nil
}

// runBackground runs j to its one note and says how it ended. Cancelled
// or abandoned, the note is the sub-agent's last output (degraded, at
// j's ref) and its end is recorded then; left by Close, nothing is.
func (d *Director) runBackground(ctx context.Context, c *agents.Call, dl agents.Delegation, j *job) event.DelegationEvent {
	end := event.DelegationEvent{CallID: j.callID, Agent: j.agent, Task: j.task, Ref: j.ref, Background: true}
	res, started, err := d.delegator.execute(ctx, c, dl, func(res *agents.DelegationResult, err error) {
		if err != nil || !res.Abandoned {
			return
		}
		j.mu.Lock()
		cancelled, detached, sub := j.cancelled, j.detached, j.sub
		j.mu.Unlock()
		if detached {
			res.Reason = "the process ended; yagent resume recovers it"
			return
		}
		reason := agents.CancelledReason
		if !cancelled {
			reason = fmt.Sprintf("abandoned (%s) while it ran in the background; this is the last thing the sub-agent wrote", res.Reason)
		}
		meta, rerr := d.recoverOne(context.WithoutCancel(ctx), memory.PendingDelegation{DelegationEvent: event.DelegationEvent{
			CallID: j.callID, Agent: j.agent, Task: j.task, SubSession: sub, Ref: j.ref, Background: true}}, reason)
		if rerr != nil {
			d.warn("land the note of the stopped background delegation "+j.ref, rerr)
			return
		}
		res.Abandoned, res.Status, res.Ref, res.Conclusion, res.Reason = false, meta.Status, meta.Ref, meta.Conclusion, reason
	})
	j.mu.Lock()
	detached := j.detached
	j.mu.Unlock()
	switch {
	case !started && detached, detached && err != nil && errors.Is(err, context.Canceled):
		// Left by Close while it waited for a slot, or before its
		// sub-agent session was recorded: nothing lands now. Its start is
		// recorded here (the sub-agent's recorder never got to it), so the
		// session keeps it pending and yagent resume lands its one note,
		// as --detach promised.
		end.Status, end.Conclusion = "abandoned", "it never started: the process ended; yagent resume recovers it"
		d.warn("record the background delegation left unstarted", d.opts.Session.DelegationStarted(event.DelegationEvent{
			CallID: j.callID, Agent: j.agent, Task: j.task, Ref: j.ref, Background: true}))
	case !started || err != nil:
		// Cancelled while it waited for a slot, or refused once prepared
		// (the model's client, the recorder): the ref still gets its one
		// note, saying why.
		h := blackboard.Handoff{Status: blackboard.StatusDegraded, Agent: j.agent, Task: j.task,
			Reason: "cancelled while it waited for a free slot (agents.max_parallel_delegations)", Conclusion: "Cancelled before it started."}
		if err != nil {
			h.Status, h.Reason, h.Conclusion = blackboard.StatusError, err.Error(), "The delegation failed before it ran: "+err.Error()
		}
		meta, werr := d.app.Board.WriteNote(d.opts.BoardID, blackboard.NewNote{Stem: dl.Stem, Handoff: h})
		if werr != nil {
			d.warn("land the note of background delegation "+j.ref, werr)
			end.Status, end.Conclusion = "refused", h.Conclusion
			break
		}
		end.Status, end.Conclusion = string(meta.Status), meta.Conclusion
		d.warn("record the end of the delegation", d.opts.Session.DelegationFinished(end))
	case res.Abandoned:
		end.Status, end.Conclusion = "abandoned", res.Reason
	default:
		end.Status, end.Ref, end.Conclusion = string(res.Status), res.Ref, res.Conclusion
	}
	return end
}

// cancelIn are cancel_delegation's arguments.
type cancelIn struct {
	Ref string `json:"ref"`
}

// awaitIn are await_delegations' arguments.
type awaitIn struct {
	Refs    []string `json:"refs,omitempty"`
	Timeout int      `json:"timeout_seconds,omitempty" default:"300"`
}

// backgroundTools are cancel_delegation and await_delegations: the lead's.
func (d *Director) backgroundTools() []*agents.Tool {
	return []*agents.Tool{
		agents.NewTool("cancel_delegation", "director", agents.LeadOnly, func(ctx context.Context, _ *agents.Call, in cancelIn) (agents.Result, error) {
			end, err := d.CancelBackground(ctx, in.Ref)
			if err != nil {
				if ctx.Err() != nil {
					return agents.Result{}, ctx.Err()
				}
				return agents.ErrorResult("%v", err), nil
			}
			return agents.Result{Content: fmt.Sprintf("cancelled\nstatus: %s\nref: %s\nconclusion: %s\n(read_note gives what it wrote)", end.Status, end.Ref, end.Conclusion),
				Summary: "cancelled " + end.Ref}, nil
		}),
		agents.NewTool("await_delegations", "director", agents.LeadOnly, func(ctx context.Context, _ *agents.Call, in awaitIn) (agents.Result, error) {
			text, err := d.AwaitBackground(ctx, in.Refs, time.Duration(in.Timeout)*time.Second)
			if err != nil {
				if ctx.Err() != nil {
					return agents.Result{}, ctx.Err()
				}
				return agents.ErrorResult("%v", err), nil
			}
			return agents.Result{Content: text, Summary: firstLine(text)}, nil
		}),
	}
}

// ErrNoBackground reports a ref that names no background delegation of
// this session's process.
var ErrNoBackground = errors.New("names no background delegation running in this process")

// CancelBackground stops the background delegation ref and waits for its
// one note (degraded, the sub-agent's last output) to land. A ref that
// runs nowhere here, or that has landed already, is an error saying so.
func (d *Director) CancelBackground(ctx context.Context, ref string) (event.DelegationEvent, error) {
	j := d.bg.find(ref)
	if j == nil {
		return event.DelegationEvent{}, fmt.Errorf("cancel %s: it %w (running: %s)", ref, ErrNoBackground, d.runningRefs())
	}
	if end, ok := j.ended(); ok {
		return end, fmt.Errorf("cancel %s: it already finished (%s: %s); nothing to cancel", j.ref, end.Status, end.Conclusion)
	}
	j.mu.Lock()
	again := j.cancelled
	j.cancelled = true
	j.mu.Unlock()
	if again {
		return event.DelegationEvent{}, fmt.Errorf("cancel %s: it is being cancelled already; its note lands at that ref", j.ref)
	}
	j.cancel(errCancelled)
	select {
	case <-j.done:
	case <-ctx.Done():
		return event.DelegationEvent{}, ctx.Err()
	}
	end, _ := j.ended()
	return end, nil
}

func (d *Director) runningRefs() string {
	var refs []string
	for _, j := range d.bg.running() {
		refs = append(refs, j.ref)
	}
	if len(refs) == 0 {
		return "none"
	}
	return strings.Join(refs, ", ")
}

// AwaitBackground waits until the background delegations refs (every one
// running when refs is empty) have landed, or timeout passes, and says
// how each ended and which still run. A ref that is no background
// delegation of this process but a note on the board is reported as the
// note says; one that is neither is an error naming it.
func (d *Director) AwaitBackground(ctx context.Context, refs []string, timeout time.Duration) (string, error) {
	var jobs []*job
	var landed []string
	if len(refs) == 0 {
		jobs = d.bg.running()
		if len(jobs) == 0 {
			return "no background delegation is running", nil
		}
	}
	var unknown []string
	for _, ref := range refs {
		if j := d.bg.find(ref); j != nil {
			jobs = append(jobs, j)
			continue
		}
		if m, _, err := d.app.Board.ReadHandoff(d.opts.BoardID, ref); err == nil {
			landed = append(landed, fmt.Sprintf("%s: %s — %s", m.Ref, m.Status, m.Conclusion))
			continue
		}
		unknown = append(unknown, ref)
	}
	if len(unknown) > 0 {
		return "", fmt.Errorf("await %s: no background delegation or note has that ref (running: %s)", strings.Join(unknown, ", "), d.runningRefs())
	}
	if timeout <= 0 {
		timeout = 300 * time.Second
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
wait:
	for _, j := range jobs {
		select {
		case <-j.done:
		case <-timer.C:
			break wait
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	var still []string
	for _, j := range jobs {
		end, ok := j.ended()
		switch {
		case ok:
			landed = append(landed, fmt.Sprintf("%s: %s — %s", end.Ref, end.Status, end.Conclusion))
		case end.Status == "":
			steps, _ := j.progress()
			still = append(still, fmt.Sprintf("%s (%s, step %d, %s)", j.ref, j.agent, steps, time.Since(j.started).Round(time.Second)))
		}
	}
	var b strings.Builder
	if len(landed) > 0 {
		fmt.Fprintf(&b, "landed (read_note gives the full text):\n%s", strings.Join(landed, "\n"))
	}
	if len(still) > 0 {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "still running after %s: %s", timeout, strings.Join(still, ", "))
	}
	return b.String(), nil
}

// WaitBackground waits until every background delegation of this process
// has landed (yagent run waits before it exits); ctx ends the wait, not
// them.
func (d *Director) WaitBackground(ctx context.Context) error {
	for _, j := range d.bg.running() {
		select {
		case <-j.done:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// Running returns the refs of the background delegations still running.
func (d *Director) Running() []string {
	var out []string
	for _, j := range d.bg.running() {
		out = append(out, j.ref)
	}
	return out
}

// OnBackgroundDone sets what is told when a background delegation of this
// process lands (its ref, status and conclusion) — the interactive
// session's hook: with agents.on_background_done report and the director
// idle, it starts a turn that reports it (ReportBackground). It is called
// from the delegation's goroutine.
func (d *Director) OnBackgroundDone(fn func(event.DelegationEvent)) {
	d.bg.mu.Lock()
	d.bg.onDone = fn
	d.bg.mu.Unlock()
}

// ReportsBackground says whether an idle interactive session starts a
// turn when a background delegation lands (agents.on_background_done:
// report) rather than leaving it to the next index (wait).
func (d *Director) ReportsBackground() bool {
	return d.app.Config.Agents.OnBackgroundDone != "wait"
}

// ReportBackgroundPrompt is the input of the turn an idle interactive
// session starts when background delegations landed: the index of that
// turn's first call lists them.
func ReportBackgroundPrompt() string {
	return "[background] delegations you started in the background have finished (listed at the end of this request): report what they found, briefly."
}

// detach stops the background delegations still running without landing
// or recording anything (Close: the process goes). Each stays in flight
// in the rollout, recovered at its ref by the next resume.
func (b *backgrounds) detach() {
	b.mu.Lock()
	b.closed = true
	jobs := slices.Clone(b.jobs)
	b.mu.Unlock()
	for _, j := range jobs {
		j.mu.Lock()
		if j.end.Status == "" {
			j.detached = true
		}
		j.mu.Unlock()
		j.cancel(errDetached)
	}
	b.wg.Wait()
}

// backgroundSections are the index's "running" and "finished since your
// last call" sections; shown are the refs of the finished ones, marked
// seen once a response to the request carrying them came back.
func (d *Director) backgroundSections(now time.Time) (text string, shown []string) {
	width := d.app.Index.LineChars
	var parts []string
	if run := d.bg.running(); len(run) > 0 {
		lines := []string{fmt.Sprintf("[background · running] %d (await_delegations{refs} waits for them, cancel_delegation{ref} stops one):", len(run))}
		for _, j := range run {
			steps, tool := j.progress()
			if tool == "" {
				tool = "none yet"
			}
			lines = append(lines, cutLine(fmt.Sprintf("- %s · %s · step %d · last tool %s · %s · task: %s", j.ref, j.agent, steps, tool,
				now.Sub(j.started).Round(time.Second), oneLine(j.task)), width))
		}
		parts = append(parts, strings.Join(lines, "\n"))
	}
	if done := d.opts.Session.Unseen(); len(done) > 0 {
		lines := []string{fmt.Sprintf("[background · finished since your last call] %d (read_note{ref} gives the full text):", len(done))}
		for _, e := range done {
			lines = append(lines, cutLine(fmt.Sprintf("- %s · %s · %s", e.Ref, e.Status, oneLine(e.Conclusion)), width))
			shown = append(shown, e.Ref)
		}
		parts = append(parts, strings.Join(lines, "\n"))
	}
	return strings.Join(parts, "\n"), shown
}

// cutLine keeps at most width runes of s (0: all), marking a cut.
func cutLine(s string, width int) string {
	r := []rune(s)
	if width <= 0 || len(r) <= width {
		return s
	}
	return string(r[:width-1]) + "…"
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
