package webui

import (
	"strings"
	"testing"

	"github.com/yagent/yagent/blackboard"
)

// TestNotePatch: a note carrying a change shows its diffstat and its
// patch, HTML-escaped, bounded by MaxShown with a line that says so.
func TestNotePatch(t *testing.T) {
	fx := newFixture(t)
	c := fx.client(t)
	land := func(patch string) string {
		m, err := fx.board.WriteNote(fx.run.BoardID(), blackboard.NewNote{Patch: []byte(patch), Handoff: blackboard.Handoff{
			Status: blackboard.StatusOK, Agent: "worker", Task: "edit", Conclusion: "edited",
			Change: &blackboard.NoteChange{Branch: "yagent/b/x", Base: "a", Head: "b", Files: []string{"a.go"}, Insertions: 1, Deletions: 1, State: blackboard.ChangePending}}})
		if err != nil {
			t.Fatal(err)
		}
		return fx.ts.URL + noteURL(fx.run.BoardID(), m.Ref)
	}
	small := "--- a/a.go\n+++ b/a.go\n@@ -1 +1 @@\n-x\n+<script>alert(1)</script>\n"
	code, body := get(t, c, land(small))
	if code != 200 {
		t.Fatalf("note page: %d\n%s", code, body)
	}
	for _, want := range []string{"pending, yagent/b/x, 1 files +1 -1", `<pre class="patch" id="patch">`, "&#43;&lt;script&gt;alert(1)&lt;/script&gt;"} {
		if !strings.Contains(body, want) {
			t.Errorf("the note page lacks %q", want)
		}
	}
	if strings.Contains(body, "<script>alert") {
		t.Error("the patch reached the page unescaped")
	}
	if strings.Contains(body, "only its beginning") {
		t.Error("a short patch is said to be cut")
	}
	huge := small + strings.Repeat("+a line of the change\n", 3*MaxShown/20)
	_, body = get(t, c, land(huge))
	if n := strings.Count(body, "&#43;a line of the change"); n == 0 || n*len("+a line of the change\n") > MaxShown {
		t.Errorf("the page shows %d lines of the patch: want some, at most MaxShown bytes", n)
	}
	if !strings.Contains(body, "The patch is longer than 64 KiB: only its beginning is shown (yagent changes show") {
		t.Error("a cut patch is not said to be cut")
	}
}
