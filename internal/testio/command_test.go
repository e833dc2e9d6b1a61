package testio

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestCommandDeadline: a child that waits on a pipe nobody writes is
// killed at Command's deadline and the test fails at once, saying so and
// showing what the child wrote. The failing test runs in a child test
// binary (a test cannot expect its own failure).
func TestCommandDeadline(t *testing.T) {
	if os.Getenv("TESTIO_HANG_CHILD") == "1" {
		cmd := Command(t, 300*time.Millisecond, "sh", "-c", "echo waiting for input; read line")
		r, w, err := os.Pipe() // nobody writes w
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		cmd.Stdin = r
		out, err := cmd.CombinedOutput()
		r.Close()
		if err != nil {
			t.Fatalf("sh: %v\n%s", err, out)
		}
		return
	}
	start := time.Now()
	cmd := Command(t, time.Minute, os.Args[0], "-test.run=^TestCommandDeadline$", "-test.v")
	cmd.Env = append(os.Environ(), "TESTIO_HANG_CHILD=1")
	out, err := cmd.CombinedOutput()
	took := time.Since(start)
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("the hanging test did not fail: %v\n%s", err, out)
	}
	for _, want := range []string{"killed: still running after 300ms", "waiting for input"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the failure does not show %q:\n%s", want, out)
		}
	}
	t.Logf("failed after %s", took.Round(time.Millisecond))
}
