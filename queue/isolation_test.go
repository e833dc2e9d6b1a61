package queue

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/change"
)

// writeBig has a worker write big.txt, a file of many lines.
var writeBig = `name: write-big
steps:
  - id: write
    match: {agent: worker, last_role: user}
    reply:
      tool_calls:
        - {id: w1, name: write_file, arguments: {path: big.txt, content: "` + strings.Repeat("a line of the big file\\n", 200) + `"}}
  - id: exit
    match: {agent: worker, last_role: tool}
    reply:
      text: "Wrote big.txt."
      tool_calls:
        - {id: w2, name: agent_exit, arguments: {status: ok, conclusion: "wrote big.txt"}}
`

// gitRepo is a repository in a temp dir with one commit of README.
func gitRepo(t *testing.T, readme string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "README"), []byte(readme), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "start"}} {
		gitIn(t, dir, args...)
	}
	return dir
}

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t",
		"GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// isolating makes r work in ws and isolate its writing delegations, with
// worktrees under a root of its own.
func isolating(t *testing.T, r *agents.SubRunner, ws string) *agents.SubRunner {
	t.Helper()
	w, err := agents.OpenWorkspace(ws)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	reg := agents.NewRegistry()
	for _, tool := range agents.FSTools(w, agents.ShellPolicy{}) {
		reg.MustAdd(tool)
	}
	c := *r
	c.Workspace, c.Registry = w, reg
	c.Catalog = agents.LoadCatalog(agents.Sources{Workspace: ws}, func(name string) bool { _, ok := reg.Get(name); return ok })
	c.Isolation = agents.Isolation{Mode: agents.IsolationAuto, Root: t.TempDir()}
	return &c
}

// TestLargePatchGoesToSideTable: a worker's change larger than a job's
// output may carry (River's 32 MB cap; the threshold lowered here) waits
// in yagent_job_patch; the coordinator imports it from there as the
// branch of its own repository, the note carries change: and the patch,
// and the row is removed once the job landed.
func TestLargePatchGoesToSideTable(t *testing.T) {
	old := maxOutputPatch
	maxOutputPatch = 1024
	t.Cleanup(func() { maxOutputPatch = old })
	e := newEnv(t, writeBig, Options{MaxAttempts: 1})
	ws := gitRepo(t, "the project\n")
	clone := filepath.Join(t.TempDir(), "clone")
	gitIn(t, ws, "clone", "-q", ws, clone)
	e.runner = isolating(t, e.runner, ws)
	e.serve(t, isolating(t, e.runner, clone), "w1")
	c := e.coordinate(t, false)
	res, err := c.Run(t.Context(), item(1))
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != blackboard.StatusOK {
		t.Fatalf("result %+v; want ok", res)
	}
	var out []byte
	if err := e.q.pool.QueryRow(t.Context(), `SELECT metadata->'output' FROM river_job WHERE kind = $1`, JobKind).Scan(&out); err != nil {
		t.Fatal(err)
	}
	var jo JobOutput
	if err := json.Unmarshal(out, &jo); err != nil {
		t.Fatal(err)
	}
	if !jo.PatchStored || len(jo.Patch) != 0 {
		t.Errorf("job output: patch_stored %v, %d bytes of patch; want the patch in yagent_job_patch", jo.PatchStored, len(jo.Patch))
	}
	var left int
	if err := e.q.pool.QueryRow(t.Context(), `SELECT count(*) FROM yagent_job_patch`).Scan(&left); err != nil || left != 0 {
		t.Errorf("%d rows left in yagent_job_patch (%v); want none once the job landed", left, err)
	}
	n, err := e.store.ReadNote("b", res.Ref)
	if err != nil {
		t.Fatal(err)
	}
	ch := n.Handoff.Change
	if ch == nil || ch.State != blackboard.ChangePending || len(ch.Files) != 1 || ch.Files[0] != "big.txt" || ch.Insertions != 200 {
		t.Fatalf("note's change %+v; want big.txt, 200 lines, pending", ch)
	}
	if patch, err := e.store.ReadPatch("b", res.Ref); err != nil || strings.Count(string(patch), "+a line of the big file") != 200 {
		t.Errorf("note's patch (%v):\n%.300s", err, patch)
	}
	if got := gitIn(t, ws, "rev-parse", ch.Branch); got != ch.Head {
		t.Errorf("branch %s at %s; want %s", ch.Branch, got, ch.Head)
	}
	if _, err := change.Apply(t.Context(), ws, &change.Change{Branch: ch.Branch, Base: ch.Base, Head: ch.Head, Files: ch.Files}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "big.txt")); err != nil || strings.Count(string(b), "\n") != 200 {
		t.Errorf("big.txt after apply: %d bytes, %v", len(b), err)
	}
}

