package batch

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/llm/llmtest"
)

// fourFuncs is f.go before the workers edit it: a function each.
const fourFuncs = "package f\n\nfunc A() int {\n\treturn 1\n}\n\nfunc B() int {\n\treturn 2\n}\n\nfunc C() int {\n\treturn 3\n}\n\nfunc D() int {\n\treturn 4\n}\n"

// TestBatchParallelWriters is issue 28's test with a batch plan (items 3
// and 6): four writing delegations of one level edit f.go in different
// functions, each in its own worktree — on River, in the worker's own
// clone at the coordinator's HEAD plus its uncommitted changes (f.go's D
// and an untracked binary file exist only there) — and merge: auto
// applies the four changes before the next level starts, whose delegation
// edits what they wrote. Then two delegations edit the same line: the
// first applies, the second conflicts, names its hunks, leaves the
// workspace as the first left it and skips the next level.
func TestBatchParallelWriters(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	eachBackend(t, func(t *testing.T, be backend) {
		ws := t.TempDir()
		committed := strings.Replace(fourFuncs, "\nfunc D() int {\n\treturn 4\n}\n", "", 1)
		writeFile(t, filepath.Join(ws, "f.go"), committed)
		for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "start"}} {
			gitIn(t, ws, args...)
		}
		head := gitIn(t, ws, "rev-parse", "HEAD")
		// Uncommitted: D, and an untracked binary file.
		writeFile(t, filepath.Join(ws, "f.go"), fourFuncs)
		blob := make([]byte, 256)
		for i := range blob {
			blob[i] = byte(i)
		}
		writeFile(t, filepath.Join(ws, "blob.bin"), string(blob))

		srv := llmtest.NewTestServer(t, filepath.Join("..", "testdata", "scenarios", "batch-parallel-writers.yaml"))
		store := blackboard.Open(filepath.Join(t.TempDir(), "notes"))
		f := &batchFixture{backend: be, srv: srv, runner: testRunnerAt(t, srv, store, ws, "auto"), store: store, rec: &agents.Recorder{}}
		var clone string
		if be == backendRiver {
			// The worker's own checkout of the repository, its own home
			// and board: nothing is shared with the coordinator but the
			// database.
			clone = filepath.Join(t.TempDir(), "clone")
			gitIn(t, ws, "clone", "-q", ws, clone)
			f.queue = newQueueBackend(t, testRunnerAt(t, srv, blackboard.Open(filepath.Join(t.TempDir(), "notes")), clone, "auto"))
		}
		file := filepath.Join(ws, "f.go")

		p := parsePlan(t, `board: pw
merge: auto
delegations:
  - {id: a, agent: worker, task: "EDIT-A: make A return 10."}
  - {id: b, agent: worker, task: "EDIT-B: make B return 20."}
  - {id: c, agent: worker, task: "EDIT-C: make C return 30."}
  - {id: d, agent: worker, task: "EDIT-D: make D return 40."}
  - {id: h, agent: worker, task: "EDIT-H: make A return 11.", depends_on: [a, b, c, d]}
`)
		rep, err := f.run(t.Context(), t, p, f.options(""))
		if err != nil || rep.Err("pw", be == backendRiver, nil) != nil {
			t.Fatalf("run: %v; report: %+v", err, rep)
		}
		want := strings.NewReplacer("return 1\n", "return 11\n", "return 2\n", "return 20\n", "return 3\n", "return 30\n", "return 4\n", "return 40\n").Replace(fourFuncs)
		if got := readFile(t, file); got != want {
			t.Errorf("f.go after the plan:\n%s\nwant:\n%s", got, want)
		}
		notes := f.notes(t, "pw")
		var branches []string
		for _, n := range notes {
			c := n.Handoff.Change
			if c == nil || c.State != blackboard.ChangeApplied || !slices.Equal(c.Files, []string{"f.go"}) || c.GitDir != "" {
				t.Errorf("note %s (%s): change %+v; want f.go, applied", n.Meta.Ref, n.Handoff.Conclusion, c)
				continue
			}
			branches = append(branches, c.Branch)
			if patch, err := store.ReadPatch("pw", n.Meta.Ref); err != nil || !strings.Contains(string(patch), "+\treturn ") {
				t.Errorf("patch of %s: %q, %v", n.Meta.Ref, patch, err)
			}
			if !strings.HasSuffix(c.Branch, "/"+strings.TrimPrefix(n.Meta.Ref, "worker/")) {
				t.Errorf("note %s: branch %s; want yagent/pw/<its stem>", n.Meta.Ref, c.Branch)
			}
		}
		if len(notes) != 5 || len(slices.Compact(slices.Sorted(slices.Values(branches)))) != 5 {
			t.Errorf("%d notes, branches %q; want five of each", len(notes), branches)
		}
		if n := strings.Count(gitIn(t, ws, "branch", "--list", "yagent/pw/*"), "yagent/pw/"); n != 5 {
			t.Errorf("%d branches in the repository; want 5", n)
		}
		if gitIn(t, ws, "diff", "--cached", "--name-only") != "" || gitIn(t, ws, "rev-parse", "HEAD") != head {
			t.Error("the batch touched the index or HEAD")
		}
		if be == backendRiver {
			if b := gitIn(t, clone, "branch", "--list", "yagent/*"); b != "" {
				t.Errorf("branches left in the worker's clone: %s", b)
			}
			if wt := gitIn(t, clone, "worktree", "list"); strings.Count(wt, "\n") != 0 {
				t.Errorf("worktrees left in the worker's clone:\n%s", wt)
			}
			if s := gitIn(t, clone, "status", "--porcelain"); s != "" {
				t.Errorf("the worker's own workspace changed:\n%s", s)
			}
		}

		p2 := parsePlan(t, `board: pw
merge: auto
delegations:
  - {id: e, agent: worker, task: "EDIT-E: make A return 100."}
  - {id: f, agent: worker, task: "EDIT-F: make A return 200."}
  - {id: g, agent: worker, task: "EDIT-G: never runs.", depends_on: [e]}
`)
		rep, err = f.run(t.Context(), t, p2, f.options(""))
		if err != nil {
			t.Fatal(err)
		}
		afterE := strings.Replace(want, "return 11\n", "return 100\n", 1)
		if got := readFile(t, file); got != afterE {
			t.Errorf("f.go after E applied and F conflicted:\n%s\nwant:\n%s", got, afterE)
		}
		rows := byID(rep)
		fref := rows["f"].Ref
		stop := rep.Err("pw", be == backendRiver, nil)
		for _, w := range []string{"merge: auto stopped at the change of f (" + fref + ")", "conflicts with the workspace in f.go", "<<<<<<<", "return 100", "return 200", ">>>>>>>"} {
			if stop == nil || !strings.Contains(stop.Error(), w) {
				t.Errorf("the batch's error %v; want it to say %q", stop, w)
			}
		}
		if rep.OK() || rows["e"].Status != "ok" || rows["f"].Status != "ok" || rows["g"].Status != StatusSkipped ||
			!strings.Contains(rows["g"].Reason, "did not merge") || !strings.Contains(rows["g"].Reason, fref) {
			t.Errorf("report rows %+v; want e and f ok, g skipped naming f's change, the batch failed", rows)
		}
		n, err := store.ReadNote("pw", fref)
		if err != nil || n.Handoff.Change == nil || n.Handoff.Change.State != blackboard.ChangePending {
			t.Errorf("F's note %v: change %+v; want pending", err, n)
		}
	})
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
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
