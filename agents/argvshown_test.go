package agents

import (
	"strings"
	"testing"
)

// TestQuestionShowsCommandAsRun: a question shows the command exactly as
// it will run — argv with each word that is not plain quoted, so where an
// argument begins and ends is seen (before, the words were joined with
// spaces: `sh -c ls; rm x` for ["sh", "-c", "ls; rm x"]); a command string
// whole, every line of it.
func TestQuestionShowsCommandAsRun(t *testing.T) {
	w := demoWorkspace(t)
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"argv": []string{"sh", "-c", "echo a; echo b"}}, "run `sh -c 'echo a; echo b'` in "},
		{map[string]any{"argv": []string{"echo", "it's", "", "a.go"}}, `run ` + "`" + `echo 'it'\''s' '' a.go` + "`" + ` in `},
		{map[string]any{"command": "echo one\necho two"}, "run `echo one\necho two` in "},
	} {
		asked := ""
		tools := []*Tool{ShellTool(w, ShellPolicy{Approval: ApproveOnRequest, Ask: yesIf(func(q Question) bool { asked = q.Action; return false })})}
		call(t, tools, "shell", tc.args)
		if !strings.HasPrefix(asked, tc.want) {
			t.Errorf("shell %v asked %q; want it to begin %q", tc.args, asked, tc.want)
		}
	}
}