// TestBaseMissingOnWorker: a worker whose repository lacks the
// coordinator's HEAD cannot rebuild the person's workspace: the
// delegation ends degraded naming the commit and what to do, and no
// worktree or branch stays on the worker.
func TestBaseMissingOnWorker(t *testing.T) {
	e := newEnv(t, writeBig, Options{MaxAttempts: 1})
	ws := gitRepo(t, "the project\n")
	other := gitRepo(t, "another history\n")
	e.runner = isolating(t, e.runner, ws)
	worker := isolating(t, e.runner, other)
	e.serve(t, worker, "w1")
	c := e.coordinate(t, false)
	res, err := c.Run(t.Context(), item(2))
	if err != nil {
		t.Fatal(err)
	}
	head := gitIn(t, ws, "rev-parse", "HEAD")
	if res.Status != blackboard.StatusDegraded || !strings.Contains(res.Reason, "lacks commit "+head) || !strings.Contains(res.Reason, "push it") {
		t.Errorf("result %+v; want degraded naming commit %s and saying to push or fetch it", res, head)
	}
	if b := gitIn(t, other, "branch", "--list", "yagent/*"); b != "" {
		t.Errorf("branches left on the worker: %s", b)
	}
	if entries, _ := os.ReadDir(filepath.Join(worker.Isolation.Root, "b")); len(entries) != 0 {
		t.Errorf("worktrees left on the worker: %v", entries)
	}
	if b := gitIn(t, ws, "branch", "--list", "yagent/*"); b != "" {
		t.Errorf("branches made in the coordinator's repository: %s", b)
	}
}

// TestWorkerWithoutRepository: a worker whose workspace is no git
// repository isolates the delegation in a snapshot of it, as a local
// delegation does there, and its change still lands as a branch of the
// coordinator's repository.
func TestWorkerWithoutRepository(t *testing.T) {
	e := newEnv(t, writeBig, Options{MaxAttempts: 1})
	ws := gitRepo(t, "the project\n")
	plain := t.TempDir()
	if err := os.WriteFile(filepath.Join(plain, "README"), []byte("the project\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.runner = isolating(t, e.runner, ws)
	worker := isolating(t, e.runner, plain)
	e.serve(t, worker, "w1")
	c := e.coordinate(t, false)
	res, err := c.Run(t.Context(), item(3))
	if err != nil {
		t.Fatal(err)
	}
	n, err := e.store.ReadNote("b", res.Ref)
	if err != nil {
		t.Fatal(err)
	}
	ch := n.Handoff.Change
	if res.Status != blackboard.StatusOK || ch == nil || len(ch.Files) != 1 || ch.Files[0] != "big.txt" || ch.GitDir != "" {
		t.Fatalf("result %+v, change %+v; want ok with big.txt as a change of the coordinator's repository", res, ch)
	}
	if got := gitIn(t, ws, "rev-parse", ch.Branch); got != ch.Head {
		t.Errorf("branch %s at %s; want %s", ch.Branch, got, ch.Head)
	}
	if entries, _ := os.ReadDir(filepath.Join(worker.Isolation.Root, "b")); len(entries) != 0 {
		t.Errorf("snapshots left on the worker: %v", entries)
	}
	if _, err := os.Stat(filepath.Join(plain, "big.txt")); err == nil {
		t.Error("the worker wrote its own workspace")
	}
}

// TestPatchFits: a job's output carries a patch of up to maxOutputPatch
// bytes itself; one byte more goes to yagent_job_patch.
func TestPatchFits(t *testing.T) {
	for n, want := range map[int]bool{0: true, maxOutputPatch - 1: true, maxOutputPatch: true, maxOutputPatch + 1: false} {
		if got := patchFits(make([]byte, n)); got != want {
			t.Errorf("a patch of %d bytes fits: %t; want %t", n, got, want)
		}
	}
}
