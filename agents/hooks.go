package agents

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/yagent/yagent/hooks"
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
