package agents

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/yagent/yagent/hooks"
	"github.com/yagent/yagent/llm"
)

// ErrHookStopped ends a turn a hook stopped (its "continue": false).
var ErrHookStopped = errors.New("a hook stopped the turn")

// hookPermissionKey carries a PreToolUse hook's decision to the approval
// gates of the one call it was made for.
type hookPermissionKey struct{}

// hookPermission is the decision of the hooks before this call: "allow"
// (as the person's yes, given in advance), "ask" (asked whatever the
// policy), or "".
func hookPermission(ctx context.Context) string {
	d, _ := ctx.Value(hookPermissionKey{}).(string)
	return d
}

// yes answers every question with Allow: a hook's "allow" where a
// question would be asked.
type yes struct{}

func (yes) Ask(context.Context, Question) (Answer, error) { return Allow, nil }

// withHook is p as a hook's decision for this call changes it: "allow"
// answers the policy's question yes (a protected path is still asked of
// the person: permitWrite keeps its own asker for those), "ask" makes
// every gate ask.
func (p ShellPolicy) withHook(ctx context.Context) (ShellPolicy, bool) {
	switch hookPermission(ctx) {
	case "allow":
		p.Ask, p.Allowed = yes{}, true
		return p, false
	case "ask":
		return p, true
	}
	return p, false
}

// hookInput is the part of a tool event's hook input every call shares.
func (l *Loop) hookInput(ctx context.Context, ev hooks.Event, c *Call) hooks.Input {
	in := l.HookBase
	in.Event = ev
	in.ToolName = c.Name
	in.ToolUseID = c.ID
	dir := in.Cwd
	if ws := WorkspaceFrom(ctx); ws != nil {
		dir = ws.Dir()
	}
	in.Cwd = dir
	in.ToolInput = hooks.ToolInput(c.Name, c.Args, dir)
	return in
}

// preToolUse runs the PreToolUse hooks of call c of t. It returns the
// context the call runs with (a hook's permission decision in it), the
// call as the hooks left it (updatedInput), and a result when the hooks
// settled the call without running it (denied, or arguments that no
// longer fit the tool).
func (l *Loop) preToolUse(ctx context.Context, a *Agent, t *Tool, c *Call) (context.Context, *Call, *Result, []string, error) {
	if !l.Hooks.Active(hooks.PreToolUse, c.Name) {
		return ctx, c, nil, nil, nil
	}
	o, err := l.Hooks.Run(ctx, l.hookInput(ctx, hooks.PreToolUse, c))
	if err != nil {
		return ctx, c, nil, nil, err
	}
	l.hookNotices(a, o)
	if o.Stop {
		return ctx, c, nil, nil, fmt.Errorf("%w before %s: %s", ErrHookStopped, c.Name, orSaid(o.StopReason))
	}
	if o.Permission == "deny" {
		r := ErrorResult("a PreToolUse hook of the person's blocked this call: %s", orSaid(o.Reason))
		return ctx, c, &r, nil, nil
	}
	if len(o.UpdatedInput) > 0 {
		args := hooks.FromToolInput(c.Name, o.UpdatedInput)
		if err := t.validate(args); err != nil {
			r := ErrorResult("a PreToolUse hook changed the arguments of %s into ones it does not take: %v", c.Name, err)
			return ctx, c, &r, nil, nil
		}
		c = &Call{ID: c.ID, Name: c.Name, Args: args}
	}
	if o.Permission != "" {
		ctx = context.WithValue(ctx, hookPermissionKey{}, o.Permission)
	}
	return ctx, c, nil, o.Context, nil
}

// postToolUse runs the PostToolUse (or, for an error result,
// PostToolUseFailure) hooks of c and adds what they tell the model to its
// result.
func (l *Loop) postToolUse(ctx context.Context, a *Agent, c *Call, res Result, extra []string) (Result, error) {
	ev := hooks.PostToolUse
	if res.IsError {
		ev = hooks.PostToolUseFailure
	}
	if l.Hooks.Active(ev, c.Name) {
		in := l.hookInput(ctx, ev, c)
		if res.IsError {
			in.Error = res.Content
		} else {
			in.ToolResponse, _ = json.Marshal(map[string]any{"content": res.Content, "summary": res.Summary, "artifacts": res.Artifacts})
		}
		o, err := l.Hooks.Run(ctx, in)
		if err != nil {
			return res, err
		}
		l.hookNotices(a, o)
		if o.Block {
			extra = append(extra, o.Reason)
		}
		extra = append(extra, o.Context...)
		if o.Stop {
			return res, fmt.Errorf("%w after %s: %s", ErrHookStopped, c.Name, orSaid(o.StopReason))
		}
	}
	for _, x := range extra {
		if x = strings.TrimSpace(x); x != "" {
			res.Content += "\n\n[hook] " + x
		}
	}
	return res, nil
}

