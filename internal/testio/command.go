package testio

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// ChildTimeout is the deadline Command gives a child when the caller has
// no better one: far more than any child of the suite needs on a loaded
// machine, far less than go test's own -timeout (which kills the test
// binary without showing what the child wrote).
const ChildTimeout = 2 * time.Minute

// Command is exec.Command for a test, with a deadline: when timeout has
// passed and the child still runs, the test fails ("… killed: still
// running after …") and the child is killed, so Wait, Run and Output
// return and the caller's failure shows what the child wrote — a child
// waiting on a terminal or a pipe never hangs the suite. WaitDelay makes
// Wait return even when a grandchild keeps the output pipes open. The
// deadline ends with the test (t.Cleanup).
func Command(t testing.TB, timeout time.Duration, name string, args ...string) *exec.Cmd {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Cancel = func() error {
		// Only the deadline fails the test: a cancel at cleanup is the
		// test being over (it may have failed already, or killed it).
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			t.Errorf("%s: killed: still running after %s (what it wrote is below, if the test shows it)", shortArgs(cmd.Args), timeout)
		}
		return cmd.Process.Kill()
	}
	cmd.WaitDelay = 10 * time.Second
	return cmd
}

func shortArgs(args []string) string {
	s := strings.Join(args, " ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
