package director

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/hooks"
	"github.com/yagent/yagent/memory"
)

// ErrPromptBlocked is a prompt a UserPromptSubmit hook erased: no model
// was called and nothing was recorded; the error says the hook's reason.
var ErrPromptBlocked = errors.New("a UserPromptSubmit hook blocked the prompt")

// pendingContext is hook context waiting for the session's next turn
// (SessionStart's, raised when the session opens or after a compaction).
type pendingContext struct {
	mu   sync.Mutex
	text []string
}

func (p *pendingContext) add(text []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.text = append(p.text, text...)
}

func (p *pendingContext) take() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	t := p.text
	p.text = nil
	return t
}

// hookBase is what every hook of the session's director reads.
func (d *Director) hookBase(ev hooks.Event) hooks.Input {
	s := d.opts.Session
	return hooks.Input{Event: ev, SessionID: s.ID(), TranscriptPath: s.Info().Rollout, Cwd: d.app.Workspace.Dir()}
}

// runHooks runs the hooks of in.Event (none: a zero Outcome) and shows the
// person what they said and every hook that failed.
func (d *Director) runHooks(ctx context.Context, in hooks.Input) (hooks.Outcome, error) {
	o, err := d.app.Hooks.Run(ctx, in)
	if err != nil {
		return o, fmt.Errorf("%s hooks: %w", in.Event, err)
	}
	for _, m := range append(o.Messages, o.Notices...) {
		d.notice(m)
	}
	return o, nil
}

// userPromptSubmit runs the UserPromptSubmit hooks of a prompt: a block
// (exit 2, "decision": "block") or "continue": false erases it
// (ErrPromptBlocked with the reason, for the person); their context is
// added to the message the model reads.
func (d *Director) userPromptSubmit(ctx context.Context, prompt string) (string, error) {
	in := d.hookBase(hooks.UserPromptSubmit)
	in.Prompt = prompt
	o, err := d.runHooks(ctx, in)
	if err != nil {
		return "", err
	}
	if o.Block || o.Stop {
		why := strings.TrimSpace(strings.Join([]string{o.Reason, o.StopReason}, "\n"))
		if why == "" {
			why = "(the hook gave no reason)"
		}
		return "", fmt.Errorf("%w (it was not sent, nor kept): %s", ErrPromptBlocked, why)
	}
	return withHookContext(prompt, o.Context), nil
}

// withHookContext is msg with the hooks' context after it, each part
// marked as theirs.
func withHookContext(msg string, context []string) string {
	for _, c := range context {
		if c = strings.TrimSpace(c); c != "" {
			msg += "\n\n[hook] " + c
		}
	}
	return msg
}

// SessionStart runs the SessionStart hooks (source startup, resume or
// compact); their context waits for the next turn. A failure is a notice.
func (d *Director) SessionStart(ctx context.Context, source string) {
	in := d.hookBase(hooks.SessionStart)
	in.Source = source
	o, err := d.runHooks(ctx, in)
	d.warn("run the SessionStart hooks", err)
	d.pending.add(o.Context)
}

// SessionEnd runs the SessionEnd hooks (reason prompt_input_exit for an
// interactive session, else other); they run even when ctx ended, each
// under its own limit. A failure is a notice.
func (d *Director) SessionEnd(ctx context.Context) {
	in := d.hookBase(hooks.SessionEnd)
	in.Reason = "other"
	if d.opts.Interactive {
		in.Reason = "prompt_input_exit"
	}
	_, err := d.runHooks(context.WithoutCancel(ctx), in)
	d.warn("run the SessionEnd hooks", err)
}

// preCompact runs the PreCompact hooks before the session's history is
// compacted (trigger manual: /compact; auto: over the budget). A failure
// is a notice; nothing they say stops the compaction.
func (d *Director) preCompact(ctx context.Context, trigger string) {
	in := d.hookBase(hooks.PreCompact)
	in.Trigger = trigger
	_, err := d.runHooks(ctx, in)
	d.warn("run the PreCompact hooks", err)
}

// compacted is what follows a compaction of the session's history:
// SessionStart with source compact, its context for the next turn.
func (d *Director) compacted(ctx context.Context, err error) {
	if err == nil {
		d.SessionStart(ctx, "compact")
	}
}

// sessionHooks says whether sess is the director's own session (its
// compactions raise PreCompact and SessionStart; a sub-agent's do not).
func (d *Director) sessionHooks(sess *memory.Session) bool { return sess == d.opts.Session }

// BatchHooks is s with the BatchJobFailed hooks behind it: each
// delegation of a batch that finishes neither ok nor partial raises them
// (job: the plan's id of it; notify-only, a failure is a notice).
func (r *Run) BatchHooks(ctx context.Context, s agents.Sink) agents.Sink {
	d := r.Director
	if d.app.Hooks == nil || s == nil {
		return s
	}
	return agents.SinkFunc(func(e agents.Event) {
		s.Emit(e)
		del := e.Delegation
		if e.Type != agents.EventDelegationFinished || del == nil || blackboard.Status(del.Status).Succeeded() {
			return
		}
		in := d.hookBase(hooks.BatchJobFailed)
		in.Job, in.AgentType, in.NoteRef, in.Status, in.Reason = del.ID, del.Agent, del.Ref, del.Status, del.Reason
		o, err := d.app.Hooks.Run(context.WithoutCancel(ctx), in)
		if err != nil {
			o.Notices = append(o.Notices, fmt.Sprintf("BatchJobFailed hooks: %v", err))
		}
		for _, m := range append(o.Messages, o.Notices...) {
			s.Emit(agents.Event{Type: agents.EventNotice, Time: e.Time, Agent: "yagent", Text: m})
		}
	})
}
