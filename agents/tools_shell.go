package agents

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/yagent/yagent/internal/shellprefix"
	"github.com/yagent/yagent/internal/shellquote"
	"github.com/yagent/yagent/sandbox"
)

// shellOutputCap is how many bytes of output the shell tool keeps: the
// head and tail halves.
const shellOutputCap = 24 << 10

// shellIn are the shell tool's arguments (schemas.json has their
// descriptions).
type shellIn struct {
	Command    string   `json:"command,omitempty"`
	Argv       []string `json:"argv,omitempty"`
	Cwd        string   `json:"cwd,omitempty"`
	TimeoutSec int      `json:"timeout_sec,omitempty" default:"120"`
}

// Approval is the shell policy (--approval).
type Approval string

const (
	// ApproveUntrusted asks before every command and every file write.
	ApproveUntrusted Approval = "untrusted"
	// ApproveOnRequest asks before every command (the default).
	ApproveOnRequest Approval = "on-request"
	// ApproveNever never asks.
	ApproveNever Approval = "never"
)

// ParseApproval checks a policy name.
func ParseApproval(s string) (Approval, error) {
	switch a := Approval(s); a {
	case ApproveUntrusted, ApproveOnRequest, ApproveNever:
		return a, nil
	}
	return "", fmt.Errorf("approval policy %q: want untrusted, on-request or never", s)
}

// Asker asks the person to approve an action.
type Asker interface {
	Ask(ctx context.Context, q Question) (Answer, error)
}

// Instructed is an Asker whose "no" may come with the person's words —
// "no, and tell it what to do instead" — sent back to the model as the
// refusal's reason. The plain prompt (internal/ttyask) and the TUI's
// modal both offer it.
type Instructed interface {
	AskInstead(ctx context.Context, q Question) (ans Answer, instead string, err error)
}

// askPerson asks a; with a refusal, what the person said to do instead
// when a takes it (Instructed).
func askPerson(ctx context.Context, a Asker, q Question) (Answer, string, error) {
	if in, ok := a.(Instructed); ok {
		return in.AskInstead(ctx, q)
	}
	ans, err := a.Ask(ctx, q)
	return ans, "", err
}

// declined is the refusal of a "no": with the person's instructions when
// they gave some.
func declined(instead string) string {
	if instead = strings.TrimSpace(instead); instead == "" {
		return refuseDeclined
	}
	return "the person declined and said what to do instead: " + instead
}

// Question is one action a person is asked to approve.
type Question struct {
	// Action says what would happen: "run `go test ./...` in /ws",
	// "write_file notes.txt".
	Action string
	// Why says why it is asked beyond the approval policy ("" = the policy
	// asks): the protected path a write would change, and what it does.
	Why string
	// Path, Old and New describe a file write (Path "" = not a write):
	// the content before ("" for a new file, Created) and after.
	Path     string
	Old, New string
	Created  bool
	// Prefix is the command prefix an "always" answer approves for the
	// rest of the session ("" = "always" is not offered); for a tool of
	// an MCP server, the tool's name (every later call of it).
	Prefix string
	// Args are the arguments of a call of an MCP server's tool, as
	// PrettyArgs renders them: shown whole under the question.
	Args string
}

// Answer is a person's answer.
type Answer int

const (
	// Deny: no (also Ctrl-C, Esc, Enter and anything unexpected).
	Deny Answer = iota
	// Allow this once.
	Allow
	// AllowPrefix: this and every later command of Question.Prefix in
	// this session.
	AllowPrefix
)

// ShellPolicy decides whether shell commands (and, under untrusted, writes)
// may run.
type ShellPolicy struct {
	Approval Approval
	// Allowed is the person's explicit permission to run commands without
	// being asked (--allow-shell or agents.allow_shell). Without it a
	// command runs only after a person approves it through Ask.
	Allowed bool
	// Ask is nil when nobody can answer a question (stdin or stderr is not
	// a terminal: cron, CI, nohup, a pipe, /dev/null).
	Ask Asker
	// ShellAllow are command prefixes (agents.shell_allow) that run
	// without asking, in every approval mode and headless too (see
	// shellwords.go for what matches); still sandboxed.
	ShellAllow []string
	// Session keeps the prefixes a person answered "always" for in this
	// session (nil: "always" is not offered).
	Session *Approvals
	// Sandbox confines the commands (nil: unconfined; the command tree
	// always sets it from agents.sandbox / --sandbox).
	Sandbox *sandbox.Policy
}

