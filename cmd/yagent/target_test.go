package main

import (
	"regexp"
	"testing"
)

// TestSessionTarget pins --last and --session on the commands that work on
// a session: --last (and no flag) is this directory's newest session even
// when another directory has a newer one; --session names any session.
func TestSessionTarget(t *testing.T) {
	fx := newExitFixture(t)
	other := t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		code, stdout, stderr := fx.exec(t, exitCase{args: args}, fx.home)
		if code != 0 {
			t.Fatalf("yagent %v exited %d:\n%s", args, code, stderr)
		}
		return stdout
	}
	run("run", "--replay", fx.replay, "--cd", other, "elsewhere")
	id := regexp.MustCompile(`"session": "([^"]+)"`)
	if got := id.FindStringSubmatch(run("tools", "profile", "--json", "--session", fx.session))[1]; got != fx.session {
		t.Fatalf("--session %s opened %s", fx.session, got)
	}
	for _, args := range [][]string{{"--last"}, {}} {
		got := id.FindStringSubmatch(run(append([]string{"tools", "profile", "--json"}, args...)...))[1]
		if got != fx.session {
			t.Errorf("tools profile %v opened %s; want this directory's newest, %s", args, got, fx.session)
		}
	}
}
