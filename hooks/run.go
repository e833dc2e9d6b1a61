package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Input is what a hook reads on stdin: Claude Code's fields (their names,
// omitted where an event has none), and yagent's for its own events.
// TranscriptPath is the session's rollout, a JSON-lines file in yagent's
// event format — not Claude Code's transcript (a documented difference).
type Input struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	Event          Event  `json:"hook_event_name"`
	PermissionMode string `json:"permission_mode,omitempty"`

	// Tool events. ToolInput is in Claude Code's names (ToolInput()).
	ToolName     string          `json:"tool_name,omitempty"`
	ToolInput    json.RawMessage `json:"tool_input,omitempty"`
	ToolUseID    string          `json:"tool_use_id,omitempty"`
	ToolResponse json.RawMessage `json:"tool_response,omitempty"`
	Error        string          `json:"error,omitempty"`

	Prompt string `json:"prompt,omitempty"` // UserPromptSubmit
	// Stop, SubagentStop: StopHookActive is true on a round a Stop hook
	// forced (a script checks it not to force rounds for ever).
	StopHookActive       *bool  `json:"stop_hook_active,omitempty"`
	LastAssistantMessage string `json:"last_assistant_message,omitempty"`
	Trigger              string `json:"trigger,omitempty"` // PreCompact: manual | auto
	CustomInstructions   string `json:"custom_instructions,omitempty"`
	Source               string `json:"source,omitempty"` // SessionStart: startup | resume | compact
	Reason               string `json:"reason,omitempty"` // SessionEnd: prompt_input_exit | other
	// Notification: Message for the person, NotificationType
	// (permission_prompt when yagent asks for an approval).
	Message          string `json:"message,omitempty"`
	NotificationType string `json:"notification_type,omitempty"`
	AgentID          string `json:"agent_id,omitempty"`   // Subagent*
	AgentType        string `json:"agent_type,omitempty"` // Subagent*: the agent's name

	// yagent's events: the note (NoteLanded, DelegationFinished), its
	// status, the batch job (BatchJobFailed).
	NoteRef string `json:"note_ref,omitempty"`
	Status  string `json:"status,omitempty"`
	Job     string `json:"job,omitempty"`
}

// Outcome is what the hooks of one event decided, merged: any block
// blocks, a deny beats an ask beats an allow, contexts and messages add
// up. Its zero value changes nothing.
type Outcome struct {
	// Block: the action does not go ahead (PreToolUse: the call is not
	// made; UserPromptSubmit: the prompt is erased; Stop: the agent goes
	// on). Reason says why, to the model (tool and Stop events) or to the
	// person (UserPromptSubmit).
	Block  bool
	Reason string
	// Permission is a PreToolUse or PermissionRequest decision: "allow"
	// (no question), "deny" (refused, Reason to the model), "ask" (the
	// person is asked, whatever the approval policy), or "".
	Permission string
	// UpdatedInput replaces the call's arguments (Claude Code's names;
	// FromToolInput turns them back).
	UpdatedInput json.RawMessage
	// Context is text the model gets with the event (additionalContext,
	// or the plain stdout of a UserPromptSubmit or SessionStart hook).
	Context []string
	// Stop ends the turn or session ("continue": false), StopReason
	// shown to the person.
	Stop       bool
	StopReason string
	// Messages are for the person: systemMessage, and the stderr of a
	// blocking error on an event whose reason the model never sees.
	Messages []string
	// Notices are hooks that failed (a non-zero exit other than 2, a
	// time-out, JSON that does not parse): shown, never skipped silently.
	Notices []string
}

// output is a hook's JSON reply (Claude Code's hook output).
type output struct {
	Continue       *bool           `json:"continue"`
	StopReason     string          `json:"stopReason"`
	SystemMessage  string          `json:"systemMessage"`
	Decision       string          `json:"decision"`
	Reason         string          `json:"reason"`
	SpecificOutput *specificOutput `json:"hookSpecificOutput"`
}

