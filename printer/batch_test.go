package printer

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/yagent/yagent/agents"
)

// TestBatchPrinterProgressBar: on a terminal a progress bar sits below the
// lines and is cleared before each line and at the end; elsewhere there is
// no escape sequence at all.
func TestBatchPrinterProgressBar(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	events := []agents.Event{
		{Type: agents.EventBatchStarted, Time: t0, Batch: &agents.BatchEvent{Plan: "p.yaml", Board: "b", Delegations: 2, Parallel: 2}},
		{Type: agents.EventDelegationStarted, Time: t0, Delegation: &agents.DelegationEvent{ID: "a", Agent: "explorer", Task: "look"}},
		{Type: agents.EventDelegationFinished, Time: t0.Add(1500 * time.Millisecond), Delegation: &agents.DelegationEvent{ID: "a", Agent: "explorer", Status: "ok", Ref: "explorer/x", Conclusion: "seen", ElapsedMS: 1500}},
		{Type: agents.EventDelegationSkipped, Time: t0.Add(1500 * time.Millisecond), Delegation: &agents.DelegationEvent{ID: "b", Agent: "worker", Status: "skipped", Reason: "dependency c ended in error"}},
		{Type: agents.EventBatchFinished, Time: t0.Add(2 * time.Second), Batch: &agents.BatchEvent{}},
	}
	for _, tty := range []bool{true, false} {
		var buf bytes.Buffer
		p := NewBatch(&buf, tty)
		for _, e := range events {
			p.Emit(e)
		}
		out := buf.String()
		for _, want := range []string{"▶ batch p.yaml: 2 delegations on board b, 2 at once\n", "[  0.0s] ⇢ a (explorer): look\n",
			"[  1.5s] ⇠ a ok explorer/x in 1.5s — seen\n", "[  1.5s] ⊘ b skipped — dependency c ended in error\n"} {
			if !strings.Contains(out, want) {
				t.Errorf("tty=%v: output lacks %q:\n%q", tty, want, out)
			}
		}
		bar := "[████████████████████████] 2/2 · 0 running · 1.5s"
		unbounded := NewBatch(&buf, tty)
		unbounded.Emit(agents.Event{Type: agents.EventBatchStarted, Time: t0, Batch: &agents.BatchEvent{Plan: "p.yaml", Board: "b", Delegations: 2}})
		if want := "▶ batch p.yaml: 2 delegations on board b, all that are ready at once\n"; !strings.Contains(buf.String(), want) {
			t.Errorf("tty=%v: parallel 0 (no bound) prints %q; want %q", tty, buf.String()[len(out):], want)
		}
		switch {
		case tty && (!strings.Contains(out, bar+"\r\x1b[K") || !strings.HasSuffix(out, "\r\x1b[K")):
			t.Errorf("terminal output lacks the bar %q, cleared at the end:\n%q", bar, out)
		case !tty && strings.Contains(out, "\x1b"):
			t.Errorf("non-terminal output has escape sequences:\n%q", out)
		}
	}
}