// Refusals the model (and the person reading the transcript) gets.
const (
	refuseRunsOther = "shell is not allowed for this command in this run: %s, so agents.shell_allow does not cover it and it must be approved by a person, but nobody can be asked (stdin and stderr are not both terminals)"
	refuseNoShell   = "shell is not allowed in this run: nobody can be asked to approve commands (stdin and stderr are not both terminals); the person must pass --allow-shell (or set agents.allow_shell: true, or list the command's prefix in agents.shell_allow)"
	refuseNoAsker   = "nobody is there to approve this (stdin and stderr are not both terminals): it was not done"
	refuseDeclined  = "the person declined: do not retry it; ask or take another way"
	refuseProtected = "%s is a protected path (%s): file tools change it only with the person's explicit approval, and nobody is there to approve (stdin and stderr are not both terminals), so it was not written; tell the person what to change and why, they can edit it themselves"
)

// permitShell decides one command; the string says why it was refused.
// words are the command's words when it is simple (ok).
func (p ShellPolicy) permitShell(ctx context.Context, action string, words []string, simple bool) (bool, string, error) {
	p, ask := p.withHook(ctx)
	if !ask && simple && (allowedByRule(p.ShellAllow, words) || p.Session.match(words)) {
		return true, "", nil
	}
	if !p.Allowed && p.Ask == nil {
		if why := shellprefix.Command(words); simple && why != "" && matchesRule(p.ShellAllow, words) {
			return false, fmt.Sprintf(refuseRunsOther, why), nil
		}
		return false, refuseNoShell, nil
	}
	if p.Approval == ApproveNever && !ask {
		return true, "", nil
	}
	if p.Ask == nil {
		if p.Allowed && p.Approval != ApproveUntrusted && !ask {
			return true, "", nil // nobody to ask, but --allow-shell said yes
		}
		return false, refuseNoAsker, nil
	}
	q := Question{Action: action}
	var prefix []string
	if simple && p.Session != nil {
		if pre, ok := AlwaysPrefix(words); ok {
			prefix, q.Prefix = pre, strings.Join(pre, " ")
		}
	}
	ans, instead, err := askPerson(ctx, p.Ask, q)
	switch {
	case err != nil:
		return false, "", err
	case ans == AllowPrefix && prefix != nil:
		p.Session.add(prefix)
		return true, "", nil
	case ans == Allow || ans == AllowPrefix:
		return true, "", nil
	}
	return false, declined(instead), nil
}

// permitWrite decides one file write: a protected path (q.Why) is always
// asked about, whatever the approval policy, and refused when nobody can
// answer; under untrusted every write is asked about.
func (p ShellPolicy) permitWrite(ctx context.Context, q Question, protected string) (bool, string, error) {
	person := p.Ask
	p, ask := p.withHook(ctx)
	if q.Why == "" && p.Approval != ApproveUntrusted && !ask {
		return true, "", nil
	}
	if q.Why != "" {
		p.Ask = person // a protected path: the person answers, not a hook
	}
	if p.Ask == nil {
		if q.Why != "" {
			return false, fmt.Sprintf(refuseProtected, protected, q.Why), nil
		}
		return false, refuseNoAsker, nil
	}
	ans, instead, err := askPerson(ctx, p.Ask, q)
	if err != nil {
		return false, "", err
	}
	if ans == Deny {
		return false, declined(instead), nil
	}
	return true, "", nil
}

// PermitChange decides a write of several files at once (the director's
// apply_change): asked about under untrusted, and always when q.Why says
// it changes protected paths (named by paths), which is refused when
// nobody can answer; the string says why it was refused.
func (p ShellPolicy) PermitChange(ctx context.Context, q Question, paths string) (bool, string, error) {
	return p.permitWrite(ctx, q, paths)
}

// ShellTool returns the shell tool confined to the workspace, or to the
// run's own (WithWorkspace) with the policy's sandbox over it.
func ShellTool(w *Workspace, policy ShellPolicy) *Tool {
	return NewTool("shell", "shell", Writes, func(ctx context.Context, _ *Call, in shellIn) (Result, error) {
		ws := w.in(ctx)
		box, err := w.sandboxFor(policy.Sandbox, ws)
		if err != nil {
			return ErrorResult("%v", err), nil
		}
		p := policy // one call's copy: calls run concurrently
		p.Sandbox = box
		return ws.runShell(ctx, in, p)
	})
}