type specificOutput struct {
	PermissionDecision       string          `json:"permissionDecision"`
	PermissionDecisionReason string          `json:"permissionDecisionReason"`
	UpdatedInput             json.RawMessage `json:"updatedInput"`
	AdditionalContext        string          `json:"additionalContext"`
	Decision                 *struct {
		Behavior     string          `json:"behavior"`
		Message      string          `json:"message"`
		UpdatedInput json.RawMessage `json:"updatedInput"`
	} `json:"decision"` // PermissionRequest
}

// Runner runs a Set's hooks. Dir is the project directory: the hooks' working
// directory and $CLAUDE_PROJECT_DIR (and $YAGENT_PROJECT_DIR).
type Runner struct {
	Set *Set
	Dir string
	Env []string // the environment hooks get; nil: this process's
}

// Active reports whether any hook would run for ev and target (a tool
// event's tool, SessionStart's source, PreCompact's trigger,
// Notification's type, a Subagent event's agent, SessionEnd's reason; ""
// for the others): callers skip building an Input when none would.
func (r *Runner) Active(ev Event, target string) bool {
	return r != nil && len(r.Set.matching(ev, target)) > 0
}

// target is what in's matchers are tested against (Claude Code's).
func (in Input) target() string {
	switch in.Event {
	case SessionStart:
		return in.Source
	case SessionEnd:
		return in.Reason
	case PreCompact:
		return in.Trigger
	case Notification:
		return in.NotificationType
	case SubagentStart, SubagentStop:
		return in.AgentType
	}
	return in.ToolName
}

// Run runs every hook of in.Event that matches in (its tool, or its
// target: see Active), at once, each
// with in as JSON on its stdin, and merges what they say. A hook that
// fails is a notice in the Outcome, never an error: only a canceled ctx
// is.
func (r *Runner) Run(ctx context.Context, in Input) (Outcome, error) {
	if r == nil {
		return Outcome{}, nil
	}
	hs := r.Set.matching(in.Event, in.target())
	if len(hs) == 0 {
		return Outcome{}, nil
	}
	if in.Cwd == "" {
		in.Cwd = r.Dir
	}
	// As Claude Code writes it: "<", ">" and "&" as themselves, not
	// \u003c (a guard greps the command as the model wrote it).
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(in); err != nil {
		return Outcome{}, fmt.Errorf("hook input for %s: %w", in.Event, err)
	}
	stdin := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	results := make([]result, len(hs))
	var wg sync.WaitGroup
	for i, h := range hs {
		wg.Go(func() { results[i] = r.run(ctx, h, stdin) })
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return Outcome{}, err
	}
	var o Outcome
	for i, res := range results {
		o.merge(in.Event, hs[i], res)
	}
	return o, nil
}

// result is one hook's run.
type result struct {
	code           int // -1: it did not run to an exit
	stdout, stderr string
	err            error
}

// run runs one hook under its time limit, in its own process group (so a
// time-out kills whatever it started too).
func (r *Runner) run(ctx context.Context, h Hook, stdin []byte) result {
	ctx, cancel := context.WithTimeout(ctx, h.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, shell(), "-c", h.Command)
	cmd.Dir = r.Dir
	env := r.Env
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = append(env[:len(env):len(env)], "CLAUDE_PROJECT_DIR="+r.Dir, "YAGENT_PROJECT_DIR="+r.Dir)
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &capped{b: &out}, &capped{b: &errOut}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	res := result{code: cmd.ProcessState.ExitCode(), stdout: out.String(), stderr: strings.TrimSpace(errOut.String())}
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		res.code, res.err = -1, fmt.Errorf("timed out after %s (raise its \"timeout\")", h.Timeout)
	case err != nil && res.code == -1:
		res.err = err
	}
	return res
}

// shell is bash where there is one (Claude Code's hook commands are bash),
// else sh.
func shell() string {
	if p, err := exec.LookPath("bash"); err == nil {
		return p
	}
	return "/bin/sh"
}

