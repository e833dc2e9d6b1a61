package agents

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

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

// Asker asks the person to approve an action. It returns false when the
// person declines.
type Asker interface {
	Ask(ctx context.Context, question string) (bool, error)
}

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
	// Sandbox confines the commands (nil: unconfined; the command tree
	// always sets it from agents.sandbox / --sandbox).
	Sandbox *sandbox.Policy
}

// Refusals the model (and the person reading the transcript) gets.
const (
	refuseNoShell  = "shell is not allowed in this run: nobody can be asked to approve commands (stdin and stderr are not both terminals); the person must pass --allow-shell (or set agents.allow_shell: true)"
	refuseNoAsker  = "nobody is there to approve this (stdin and stderr are not both terminals): it was not done"
	refuseDeclined = "the person declined: do not retry it; ask or take another way"
)

// permit decides one action; the string says why it was refused.
func (p ShellPolicy) permit(ctx context.Context, what string, isShell bool) (bool, string, error) {
	if isShell && !p.Allowed && p.Ask == nil {
		return false, refuseNoShell, nil
	}
	ask := isShell && p.Approval != ApproveNever || !isShell && p.Approval == ApproveUntrusted
	if !ask {
		return true, "", nil
	}
	if p.Ask == nil {
		if isShell && p.Allowed && p.Approval != ApproveUntrusted {
			return true, "", nil // nobody to ask, but --allow-shell said yes
		}
		return false, refuseNoAsker, nil
	}
	ok, err := p.Ask.Ask(ctx, what)
	if err != nil {
		return false, "", err
	}
	if !ok {
		return false, refuseDeclined, nil
	}
	return true, "", nil
}

// ShellTool returns the shell tool confined to the workspace.
func ShellTool(w *Workspace, policy ShellPolicy) *Tool {
	return NewTool("shell", "shell", Writes, func(ctx context.Context, _ *Call, in shellIn) (Result, error) {
		return w.runShell(ctx, in, policy)
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
	if shown == "" {
		shown = strings.Join(a.Argv, " ")
	}
	if err := policy.Sandbox.Err(); err != nil {
		return ErrorResult("%v", err), nil // refused before anyone is asked
	}
	ok, why, err := policy.permit(ctx, fmt.Sprintf("run `%s` in %s", shown, dir), true)
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
	cmd.Env = append(os.Environ(), "YAGENT_TOOL=shell")
	// Own process group, so a timeout or Ctrl-C kills the children too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 2 * time.Second
	out := &capWriter{cap: shellOutputCap}
	cmd.Stdout, cmd.Stderr = out, out
	start := time.Now()
	runErr := cmd.Run()
	elapsed := time.Since(start).Round(time.Millisecond)
	code := 0
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return Result{}, ctx.Err()
	case cctx.Err() == context.DeadlineExceeded:
		return ErrorResult("timed out after %s (raise timeout_sec, at most 600):\n%s", timeout, out.String()), nil
	case errors.As(runErr, &exitErr):
		code = exitErr.ExitCode()
	case runErr != nil:
		return ErrorResult("could not run: %v", runErr), nil
	}
	body := out.String()
	if body == "" {
		body = "(no output)\n"
	}
	body += policy.Sandbox.Explain(body, dir)
	return Result{
		Content: fmt.Sprintf("exit %d (%s)\n%s", code, elapsed, body),
		IsError: code != 0,
		Summary: fmt.Sprintf("exit %d, %s", code, elapsed),
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
