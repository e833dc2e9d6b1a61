package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/yagent/yagent/internal/statedb"
	"github.com/yagent/yagent/internal/testio"
	"github.com/yagent/yagent/memory"
)

// TestSessionInUseExitsOne: resuming a session another process holds is a
// failure (exit 1) that names the holder; with --wait the command waits
// and runs once the holder lets go.
func TestSessionInUseExitsOne(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	replay := filepath.Join(work, "scenario.yaml")
	if err := os.WriteFile(replay, []byte(exitScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"YAGENT_HOME": home, "YAGENT_NOTES_ROOT": filepath.Join(work, "notes")}
	if code, _, stderr := runCLI(t, t.Context(), env, "run", "--replay", replay, "hello"); code != 0 {
		t.Fatalf("run = %d: %s", code, stderr)
	}
	db, err := statedb.Open(t.Context(), filepath.Join(home, "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st := memory.NewStore(db, home)
	last, err := st.Last(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	held, err := st.Resume(t.Context(), last.ID)
	if err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, t.Context(), env, "resume", "--replay", replay, last.ID, "again")
	want := regexp.MustCompile(fmt.Sprintf(`session %s is in use by pid %d \(since [^)]+\): let it finish, or pass --wait to wait for it`, last.ID, os.Getpid()))
	if code != 1 || stdout != "" || !want.MatchString(stderr) {
		t.Errorf("resume of a held session = %d, stdout %q, stderr %q; want 1 and %s", code, stdout, stderr, want)
	}
	// The session is let go once the second resume says it waits (never
	// on a timer: under load it might not have started yet).
	var errOut testio.Buffer
	type result struct {
		code   int
		stdout string
	}
	done := make(chan result, 1)
	go func() {
		code, stdout := runCLIErr(t, t.Context(), env, &errOut, "resume", "--wait", "--replay", replay, last.ID, "again")
		done <- result{code, stdout}
	}()
	var r result
	for deadline, closed := time.Now().Add(time.Minute), false; ; time.Sleep(10 * time.Millisecond) {
		if !closed && strings.Contains(errOut.String(), "waiting for it to finish (--wait)") {
			held.Close()
			closed = true
		}
		select {
		case r = <-done:
		default:
			if time.Now().After(deadline) {
				held.Close()
				t.Fatalf("resume --wait still running after a minute; stderr %q", errOut.String())
			}
			continue
		}
		break
	}
	if stderr := errOut.String(); r.code != 0 || strings.TrimSpace(r.stdout) != "ok" || !strings.Contains(stderr, "waiting for it to finish (--wait)") {
		t.Errorf("resume --wait = %d, stdout %q, stderr %q; want 0 after waiting", r.code, r.stdout, stderr)
	}
}
