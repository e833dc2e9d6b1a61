package sandbox

import (
	"context"
	"errors"
	"os/exec"
	"testing"
	"time"

	"github.com/yagent/yagent/internal/testio"
)

// childCtx is the context of a command a test runs under a policy: past
// testio.ChildTimeout the command is killed and the test fails saying so
// (its own assertion then shows what the command wrote), so a command
// that waits for ever never hangs the suite.
func childCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), testio.ChildTimeout)
	t.Cleanup(cancel)
	context.AfterFunc(ctx, func() {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			t.Errorf("a command still ran after %s: killed", testio.ChildTimeout)
		}
	})
	return ctx
}

// withWaitDelay lets Wait return when a killed child's own children still
// hold its output.
func withWaitDelay(cmd *exec.Cmd) *exec.Cmd {
	cmd.WaitDelay = 10 * time.Second
	return cmd
}
