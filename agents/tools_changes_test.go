package agents

import (
	"strings"
	"testing"
)

// TestResultsShowChanges (issue 32 item 2): a write, an edit and a
// command say what they changed for a person — the write's and the
// edit's unified diff, the command's first and last lines of output and
// its exit code — which the tool_result event carries to every view.
// The write's diff needs the file as it was even when nobody is asked.
func TestResultsShowChanges(t *testing.T) {
	w := demoWorkspace(t)
	tools := append(FSTools(w, ShellPolicy{}), ShellTool(w, ShellPolicy{Approval: ApproveNever, Allowed: true}))
	r := call(t, tools, "write_file", map[string]any{"path": "notes.txt", "content": "alpha\nbeta\n"})
	if want := "--- /dev/null\n+++ b/notes.txt\n@@ -0,0 +1,2 @@\n+alpha\n+beta\n"; r.Diff != want {
		t.Errorf("a new file's diff = %q; want %q", r.Diff, want)
	}
	r = call(t, tools, "write_file", map[string]any{"path": "notes.txt", "content": "alpha\nBETA\n"})
	if want := "--- a/notes.txt\n+++ b/notes.txt\n@@ -1,2 +1,2 @@\n alpha\n-beta\n+BETA\n"; r.Diff != want {
		t.Errorf("a replaced file's diff = %q; want %q", r.Diff, want)
	}
	r = call(t, tools, "edit_file", map[string]any{"path": "notes.txt", "old": "alpha", "new": "ALPHA"})
	if want := "--- a/notes.txt\n+++ b/notes.txt\n@@ -1,2 +1,2 @@\n-alpha\n+ALPHA\n BETA\n"; r.Diff != want {
		t.Errorf("an edit's diff = %q; want %q", r.Diff, want)
	}
	r = call(t, tools, "shell", map[string]any{"command": "seq 1 20; exit 3"})
	if r.ExitCode == nil || *r.ExitCode != 3 {
		t.Errorf("the command's exit code = %v; want 3", r.ExitCode)
	}
	if want := "1\n2\n3\n4\n5\n… 10 more lines\n16\n17\n18\n19\n20"; r.Output != want {
		t.Errorf("the command's output preview = %q; want %q", r.Output, want)
	}
	if got := OutputPreview("one\ntwo\n"); got != "one\ntwo" {
		t.Errorf("OutputPreview of two lines = %q; want them whole", got)
	}
	if got := OutputPreview(strings.Repeat("x\n", 11)); strings.Contains(got, "more") {
		t.Errorf("OutputPreview of 11 lines = %q; want them whole (the marker would hide one line)", got)
	}
}