// hookNotices shows the person what the hooks said to them, and every hook
// that failed.
func (l *Loop) hookNotices(a *Agent, o hooks.Outcome) {
	for _, m := range append(o.Messages, o.Notices...) {
		l.emit(a, Event{Type: EventNotice, Text: m})
	}
}

func orSaid(s string) string {
	if strings.TrimSpace(s) == "" {
		return "(the hook gave no reason)"
	}
	return s
}

// maxStopBlocks bounds the rounds Stop (or SubagentStop) hooks force in a
// row: Claude Code ends the turn after 8 consecutive blocks, with a
// warning, and so does yagent.
const maxStopBlocks = 8

// stopEvent is the event raised when l's turn would end: SubagentStop for
// a sub-agent (its HookBase names its agent), else Stop.
func (l *Loop) stopEvent() hooks.Event {
	if l.HookBase.AgentType != "" {
		return hooks.SubagentStop
	}
	return hooks.Stop
}

// stopHooks runs the Stop (or SubagentStop) hooks as a's turn would end
// (its answer, or a sub-agent's agent_exit); forced counts the rounds they
// forced so far in this turn. It returns the message that forces another
// round (the hooks' reason, for the model), or nil: the turn ends —
// nothing blocked, a hook said "continue": false, or the bound is reached.
func (l *Loop) stopHooks(ctx context.Context, a *Agent, out *Outcome, forced int) (*llm.Message, error) {
	ev := l.stopEvent()
	if !l.Hooks.Active(ev, l.HookBase.AgentType) {
		return nil, nil
	}
	in := l.HookBase
	in.Event = ev
	active := forced > 0
	in.StopHookActive = &active
	in.LastAssistantMessage = out.Final
	if ws := WorkspaceFrom(ctx); ws != nil {
		in.Cwd = ws.Dir()
	}
	o, err := l.Hooks.Run(ctx, in)
	if err != nil {
		return nil, err
	}
	l.hookNotices(a, o)
	switch {
	case o.Stop:
		if o.StopReason != "" {
			l.emit(a, Event{Type: EventNotice, Text: fmt.Sprintf("a %s hook ended the turn: %s", ev, o.StopReason)})
		}
		return nil, nil
	case !o.Block:
		return nil, nil
	case forced >= maxStopBlocks:
		l.emit(a, Event{Type: EventNotice, Text: fmt.Sprintf("warning: %s hooks blocked the end of the turn %d times in a row; it ends now (their last reason: %s)", ev, forced, orSaid(o.Reason))})
		return nil, nil
	}
	l.emit(a, Event{Type: EventNotice, Text: fmt.Sprintf("a %s hook keeps the turn going: %s", ev, orSaid(o.Reason))})
	return &llm.Message{Role: llm.RoleUser, Content: fmt.Sprintf("[hook] %s hook feedback: %s", ev, orSaid(o.Reason))}, nil
}

// hookCallKey carries the running call to an approval question it raises
// (HookAsker): the PermissionRequest and Notification hooks' input.
type hookCallKey struct{}

// hookCall is one running call, as its approval questions see it. denied
// is a PermissionRequest hook's reason for a refusal, added to the call's
// result for the model.
type hookCall struct {
	l      *Loop
	a      *Agent
	c      *Call
	mu     sync.Mutex
	denied []string
}

func (h *hookCall) deny(reason string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.denied = append(h.denied, "a PermissionRequest hook of the person's denied it: "+orSaid(reason))
}

func (h *hookCall) reasons() []string {
	if h == nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.denied
}

// withHookCall puts call c of a on ctx for HookAsker (nothing without
// hooks).
func (l *Loop) withHookCall(ctx context.Context, a *Agent, c *Call) (context.Context, *hookCall) {
	if l.Hooks == nil {
		return ctx, nil
	}
	h := &hookCall{l: l, a: a, c: c}
	return context.WithValue(ctx, hookCallKey{}, h), h
}

// HookAsker is ask with the person's hooks in front of every approval
// question a tool call raises (Claude Code's): PermissionRequest hooks
// decide without asking ("allow" is the person's yes, "deny" their no,
// the reason added to the call's result) — never for a protected path,
// which only the person answers — and Notification hooks
// (notification_type permission_prompt) are told before the person is
// asked. nil stays nil: nobody to ask is not changed by a hook.
func HookAsker(ask Asker) Asker {
	if ask == nil {
		return nil
	}
	return hookAsker{ask}
}

