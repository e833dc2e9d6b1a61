package memory

import (
	"strings"
	"testing"
	"time"
)

// TestInfoText: sessions show prints every field on its one line — a title
// is a prompt or a model's words, so a newline or an escape in it must
// not start a line of its own or reach the terminal raw.
func TestInfoText(t *testing.T) {
	at := time.Date(2026, 12, 1, 10, 15, 0, 0, time.Local)
	in := Info{ID: "s1", Kind: KindRun, Title: "fix\nparent:   forged\x1b[2J", Cwd: "/w", Model: "m", BoardID: "b", Turns: 3, Created: at, Updated: at, Rollout: "/r.jsonl"}
	got := in.Text([]SpendRow{{Label: "turn", Requests: 2, PromptTokens: 100, CachedTokens: 10, CompletionTokens: 5}})
	if strings.Contains(got, "\nparent:") || strings.Contains(got, "\x1b") {
		t.Errorf("a title's newline or escape reached the output:\n%q", got)
	}
	for _, want := range []string{"id:       s1\n", "name:     -\n", "turns:    3\n", "created:  2026-12-01 10:15:00\n",
		"\nspend:\nLABEL  REQUESTS  PROMPT  CACHED  COMPLETION\nturn   2         100     10      5\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("Text() lacks %q:\n%s", want, got)
		}
	}
	if in.ParentID = "p1"; !strings.Contains(in.Text(nil), "parent:   p1\n") {
		t.Error("a sub-agent's session does not name its parent")
	}
	if strings.Contains(got, "cost:") {
		t.Error("a session that recorded no spend shows a cost")
	}
	cost := 0.01234
	if in.CostUSD = &cost; !strings.Contains(in.Text(nil), "cost:     $0.0123\n") {
		t.Errorf("a session's cost is not shown:\n%s", in.Text(nil))
	}
}