func (w *Workspace) runShell(ctx context.Context, a shellIn, policy ShellPolicy) (Result, error) {
	if (a.Command == "") == (len(a.Argv) == 0) {
		return ErrorResult("give exactly one of command or argv"), nil
	}
	rel, err := w.Rel(a.Cwd)
	if err != nil {
		return ErrorResult("%v", err), nil
	}
	if fi, err := w.root.Stat(rel); err != nil {
		return ErrorResult("cwd: %v", w.explain(a.Cwd, err)), nil
	} else if !fi.IsDir() {
		return ErrorResult("cwd %s is not a directory", a.Cwd), nil
	}
	dir := filepath.Join(w.dir, rel)
	if real, err := filepath.EvalSymlinks(dir); err != nil || !within(w.dir, real) {
		return ErrorResult("cwd %q leads outside the workspace: refused", a.Cwd), nil
	}
	shown := a.Command
	words, simple := CommandWords(a.Command)
	if shown == "" {
		shown = shellquote.Join(a.Argv...)
		words, simple = argvWords(a.Argv)
	}
	if err := policy.Sandbox.Err(); err != nil {
		return ErrorResult("%v", err), nil // refused before anyone is asked
	}
	ok, why, err := policy.permitShell(ctx, fmt.Sprintf("run `%s` in %s", shown, dir), words, simple)
	if err != nil {
		return Result{}, err
	}
	if !ok {
		return ErrorResult("%s", why), nil
	}
	timeout := time.Duration(a.TimeoutSec) * time.Second
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	argv := a.Argv
	if a.Command != "" {
		argv = []string{"sh", "-c", a.Command}
	}
	cmd, err := policy.Sandbox.Command(cctx, dir, argv...)
	if err != nil {
		return ErrorResult("%v", err), nil
	}
	cmd.Stdin = nil
	cmd.Env = append(cmd.Env, "YAGENT_TOOL=shell")
	// The sandbox gives it a process group of its own, which a timeout or
	// Ctrl-C kills whole.
	cmd.WaitDelay = 2 * time.Second
	out := &capWriter{cap: shellOutputCap}
	cmd.Stdout, cmd.Stderr = out, out
	start := time.Now()
	runErr := cmd.Run()
	elapsed := time.Since(start).Round(time.Millisecond)
	code, held := 0, false
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return Result{}, ctx.Err()
	case cctx.Err() == context.DeadlineExceeded:
		return ErrorResult("timed out after %s (raise timeout_sec, at most 600):\n%s", timeout, out.String()), nil
	case errors.As(runErr, &exitErr):
		code = exitErr.ExitCode()
	case errors.Is(runErr, exec.ErrWaitDelay):
		// The command exited; a process it left behind (a background
		// job) still holds its output, which is not waited for.
		code, held = cmd.ProcessState.ExitCode(), true
	case runErr != nil:
		return ErrorResult("could not run: %v", runErr), nil
	}
	body := out.String()
	if body == "" {
		body = "(no output)\n"
	}
	if held {
		body += fmt.Sprintf("[a process the command started still holds its output: not waited for past %s]\n", cmd.WaitDelay)
	}
	preview := OutputPreview(out.String())
	body += cmd.Explain(body)
	return Result{
		Content:  fmt.Sprintf("exit %d (%s)\n%s", code, elapsed, body),
		IsError:  code != 0,
		Summary:  fmt.Sprintf("exit %d, %s", code, elapsed),
		Output:   preview,
		ExitCode: &code,
	}, nil
}

func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// capWriter keeps the first and last cap/2 bytes of a stream.
type capWriter struct {
	cap        int
	head, tail []byte
	dropped    int
}

func (c *capWriter) Write(p []byte) (int, error) {
	n := len(p)
	if room := c.cap/2 - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	if len(p) > 0 {
		c.tail = append(c.tail, p...)
		if over := len(c.tail) - c.cap/2; over > 0 {
			c.dropped += over
			c.tail = c.tail[over:]
		}
	}
	return n, nil
}

func (c *capWriter) String() string {
	if c.dropped == 0 {
		return string(c.head) + string(c.tail)
	}
	var b bytes.Buffer
	b.Write(c.head)
	fmt.Fprintf(&b, "\n… [%d bytes of output cut] …\n", c.dropped)
	b.Write(c.tail)
	return b.String()
}

// PreviewLines is how many first and last lines of a command's output its
// tool_result event shows a person.
const PreviewLines = 5

// OutputPreview is a command's output for a person: its first and last
// PreviewLines lines, the lines between counted ("… 12 more lines").
func OutputPreview(out string) string {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) == 1 && lines[0] == "" {
		return ""
	}
	if len(lines) <= 2*PreviewLines+1 {
		return strings.Join(lines, "\n")
	}
	mid := fmt.Sprintf("… %s", Count(len(lines)-2*PreviewLines, "more line", "more lines"))
	return strings.Join(append(append(lines[:PreviewLines:PreviewLines], mid), lines[len(lines)-PreviewLines:]...), "\n")
}
