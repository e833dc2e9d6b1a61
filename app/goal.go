package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/yagent/yagent/sandbox"
)

// DefaultMaxRounds is how many turns a goal loop gives the director when
// neither --max-rounds nor a plan says (issue 30: "--until without a
// budget → the default max_rounds: 10").
const DefaultMaxRounds = 10

// goalTailLines is how much of a failing check's output the next round's
// prompt carries: its last lines, where test runners print the verdict.
const goalTailLines = 40

// goalOutputCap bounds what a check's output is read into (its tail is
// kept): a check that prints gigabytes costs no memory.
const goalOutputCap = 256 << 10

// Goal is `yagent run --until CMD`: after each turn of the director the
// check runs in the run's sandbox, in the workspace; while it fails the
// director gets another turn of the same session, told what still fails,
// up to MaxRounds turns in all.
type Goal struct {
	// Check is the command, run with sh -c.
	Check string
	// MaxRounds bounds the turns (0: DefaultMaxRounds).
	MaxRounds int
	// Timeout bounds one run of the check (0: ten minutes).
	Timeout time.Duration
}

// CheckResult is one run of a goal's check.
type CheckResult struct {
	Round int
	// Code is the exit code (-1 when it did not exit: killed by a signal).
	Code    int
	Elapsed time.Duration
	// Tail is the last lines of its output (stdout and stderr as written).
	Tail string
}

// Passed says the check exited 0.
func (r CheckResult) Passed() bool { return r.Code == 0 }

// GoalUnmetError is a goal loop that spent its rounds with the check still
// failing: exit 1, naming the check.
type GoalUnmetError struct {
	Check  string
	Rounds int
	Last   CheckResult
}

func (e *GoalUnmetError) Error() string {
	return fmt.Sprintf("the check `%s` still fails after %d rounds (exit %d); raise --max-rounds, or resume the session and look at what it prints", e.Check, e.Rounds, e.Last.Code)
}

// rounds is MaxRounds with its default.
func (g Goal) rounds() int {
	if g.MaxRounds > 0 {
		return g.MaxRounds
	}
	return DefaultMaxRounds
}

// Validate refuses a goal that cannot run: --max-rounds without a check
// or not positive, a blank check. The zero Goal (no --until) is valid.
func (g Goal) Validate() error {
	switch {
	case g.Check == "" && g.MaxRounds == 0:
		return nil
	case g.MaxRounds < 0:
		return fmt.Errorf("--max-rounds %d: give a positive number of rounds (default %d)", g.MaxRounds, DefaultMaxRounds)
	case strings.TrimSpace(g.Check) == "":
		return errors.New("--max-rounds bounds --until: give the check to run (for example --until 'go test ./...')")
	}
	return nil
}

// Turns runs a headless turn, then, when g has a check (--until), the
// goal loop over the run's sandbox and workspace, its notices among the
// run's events.
func (r *Run) Turns(ctx context.Context, g *Goal, prompt string, turn func(ctx context.Context, prompt string) error) error {
	if g == nil || g.Check == "" {
		return turn(ctx, prompt)
	}
	return g.Loop(ctx, prompt, turn, func(ctx context.Context, round int) (CheckResult, error) {
		return g.RunCheck(ctx, r.Policy.Sandbox, r.Dir, round)
	}, func(res CheckResult) { r.Notice(g.Notice(res)) })
}

// CheckGoal runs g's check once in the run's sandbox and workspace (a
// batch plan's until).
func (r *Run) CheckGoal(ctx context.Context, g Goal, round int) (CheckResult, error) {
	return g.RunCheck(ctx, r.Policy.Sandbox, r.Dir, round)
}

