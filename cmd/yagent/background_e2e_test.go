package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/internal/pgtest"
	"github.com/yagent/yagent/llm/llmtest"
)

// TestBackgroundOnWorkers is issue 30 item 3 with queue.dsn: a yagent run
// whose director starts two background delegations, with two yagent
// worker processes on a throwaway PostgreSQL. Each delegation runs as a
// River job on a worker (the workers' logs name its stem once, "ok"),
// never in the director's process, and its note lands exactly once, at
// the ref the director was told when it started, through the session's
// coordinator (its key is the run's landing key); the director's next
// index lists both, then (each worker's sub-agent held after its first
// tool call) one at step 1 with last tool list_dir — the progress the
// worker recorded in the queue — and after await_delegations both as
// finished since its last call.
func TestBackgroundOnWorkers(t *testing.T) {
	bin, err := exec.LookPath("yagent") // testscript.Main put it on PATH
	if err != nil {
		t.Fatalf("yagent test binary not on PATH: %v", err)
	}
	dsn := pgtest.New(t)
	srv := llmtest.NewTestServer(t, filepath.Join("..", "..", "testdata", "scenarios", "background_workers.yaml"))
	root := t.TempDir()
	notesRoot := filepath.Join(root, "notes")
	host := func(name string, args ...string) *worker {
		dir := filepath.Join(root, name)
		mkfile(t, filepath.Join(dir, "home", ".yagent", "config.yaml"),
			fmt.Sprintf("queue:\n  dsn: %s\n  worker_timeout: 3s\n  max_attempts: 3\n  concurrency: 2\n", dsn))
		ws := filepath.Join(dir, "ws")
		if err := os.MkdirAll(ws, 0o755); err != nil {
			t.Fatal(err)
		}
		w := &worker{name: name, cmd: exec.CommandContext(t.Context(), bin, append(args, "--cd", ws)...)}
		w.cmd.Env = append(os.Environ(), "HOME="+filepath.Join(dir, "home"), "YAGENT_HOME="+filepath.Join(dir, "home", ".yagent"),
			"YAGENT_NOTES_ROOT="+notesRoot, "OPENAI_BASE_URL="+srv.URL(), "OPENAI_API_KEY=", "YAGENT_MODEL=scripted", "TERM=dumb")
		w.cmd.Stderr = &w.log
		return w
	}
	var workers []*worker
	for i := range 2 {
		w := host(fmt.Sprintf("worker%d", i+1), "worker")
		if err := w.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = w.cmd.Process.Signal(os.Interrupt)
			_ = w.cmd.Wait()
		})
		w.waitFor(t, " at once, workspace ", 30*time.Second)
		workers = append(workers, w)
	}

	lead := host("lead", "run", "--board", "bg", "BG-START: survey it in the background")
	var stdout strings.Builder
	lead.cmd.Stdout = &stdout
	done := make(chan error, 1)
	go func() { done <- lead.cmd.Run() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("yagent run: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), lead.log.String())
		}
	case <-time.After(2 * time.Minute):
		t.Fatalf("yagent run did not end within 2 minutes\nstderr:\n%s\nworkers:\n%s\n%s", lead.log.String(), workers[0].log.String(), workers[1].log.String())
	}
	if !strings.Contains(stdout.String(), "Both landed from the workers.") {
		t.Errorf("yagent run's answer: %q", stdout.String())
	}

	// The refs the director was told.
	var announced []string
	for _, r := range srv.Requests() {
		if r.StepID != "started" {
			continue
		}
		for _, m := range r.Messages {
			if ref := regexp.MustCompile(`(?m)^ref: (\S+)$`).FindStringSubmatch(m.Content); ref != nil {
				announced = append(announced, ref[1])
			}
		}
	}
	if len(announced) != 2 {
		t.Fatalf("refs announced to the director: %v; want 2", announced)
	}
	// The index's sections: each delegation in the call after the start
	// (running, or finished when a worker was that quick), both finished
	// in the call after await_delegations.
	for step, want := range map[string]string{"started": "[background · ", "report": "[background · finished since your last call] 2"} {
		text := ""
		for _, r := range srv.Requests() {
			if r.StepID == step {
				for _, m := range r.Messages {
					text += m.Content + "\n"
				}
			}
		}
		if !strings.Contains(text, want) {
			t.Errorf("the director's %s request has no %q:\n%s", step, want, text)
		}
		for _, ref := range announced {
			line := "- " + ref + " · "
			if step == "report" {
				line += "ok · handed over on a worker"
			}
			if !strings.Contains(text, line) {
				t.Errorf("the director's %s request does not list %q", step, line)
			}
		}
	}
	// While they ran, the index showed the step and last tool a worker
	// recorded in the queue (the director's process reads them: its
	// own hooks never see the sub-agent's calls).
	progress := ""
	for _, r := range srv.Requests() {
		if r.StepID == "progress" {
			for _, m := range r.Messages {
				progress += m.Content + "\n"
			}
		}
	}
	shown := 0
	for _, ref := range announced {
		if strings.Contains(progress, "- "+ref+" · worker · step 1 · last tool list_dir · ") {
			shown++
		}
	}
	if shown == 0 {
		t.Errorf("no director request showed a running delegation at step 1 with last tool list_dir:\n%s", progress)
	}
	store := blackboard.Open(notesRoot)
	list, err := store.ListNotes("bg", blackboard.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Notes) != 2 {
		t.Errorf("%d notes on the board; want 2 (one per background delegation)", len(list.Notes))
	}
	logs := workers[0].log.String() + workers[1].log.String()
	for _, ref := range announced {
		n, err := store.ReadNote("bg", ref)
		if err != nil {
			t.Errorf("no note at the announced ref %s: %v", ref, err)
			continue
		}
		if n.Handoff.Conclusion != "handed over on a worker" || !strings.HasPrefix(n.Handoff.Key, "batch:") {
			t.Errorf("note %s: conclusion %q, key %q; want the worker's, landed by the coordinator", ref, n.Handoff.Conclusion, n.Handoff.Key)
		}
		stem := strings.TrimPrefix(ref, "worker/")
		if k := len(regexp.MustCompile(`job \d+: `+regexp.QuoteMeta(stem)+` ok`).FindAllString(logs, -1)); k != 1 {
			t.Errorf("the workers finished %s %d times; want once\n%s", stem, k, logs)
		}
	}
}
