package director

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/llm/llmtest"
	"github.com/yagent/yagent/memory"
)

// fourFuncs is f.go before the workers: four functions, far enough apart
// for git to merge edits of each.
const fourFuncs = "package p\n\nfunc A() int {\n\treturn 1\n}\n\nfunc B() int {\n\treturn 2\n}\n\nfunc C() int {\n\treturn 3\n}\n\nfunc D() int {\n\treturn 4\n}\n"

// TestParallelWriters is issue 28's first "Done when", end to end through
// the director over a scripted model, in a git repository and in a
// workspace that is none (snapshots): four worker delegations at once,
// each editing one function of the same file, leave four branches and
// four patches on the board and nothing in the workspace; the director
// applies all four in one answer and the file is the four edits together.
// Then two workers edit the same line: the first change applies, the
// second conflicts — the result names f.go and the hunk — and the failed
// merge leaves the workspace as the first one made it.
func TestParallelWriters(t *testing.T) {
	for _, git := range []bool{true, false} {
		t.Run(map[bool]string{true: "git", false: "snapshot"}[git], func(t *testing.T) {
			var ws string
			if git {
				ws = gitWorkspace(t, map[string]string{"f.go": fourFuncs})
			} else {
				if _, err := exec.LookPath("git"); err != nil {
					t.Skip("git is not installed (a snapshot's shadow repository needs it)")
				}
				ws = plainWorkspace(t, map[string]string{"f.go": fourFuncs})
			}
			f := filepath.Join(ws, "f.go")
			srv := llmtest.NewTestServer(t, filepath.Join("..", "testdata", "scenarios", "parallel-writers.yaml"))
			home := t.TempDir()
			store := blackboard.Open(filepath.Join(home, "notes"))
			rec := &agents.Recorder{}
			d, _, _ := testDirector(t, testEnv{srv: srv, home: home, store: store, id: "pw", kind: memory.KindRun, workspace: ws, events: rec,
				tweak: func(c *config.Config) { c.Agents.Isolation = "auto"; c.Agents.MaxParallelDelegations = 4 }})

			start := time.Now()
			out, err := d.Turn(t.Context(), "PARALLEL: make A..D return 10..40")
			if err != nil {
				t.Fatal(err)
			}
			turn := time.Since(start)
			if !strings.Contains(out.Final, "All four changes") {
				t.Errorf("the director's answer: %q", out.Final)
			}
			want := strings.NewReplacer("return 1\n", "return 10\n", "return 2\n", "return 20\n", "return 3\n", "return 30\n", "return 4\n", "return 40\n").Replace(fourFuncs)
			if got := readFile(t, f); got != want {
				t.Errorf("f.go after four applies:\n%s\nwant:\n%s", got, want)
			}
			res, err := store.ListNotes("pw", blackboard.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var branches []string
			for _, m := range res.Notes {
				if m.Change == nil || m.Change.State != blackboard.ChangeApplied || !slices.Equal(m.Change.Files, []string{"f.go"}) {
					t.Errorf("note %s: change %+v; want f.go, applied", m.Ref, m.Change)
					continue
				}
				branches = append(branches, m.Change.Branch)
				if patch, err := store.ReadPatch("pw", m.Ref); err != nil || !strings.Contains(string(patch), "+\treturn ") {
					t.Errorf("patch of %s: %q, %v", m.Ref, patch, err)
				}
			}
			if len(res.Notes) != 4 || len(slices.Compact(slices.Sorted(slices.Values(branches)))) != 4 {
				t.Errorf("%d notes, branches %q; want four of each", len(res.Notes), branches)
			}
			if git {
				if n := strings.Count(gitIn(t, ws, "branch", "--list", "yagent/pw/*"), "yagent/pw/"); n != 4 {
					t.Errorf("%d branches in the repository; want 4", n)
				}
				if gitIn(t, ws, "diff", "--cached", "--name-only") != "" || gitIn(t, ws, "log", "--oneline") != gitIn(t, ws, "log", "--oneline", "main") {
					t.Error("applying touched the index or HEAD")
				}
			} else if _, err := os.Stat(filepath.Join(ws, ".git")); err == nil {
				t.Error("a snapshot made the workspace a git repository")
			}
			var elapsed []time.Duration
			for _, e := range rec.Events() {
				if e.Type == agents.EventDelegationFinished && e.Delegation != nil {
					elapsed = append(elapsed, time.Duration(e.Delegation.ElapsedMS)*time.Millisecond)
				}
			}
			t.Logf("four isolated delegations at once: turn %s, each delegation (isolate, two scripted calls, commit with patch) %v", turn.Round(time.Millisecond), elapsed)

			_, err = d.Turn(t.Context(), "SAMELINES: make A return 100 and 200")
			if err != nil {
				t.Fatal(err)
			}
			afterE := strings.Replace(want, "return 10\n", "return 100\n", 1)
			if got := readFile(t, f); got != afterE {
				t.Errorf("f.go after E applied and F conflicted:\n%s\nwant:\n%s", got, afterE)
			}
			var conflict string
			for _, r := range srv.Requests() {
				if r.StepID != "conflict" {
					continue
				}
				for _, m := range r.Messages {
					if strings.Contains(m.Content, "conflicts with the workspace") {
						conflict = m.Content
					}
				}
			}
			if !strings.Contains(conflict, "conflicts with the workspace in f.go") || !strings.Contains(conflict, "<<<<<<<") ||
				!strings.Contains(conflict, "return 100") || !strings.Contains(conflict, "return 200") || !strings.Contains(conflict, ">>>>>>>") {
				t.Errorf("the conflict the director got: %q; want f.go and its hunk", conflict)
			}
			pending := 0
			res, _ = store.ListNotes("pw", blackboard.ListOptions{})
			for _, m := range res.Notes {
				if m.Change != nil && m.Change.State == blackboard.ChangePending {
					pending++
				}
			}
			if pending != 1 {
				t.Errorf("%d pending changes; want F's alone", pending)
			}
			if idx, _ := store.BuildIndex("pw", blackboard.IndexOptions{MaxNotes: 12, LineChars: 160}); strings.Count(idx.Text, "- change ") != 1 {
				t.Errorf("the board index shows:\n%s\nwant one pending change", idx.Text)
			}
		})
	}
}
