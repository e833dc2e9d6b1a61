package agents

import (
	"strings"
	"testing"
	"time"
)

// TestCapWriterKeepsHeadAndTail: the shell's output keeps its first and
// last halves of the cap and says how much was cut between them, however
// the writes are split.
func TestCapWriterKeepsHeadAndTail(t *testing.T) {
	for _, chunks := range [][]string{
		{"0123456789abcdefghij"},
		{"01", "234", "56789abc", "defghij"},
		{"0123", "4", "", "56789abcdefghi", "j"},
	} {
		c := &capWriter{cap: 10}
		for _, s := range chunks {
			if n, err := c.Write([]byte(s)); n != len(s) || err != nil {
				t.Fatalf("Write(%q) = %d, %v", s, n, err)
			}
		}
		if got, want := c.String(), "01234\n… [10 bytes of output cut] …\nfghij"; got != want {
			t.Errorf("writes %q kept %q; want %q", chunks, got, want)
		}
	}
	c := &capWriter{cap: 10}
	c.Write([]byte("0123456789"))
	if got := c.String(); got != "0123456789" {
		t.Errorf("output of exactly the cap = %q; want it whole", got)
	}
}

// TestShellReturnsWhenTheCommandExits: a command that leaves a process
// holding its output (a background job) returns once the command exits
// and its output is drained for two seconds (WaitDelay), not when that
// process ends.
func TestShellReturnsWhenTheCommandExits(t *testing.T) {
	w := demoWorkspace(t)
	tools := []*Tool{ShellTool(w, ShellPolicy{Approval: ApproveNever, Allowed: true})}
	start := time.Now()
	r := call(t, tools, "shell", map[string]any{"command": "sleep 20 & echo started", "timeout_sec": 60})
	// Far above the two seconds, far below the background job's twenty.
	if d := time.Since(start); d > 12*time.Second || !strings.HasPrefix(r.Content, "exit 0") || !strings.Contains(r.Content, "started") ||
		!strings.Contains(r.Content, "still holds its output") {
		t.Errorf("shell with a background job returned after %s: %q; want it back once sh exits", d, r.Content)
	}
}
