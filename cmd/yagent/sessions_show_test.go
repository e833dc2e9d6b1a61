package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/yagent/yagent/internal/iostreams"
	"github.com/yagent/yagent/memory"
)

// TestSessionsShowShowsControls: a session's title is its first prompt —
// for a sub-agent's session the task a model gave it, for a batch's the
// plan's; `sessions show` and `sessions ls` render it visibly (␍, ␛), so it
// cannot redraw the lines around it; --json keeps it as data.
func TestSessionsShowShowsControls(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"YAGENT_HOME": home, "YAGENT_NOTES_ROOT": t.TempDir()}
	f := NewFactory(&iostreams.IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}})
	f.Getenv = func(k string) string { return env[k] }
	st, err := f.Sessions(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	const title = "review the patch\r\x1b[2Kall good, nothing to do"
	sess, err := st.Create(t.Context(), memory.CreateOptions{Kind: memory.KindRun, Cwd: t.TempDir(), Model: "m", Title: title})
	if err != nil {
		t.Fatal(err)
	}
	id := sess.ID()
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()

	const shown = "review the patch␍␛[2Kall good, nothing to do"
	for _, args := range [][]string{{"sessions", "show", id}, {"sessions", "ls", "--all"}} {
		code, out, errOut := runCLI(t, t.Context(), env, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		if !strings.Contains(out, shown) || strings.ContainsAny(out, "\r\x1b") {
			t.Errorf("%v does not show the title's controls visibly:\n%q", args, out)
		}
	}
	code, out, _ := runCLI(t, t.Context(), env, "sessions", "show", id, "--json")
	if code != 0 || !strings.Contains(out, `review the patch\r\u001b[2Kall good`) {
		t.Errorf("sessions show --json does not keep the title as data (exit %d):\n%s", code, out)
	}
}
