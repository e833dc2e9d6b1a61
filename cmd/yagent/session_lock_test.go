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
	go func() {
		time.Sleep(300 * time.Millisecond)
		held.Close()
	}()
	code, stdout, stderr = runCLI(t, t.Context(), env, "resume", "--wait", "--replay", replay, last.ID, "again")
	if code != 0 || strings.TrimSpace(stdout) != "ok" || !strings.Contains(stderr, "waiting for it to finish (--wait)") {
		t.Errorf("resume --wait = %d, stdout %q, stderr %q; want 0 after waiting", code, stdout, stderr)
	}
}