// merge folds one hook's result into o, by Claude Code's contract for ev.
func (o *Outcome) merge(ev Event, h Hook, res result) {
	name := fmt.Sprintf("%s hook %q (%s)", ev, h.Command, h.Source)
	switch {
	case res.err != nil:
		o.Notices = append(o.Notices, fmt.Sprintf("%s: %v", name, res.err))
		return
	case res.code == 2:
		o.blockingError(ev, res.stderr)
		return
	case res.code != 0:
		o.Notices = append(o.Notices, fmt.Sprintf("%s: exit %d: %s", name, res.code, orNone(res.stderr)))
		return
	}
	text := strings.TrimSpace(res.stdout)
	if !strings.HasPrefix(text, "{") {
		if text != "" && (ev == UserPromptSubmit || ev == SessionStart) {
			o.Context = append(o.Context, text)
		}
		return
	}
	var out output
	if err := json.Unmarshal([]byte(text), &out); err != nil {
		o.Notices = append(o.Notices, fmt.Sprintf("%s: its JSON output does not parse: %v", name, err))
		return
	}
	if out.Continue != nil && !*out.Continue {
		o.Stop = true
		o.StopReason = joinReason(o.StopReason, out.StopReason)
	}
	if out.SystemMessage != "" {
		o.Messages = append(o.Messages, out.SystemMessage)
	}
	switch out.Decision {
	case "block":
		switch ev {
		case PreToolUse: // Claude Code's older form of a deny
			o.permit("deny", out.Reason)
		case PostToolUse, PostToolUseFailure, UserPromptSubmit, Stop, SubagentStop:
			o.Block = true
			o.Reason = joinReason(o.Reason, out.Reason)
		}
	case "approve":
		if ev == PreToolUse {
			o.permit("allow", out.Reason)
		}
	}
	if so := out.SpecificOutput; so != nil {
		if so.AdditionalContext != "" {
			o.Context = append(o.Context, so.AdditionalContext)
		}
		switch ev {
		case PreToolUse:
			if so.PermissionDecision != "" {
				o.permit(so.PermissionDecision, so.PermissionDecisionReason)
			}
			if len(so.UpdatedInput) > 0 && o.UpdatedInput == nil {
				o.UpdatedInput = so.UpdatedInput
			}
		case PermissionRequest:
			if d := so.Decision; d != nil {
				o.permit(d.Behavior, d.Message)
				if len(d.UpdatedInput) > 0 && o.UpdatedInput == nil {
					o.UpdatedInput = d.UpdatedInput
				}
			}
		}
	}
}

// blockingError is exit 2: the event's action is blocked where it can be,
// and stderr goes to whom the event's contract says.
func (o *Outcome) blockingError(ev Event, stderr string) {
	switch ev {
	case PreToolUse, PermissionRequest:
		o.permit("deny", stderr)
	case PostToolUse, PostToolUseFailure, Stop, SubagentStop:
		o.Block = true // the tool already ran: the model reads why
		o.Reason = joinReason(o.Reason, stderr)
	case UserPromptSubmit:
		o.Block = true // the prompt is erased; the person reads why
		o.Reason = joinReason(o.Reason, stderr)
	default: // nothing to block: the person reads it
		if stderr != "" {
			o.Messages = append(o.Messages, stderr)
		}
	}
}

// permit merges a permission decision: deny > ask > allow. Unknown
// decisions are ignored, as Claude Code ignores them.
func (o *Outcome) permit(decision, reason string) {
	rank := map[string]int{"allow": 1, "ask": 2, "deny": 3}
	if rank[decision] == 0 {
		return
	}
	if rank[decision] > rank[o.Permission] {
		o.Permission = decision
		o.Reason = reason
	} else if decision == o.Permission {
		o.Reason = joinReason(o.Reason, reason)
	}
	if o.Permission == "deny" {
		o.Block = true
	}
}

func joinReason(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n" + b
}

func orNone(s string) string {
	if s == "" {
		return "(no output)"
	}
	return s
}

// capped keeps the first 64 KiB a hook writes: a runaway hook costs
// neither memory nor the model's context.
type capped struct{ b *bytes.Buffer }

const outputCap = 64 << 10

func (c *capped) Write(p []byte) (int, error) {
	if room := outputCap - c.b.Len(); room > 0 {
		c.b.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}