// RunCheck runs the check once in the sandbox box (nil: unconfined), in
// dir. An error is a check that could not be started (the sandbox
// refused, the context ended), not one that failed.
func (g Goal) RunCheck(ctx context.Context, box *sandbox.Policy, dir string, round int) (CheckResult, error) {
	timeout := g.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Minute
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	argv := []string{"sh", "-c", g.Check}
	c := &sandbox.Cmd{Cmd: exec.CommandContext(cctx, argv[0], argv[1:]...)}
	if box != nil {
		var err error
		if c, err = box.Command(cctx, dir, argv...); err != nil {
			return CheckResult{}, fmt.Errorf("run the check `%s`: %w", g.Check, err)
		}
	} else {
		c.Env = c.Environ()
	}
	out := &tailWriter{cap: goalOutputCap}
	c.Dir, c.Stdin = dir, nil
	c.Stdout, c.Stderr = out, out
	c.Env = append(c.Env, "YAGENT_CHECK_ROUND="+fmt.Sprint(round))
	c.WaitDelay = 2 * time.Second
	start := time.Now()
	runErr := c.Run()
	res := CheckResult{Round: round, Elapsed: time.Since(start), Tail: lastLines(out.String(), goalTailLines)}
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return CheckResult{}, ctx.Err()
	case cctx.Err() == context.DeadlineExceeded:
		res.Code = -1
		res.Tail += fmt.Sprintf("\n[the check was stopped after %s]", timeout)
	case runErr == nil, errors.As(runErr, &exitErr), errors.Is(runErr, exec.ErrWaitDelay):
		res.Code = c.ProcessState.ExitCode()
	default:
		return CheckResult{}, fmt.Errorf("run the check `%s`: %w", g.Check, runErr)
	}
	return res, nil
}

// Prompt is the next round's message to the director after a failed
// check.
func (g Goal) Prompt(r CheckResult) string {
	tail := r.Tail
	if strings.TrimSpace(tail) == "" {
		tail = "(no output)"
	}
	return fmt.Sprintf("The check still fails: `%s` exited %d (round %d of %d). Its last lines of output:\n\n```\n%s\n```\n\nKeep working until it passes.",
		g.Check, r.Code, r.Round, g.rounds(), strings.TrimRight(tail, "\n"))
}

// Notice is the line a person sees after each check.
func (g Goal) Notice(r CheckResult) string {
	if r.Passed() {
		return fmt.Sprintf("check `%s` passed (round %d, %s)", g.Check, r.Round, r.Elapsed.Round(time.Millisecond))
	}
	next := "another round"
	if r.Round >= g.rounds() {
		next = "no rounds left"
	}
	return fmt.Sprintf("check `%s` failed: exit %d (round %d of %d, %s): %s", g.Check, r.Code, r.Round, g.rounds(), r.Elapsed.Round(time.Millisecond), next)
}

// Loop gives turn the prompt, then runs check; while the check fails and
// rounds are left it gives turn the failure. It returns the last turn's
// error (the loop stops there), a *GoalUnmetError when the rounds are
// spent, or nil when the check passed. notice sees every check's result.
func (g Goal) Loop(ctx context.Context, prompt string, turn func(ctx context.Context, prompt string) error,
	check func(ctx context.Context, round int) (CheckResult, error), notice func(CheckResult)) error {
	for round := 1; ; round++ {
		if err := turn(ctx, prompt); err != nil {
			return err
		}
		res, err := check(ctx, round)
		if err != nil {
			return err
		}
		if notice != nil {
			notice(res)
		}
		if res.Passed() {
			return nil
		}
		if round >= g.rounds() {
			return &GoalUnmetError{Check: g.Check, Rounds: round, Last: res}
		}
		prompt = g.Prompt(res)
	}
}

// lastLines is the last n lines of s.
func lastLines(s string, n int) string {
	s = strings.TrimRight(s, "\n")
	i := len(s)
	for k := 0; k < n; k++ {
		j := strings.LastIndexByte(s[:i], '\n')
		if j < 0 {
			return s
		}
		i = j
	}
	return s[i+1:]
}

// tailWriter keeps the last cap bytes written (the first line kept may
// be partial; lastLines drops it when there are enough lines).
type tailWriter struct {
	cap int
	buf []byte
	cut bool
}

func (w *tailWriter) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	if over := len(w.buf) - w.cap; over > 0 {
		w.buf = bytes.Clone(w.buf[over:])
		w.cut = true
	}
	return len(p), nil
}

func (w *tailWriter) String() string {
	if w.cut {
		if i := bytes.IndexByte(w.buf, '\n'); i >= 0 {
			return "…\n" + string(w.buf[i+1:])
		}
	}
	return string(w.buf)
}
