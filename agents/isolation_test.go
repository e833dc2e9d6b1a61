package agents

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/change"
	"github.com/yagent/yagent/llm"
)

// gitRepo makes dir a git repository with one commit of what it holds.
func gitRepo(t *testing.T, dir string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "start"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

type noticeSink struct {
	mu      sync.Mutex
	notices []string
}

func (s *noticeSink) Emit(e Event) {
	if e.Type == EventNotice {
		s.mu.Lock()
		s.notices = append(s.notices, e.Text)
		s.mu.Unlock()
	}
}

// isolatedRunner is a runner over the subagent-isolation scenario whose
// workspace is a git repository (git) or a plain directory.
func isolatedRunner(t *testing.T, git bool) (*SubRunner, *blackboard.Store, *noticeSink) {
	t.Helper()
	_, client := scenario(t, "subagent-isolation")
	w := demoWorkspace(t)
	if git {
		gitRepo(t, w.Dir())
	}
	store := blackboard.Open(filepath.Join(t.TempDir(), "notes"))
	policy := ShellPolicy{Approval: ApproveNever, Allowed: true}
	reg := NewRegistry(append(append(FSTools(w, policy), ShellTool(w, policy)), BoardTools(store, 4000, w)...)...)
	sink := &noticeSink{}
	return &SubRunner{
		Client:   func(string) (llm.Client, string, error) { return client, "scripted", nil },
		Registry: reg, Catalog: LoadCatalog(Sources{Workspace: w.Dir()}, nil), Board: store, Workspace: w, Events: sink,
		Index: blackboard.IndexOptions{MaxNotes: 12, LineChars: 160}, MaxSteps: 5, TailRole: llm.RoleUser,
		Isolation: Isolation{Mode: IsolationAuto, Root: filepath.Join(t.TempDir(), "worktrees"), MaxBytes: 1 << 20, Said: new(sync.Once)},
	}, store, sink
}

// A delegation to an agent that can write runs in a worktree of its own
// (issue 28): its edits land on the branch yagent/<board>/<note stem> as
// a change, never in the person's workspace, and its worktree goes when
// it ends; an agent that only reads, or a delegation told isolation:
// none, works in the workspace itself; nothing changed → no branch; the
// worktree removed during the run → a degraded note naming it; a
// workspace that is no git repository gets a snapshot, said once.
func TestSubRunnerIsolates(t *testing.T) {
	for _, git := range []bool{true, false} {
		name := map[bool]string{true: "git", false: "snapshot"}[git]
		t.Run(name, func(t *testing.T) {
			r, store, sink := isolatedRunner(t, git)
			person := r.Workspace.Dir()
			main := filepath.Join(person, "main.go")
			before, _ := os.ReadFile(main)

			res, err := r.Run(t.Context(), Delegation{Agent: "worker", Task: "TASK-EDIT", BoardID: "b", Depth: 1})
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != blackboard.StatusOK || res.Change == nil {
				t.Fatalf("worker: %+v; want ok with a change", res)
			}
			ref, _ := blackboard.ParseNoteRef(res.Ref)
			if want := "yagent/b/" + ref.Stem; res.Change.Branch != want {
				t.Errorf("branch %q; want %q (the note's stem)", res.Change.Branch, want)
			}
			if !slices.Equal(res.Change.Files, []string{"docs/new.txt", "main.go"}) || res.Change.Insertions != 2 || res.Change.Deletions != 1 {
				t.Errorf("change %+v; want docs/new.txt and main.go, +2 -1", res.Change)
			}
			if !strings.Contains(string(res.Change.Patch), `+func main() { println("isolated") }`) {
				t.Errorf("patch:\n%s", res.Change.Patch)
			}
			n, err := store.ReadNote("b", res.Ref)
			if err != nil {
				t.Fatal(err)
			}
			if c := n.Handoff.Change; c == nil || c.State != blackboard.ChangePending || c.Branch != res.Change.Branch || c.Head != res.Change.Head ||
				!slices.Equal(c.Files, res.Change.Files) || (c.GitDir != "") == git {
				t.Errorf("the note's change: %+v; want the branch's, pending", c)
			}
			if patch, err := store.ReadPatch("b", res.Ref); err != nil || string(patch) != string(res.Change.Patch) {
				t.Errorf("the note's patch: %q, %v", patch, err)
			}
			if now, _ := os.ReadFile(main); string(now) != string(before) {
				t.Errorf("the person's main.go changed: %q", now)
			}
			if _, err := os.Stat(filepath.Join(person, "docs", "new.txt")); err == nil {
				t.Error("docs/new.txt was written in the person's workspace")
			}
			if _, err := os.Stat(res.Isolated); err == nil {
				t.Errorf("the worktree %s is still there", res.Isolated)
			}
			if git && gitOut(t, person, "status", "--porcelain") != "" {
				t.Errorf("the person's status changed: %s", gitOut(t, person, "status", "--porcelain"))
			}

			res, err = r.Run(t.Context(), Delegation{Agent: "worker", Task: "TASK-NOTHING", BoardID: "b", Depth: 1})
			if err != nil || res.Change != nil || res.Isolated == "" {
				t.Errorf("nothing changed: %+v, %v; want an isolated run without a change", res, err)
			}
			if n, _ := store.ReadNote("b", res.Ref); n == nil || n.Handoff.Change != nil {
				t.Errorf("nothing changed, yet the note carries a change")
			}
			if _, err := store.ReadPatch("b", res.Ref); err == nil {
				t.Error("nothing changed, yet the note has a patch")
			}
			if git && strings.Count(gitOut(t, person, "branch", "--list", "yagent/*"), "yagent/") != 1 {
				t.Errorf("branches: %s; want the first change's alone", gitOut(t, person, "branch", "--list", "yagent/*"))
			}

			res, err = r.Run(t.Context(), Delegation{Agent: "explorer", Task: "look", BoardID: "b", Depth: 1})
			if err != nil || res.Isolated != "" {
				t.Errorf("explorer: %+v, %v; want it in the workspace itself", res, err)
			}

			// A writer delegated by an isolated sub-agent works in its
			// parent's worktree.
			parent := demoWorkspace(t)
			res, err = r.Run(WithWorkspace(t.Context(), parent), Delegation{Agent: "worker", Task: "TASK-EDIT", BoardID: "b", Depth: 2})
			if err != nil || res.Isolated != "" || res.Change != nil {
				t.Errorf("nested writer: %+v, %v; want it in its parent's worktree", res, err)
			}
			if now, _ := os.ReadFile(filepath.Join(parent.Dir(), "main.go")); !strings.Contains(string(now), "isolated") {
				t.Errorf("the nested writer did not edit its parent's worktree: %q", now)
			}

			res, err = r.Run(t.Context(), Delegation{Agent: "worker", Task: "TASK-EDIT", BoardID: "b", Depth: 1, Isolation: IsolationNone})
			if err != nil || res.Isolated != "" || res.Change != nil {
				t.Errorf("isolation none: %+v, %v", res, err)
			}
			if now, _ := os.ReadFile(main); !strings.Contains(string(now), "isolated") {
				t.Errorf("isolation none did not edit the workspace: %q", now)
			}

			res, err = r.Run(t.Context(), Delegation{Agent: "worker", Task: "TASK-GONE", BoardID: "b", Depth: 1})
			if err != nil {
				t.Fatal(err)
			}
			n, err = store.ReadNote("b", res.Ref)
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != blackboard.StatusDegraded || !strings.Contains(n.Handoff.Reason, res.Isolated) || !strings.Contains(n.Handoff.Reason, "gone") {
				t.Errorf("worktree removed: %s, reason %q; want degraded naming %s", res.Status, n.Handoff.Reason, res.Isolated)
			}

			said := 0
			for _, n := range sink.notices {
				if strings.Contains(n, "no git repository") {
					said++
				}
			}
			if want := map[bool]int{true: 0, false: 1}[git]; said != want {
				t.Errorf("the snapshot fallback said %d times; want %d: %q", said, want, sink.notices)
			}
		})
	}
}

// A delegation sent from another host with a base (a River job, issue 28
// item 6) runs in a worktree of this host's checkout at that base — the
// coordinator's HEAD plus its uncommitted and untracked files, a binary
// one included — even though its note lands elsewhere (Land set); the
// note handed to Land carries the change and a binary patch that rebuilds
// it on the base's snapshot, and no worktree nor branch stays here.
func TestSubRunnerIsolatesAtBase(t *testing.T) {
	r, _, _ := isolatedRunner(t, true)
	person := r.Workspace.Dir()
	if err := os.WriteFile(filepath.Join(person, "docs", "readme.txt"), []byte("hello, uncommitted\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(person, "blob.bin"), []byte{0, 1, 2, 255, 0, 'x'}, 0o644); err != nil {
		t.Fatal(err)
	}
	status := gitOut(t, person, "status", "--porcelain")
	base, err := change.Capture(t.Context(), person)
	if err != nil {
		t.Fatal(err)
	}
	var landed blackboard.NewNote
	r.Land = func(_ string, n blackboard.NewNote) (blackboard.NoteMeta, error) {
		landed = n
		return blackboard.NoteMeta{Ref: "worker/x", Status: n.Handoff.Status}, nil
	}
	res, err := r.Run(t.Context(), Delegation{Agent: "worker", Task: "TASK-EDIT", BoardID: "b", Depth: 1, Base: base})
	if err != nil {
		t.Fatal(err)
	}
	c := landed.Handoff.Change
	if res.Status != blackboard.StatusOK || c == nil || !slices.Equal(c.Files, []string{"docs/new.txt", "main.go"}) {
		t.Fatalf("result %+v, the landed change %+v; want ok with docs/new.txt and main.go", res, c)
	}
	if b := gitOut(t, person, "branch", "--list", "yagent/*"); b != "" {
		t.Errorf("branches left here: %s", b)
	}
	if entries, _ := os.ReadDir(filepath.Join(r.Isolation.Root, "b")); len(entries) != 0 {
		t.Errorf("worktrees left here: %v", entries)
	}
	if now := gitOut(t, person, "status", "--porcelain"); now != status {
		t.Errorf("the workspace's status went from %q to %q", status, now)
	}
	imported, err := change.Import(t.Context(), person, "yagent/b/imported", base.Snapshot, landed.Patch, "", "imported")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(imported.Files, c.Files) || imported.Insertions != c.Insertions || imported.Deletions != c.Deletions {
		t.Errorf("the patch imported on the base: %+v; want the worker's change %+v", imported, c)
	}
	for path, want := range map[string]string{"docs/readme.txt": "hello, uncommitted\n", "blob.bin": "\x00\x01\x02\xff\x00x", "docs/new.txt": "new\n"} {
		if got := gitOut(t, person, "show", imported.Head+":"+path); got != strings.TrimSpace(want) {
			t.Errorf("%s in the imported change: %q; want %q", path, got, want)
		}
	}
}

// TestSubAgentContextWhereItWorks (issue 31 item 4): a delegation that
// works in a worktree of its own gets the context files of that
// directory (ProjectIn), one that works in the workspace the run's own.
func TestSubAgentContextWhereItWorks(t *testing.T) {
	r, _, _ := isolatedRunner(t, true)
	var asked []string
	r.Project = "the workspace's"
	r.ProjectIn = func(dir string) string { asked = append(asked, dir); return "the worktree's" }
	res, err := r.Run(t.Context(), Delegation{Agent: "worker", Task: "TASK-NOTHING", BoardID: "b", Depth: 1})
	if err != nil || res.Isolated == "" {
		t.Fatalf("worker: %+v, %v; want an isolated run", res, err)
	}
	if len(asked) != 1 || asked[0] == r.Workspace.Dir() || filepath.Base(asked[0]) != filepath.Base(res.Isolated) {
		t.Errorf("ProjectIn asked for %q; want the worktree %s once", asked, res.Isolated)
	}
	if _, err := r.Run(t.Context(), Delegation{Agent: "explorer", Task: "look", BoardID: "b", Depth: 1}); err != nil || len(asked) != 1 {
		t.Errorf("explorer: %v, ProjectIn asked %q; want the run's own Project", err, asked)
	}
	if got := r.projectIn(r.Workspace.Dir()); got != "the workspace's" {
		t.Errorf("projectIn(workspace) = %q", got)
	}
}
