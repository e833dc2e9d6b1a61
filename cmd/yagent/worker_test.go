package main

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yagent/yagent/internal/pgtest"
	"github.com/yagent/yagent/internal/testio"
)

// TestWorkerCreatesNoSession pins that a worker assembles its runtime
// without a session: `yagent worker --drain` on an empty queue leaves no
// session row, no rollout and no lock file behind (it used to leave an
// empty batch session per start).
func TestWorkerCreatesNoSession(t *testing.T) {
	bin, err := exec.LookPath("yagent") // testscript.Main put it on PATH
	if err != nil {
		t.Fatalf("yagent test binary not on PATH: %v", err)
	}
	dsn := pgtest.New(t)
	home := t.TempDir()
	env := append(os.Environ(), "HOME="+home, "YAGENT_HOME="+filepath.Join(home, ".yagent"), "YAGENT_NOTES_ROOT=",
		"OPENAI_BASE_URL=", "OPENAI_API_KEY=", "YAGENT_MODEL=", "TERM=dumb")
	w := testio.Command(t, testio.ChildTimeout, bin, "worker", "--queue", dsn, "--drain", "--cd", t.TempDir())
	w.Env = env
	if out, err := w.CombinedOutput(); err != nil {
		t.Fatalf("worker --drain: %v\n%s", err, out)
	}
	ls := testio.Command(t, testio.ChildTimeout, bin, "sessions", "ls", "--all", "--json")
	ls.Env = env
	out, err := ls.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "[]" {
		t.Errorf("sessions ls after a worker on an empty queue = %s, %v; want no session", out, err)
	}
	_ = filepath.WalkDir(home, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(path, ".jsonl") || strings.HasSuffix(path, ".lock")) {
			t.Errorf("the worker left %s", path)
		}
		return nil
	})
}