type hookAsker struct{ ask Asker }

var _ Instructed = hookAsker{}

func (h hookAsker) Ask(ctx context.Context, q Question) (Answer, error) {
	ans, _, err := h.decide(ctx, q, false)
	return ans, err
}

// AskInstead is Ask, with what the person said to do instead when the
// asker it wraps takes it.
func (h hookAsker) AskInstead(ctx context.Context, q Question) (Answer, string, error) {
	return h.decide(ctx, q, true)
}

// person asks the asker h wraps; tell offers "no, and tell it what to do
// instead" when it takes that (a tool's approval, not a budget's).
func (h hookAsker) person(ctx context.Context, q Question, tell bool) (Answer, string, error) {
	if tell {
		return askPerson(ctx, h.ask, q)
	}
	ans, err := h.ask.Ask(ctx, q)
	return ans, "", err
}

func (h hookAsker) decide(ctx context.Context, q Question, tell bool) (Answer, string, error) {
	hc, _ := ctx.Value(hookCallKey{}).(*hookCall)
	if hc == nil {
		return h.person(ctx, q, tell)
	}
	l := hc.l
	if q.Why == "" && l.Hooks.Active(hooks.PermissionRequest, hc.c.Name) {
		o, err := l.Hooks.Run(ctx, l.hookInput(ctx, hooks.PermissionRequest, hc.c))
		if err != nil {
			return Deny, "", err
		}
		l.hookNotices(hc.a, o)
		switch o.Permission {
		case "allow":
			return Allow, "", nil
		case "deny":
			hc.deny(o.Reason)
			return Deny, "", nil
		}
	}
	if l.Hooks.Active(hooks.Notification, "permission_prompt") {
		in := l.HookBase
		in.Event, in.NotificationType = hooks.Notification, "permission_prompt"
		in.Message = "yagent needs your permission to " + q.Action
		if ws := WorkspaceFrom(ctx); ws != nil {
			in.Cwd = ws.Dir()
		}
		o, err := l.Hooks.Run(ctx, in)
		if err != nil {
			return Deny, "", err
		}
		l.hookNotices(hc.a, o)
	}
	return h.person(ctx, q, tell)
}

// subagentStart runs the SubagentStart hooks of the sub-agent a is, before
// its first call; their additionalContext joins its input.
func (l *Loop) subagentStart(ctx context.Context, a *Agent, input string) (string, error) {
	if !l.Hooks.Active(hooks.SubagentStart, l.HookBase.AgentType) {
		return input, nil
	}
	in := l.HookBase
	in.Event = hooks.SubagentStart
	o, err := l.Hooks.Run(ctx, in)
	if err != nil {
		return input, err
	}
	l.hookNotices(a, o)
	for _, c := range o.Context {
		if c = strings.TrimSpace(c); c != "" {
			input += "\n\n[hook] " + c
		}
	}
	return input, nil
}

// notify runs the hooks of one of yagent's notify-only events
// (NoteLanded, DelegationFinished): what they say to the person and their
// failures are notices; nothing they answer changes the run. They run
// even when ctx ended (each under its own limit): the delegation did end.
func (l *Loop) notify(ctx context.Context, a *Agent, in hooks.Input) {
	if !l.Hooks.Active(in.Event, "") {
		return
	}
	o, err := l.Hooks.Run(context.WithoutCancel(ctx), in)
	if err != nil {
		o.Notices = append(o.Notices, fmt.Sprintf("%s hooks: %v", in.Event, err))
	}
	l.hookNotices(a, o)
}

// delegationEnded raises NoteLanded when the delegation's note was written
// on the board here (landed), then DelegationFinished.
func (l *Loop) delegationEnded(ctx context.Context, a *Agent, res DelegationResult, landed bool) {
	in := l.HookBase
	in.NoteRef, in.Status, in.Reason = res.Ref, string(res.Status), res.Reason
	if res.Abandoned {
		in.Status = "abandoned"
	}
	if landed {
		in.Event = hooks.NoteLanded
		l.notify(ctx, a, in)
	}
	in.Event = hooks.DelegationFinished
	l.notify(ctx, a, in)
}

// WithoutHookCall is ctx without the running call HookAsker reads: a
// question asked under it that is not about the call itself (a budget
// raise asked while a delegation runs) goes straight to the person.
func WithoutHookCall(ctx context.Context) context.Context {
	return context.WithValue(ctx, hookCallKey{}, (*hookCall)(nil))
}
