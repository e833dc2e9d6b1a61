package queue

import (
	"strings"
	"testing"

	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/llm/llmtest"
)

// TestOutputTooLargeFails: a handoff larger than River lets a job record
// (32 MB) fails its attempt with River's reason, and the delegation lands
// a degraded note saying so — not a completed job without output.
func TestOutputTooLargeFails(t *testing.T) {
	sc, err := llmtest.Parse([]byte(llmtest.HandOver("1ms")), "hand-over")
	if err != nil {
		t.Fatal(err)
	}
	// The answer, the note's body: 33 words of 1 MiB (set after the
	// parse: YAML reads a 33 MB scalar for minutes under -race).
	sc.Steps[0].Reply.Text = strings.TrimSpace(strings.Repeat(strings.Repeat("x", 1<<20)+" ", 33))
	e := newEnvWith(t, sc, Options{MaxAttempts: 1})
	e.serve(t, e.runner, "w")
	if res := e.runFirst(t); res.Status != blackboard.StatusDegraded {
		t.Fatalf("result %s (%.200s); want degraded", res.Status, res.Conclusion)
	}
	notes := e.notesByID(t)[item(0).CallID]
	if len(notes) != 1 {
		t.Fatalf("%d notes; want one", len(notes))
	}
	for _, want := range []string{"record the handoff of item-000", "output is too large"} {
		if !strings.Contains(notes[0].Body, want) {
			t.Errorf("the degraded note lacks %q:\n%.2000s", want, notes[0].Body)
		}
	}
}
