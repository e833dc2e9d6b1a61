package director

import (
	"errors"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/change"
	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/llm/llmtest"
	"github.com/yagent/yagent/memory"
)

// TestRewindTurns is issue 28's rewind scene end to end, in a git
// repository and in a workspace that is none: three turns create, edit
// (a binary file too) and delete files; rewinding to before turn 2 brings
// every byte of turn 1's end back and the next turn's request carries
// turn 1's conversation alone, but a file the person edited after the
// turns is kept and named (ErrKept) until forced. Then a worker's change,
// isolated and applied by apply_change, is reverted by rewinding its
// delegation, and is pending again.
func TestRewindTurns(t *testing.T) {
	for _, git := range []bool{true, false} {
		t.Run(map[bool]string{true: "git", false: "plain"}[git], func(t *testing.T) {
			start := map[string]string{"keep.txt": "v0\n", "gone.txt": "bye\n", "other.txt": "o\n"}
			var ws string
			if git {
				ws = gitWorkspace(t, start)
			} else {
				if _, err := exec.LookPath("git"); err != nil {
					t.Skip("git is not installed (checkpoints keep a shadow repository)")
				}
				ws = plainWorkspace(t, start)
			}
			srv := llmtest.NewTestServer(t, filepath.Join("..", "testdata", "scenarios", "rewind.yaml"))
			home := t.TempDir()
			store := blackboard.Open(filepath.Join(home, "notes"))
			d, _, sess := testDirector(t, testEnv{srv: srv, home: home, store: store, id: "rw", kind: memory.KindRun, workspace: ws, allowShell: true,
				events: &agents.Recorder{}, tweak: func(c *config.Config) { c.Agents.Isolation = "auto" }})
			turn := func(input string) {
				t.Helper()
				if _, err := d.Turn(t.Context(), input); err != nil {
					t.Fatal(err)
				}
			}
			turn("TURN1: make a file")
			afterOne := files(t, ws)
			turn("TURN2: edit files")
			turn("TURN3: delete a file")
			if _, err := os.Stat(filepath.Join(ws, "gone.txt")); err == nil || files(t, ws)["sub/bin.dat"] == "" {
				t.Fatalf("the turns did not run as scripted: %v", files(t, ws))
			}
			// The person edits made.txt after the turns.
			if err := os.WriteFile(filepath.Join(ws, "made.txt"), []byte("the person's\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			r, err := d.Rewind(t.Context(), RewindOptions{Turn: 2})
			if !errors.Is(err, ErrKept) || !strings.Contains(err.Error(), "made.txt") || !strings.Contains(err.Error(), "--force") {
				t.Fatalf("rewind over the person's edit: %v; want ErrKept naming made.txt and --force", err)
			}
			if !slices.Equal(r.Files.Kept, []string{"made.txt"}) || !slices.Equal(r.Files.Written, []string{"gone.txt", "keep.txt"}) ||
				!slices.Equal(r.Files.Removed, []string{"sub/bin.dat"}) || !r.Conversation {
				t.Errorf("rewound %+v", r)
			}
			if got := readFile(t, filepath.Join(ws, "made.txt")); got != "the person's\n" {
				t.Errorf("the person's edit was overwritten: %q", got)
			}
			if _, err := d.Rewind(t.Context(), RewindOptions{Turn: 2, Force: true}); err != nil {
				t.Fatal(err)
			}
			if got := files(t, ws); !maps.Equal(got, afterOne) {
				t.Errorf("after the rewind:\n%v\nwant the end of turn 1:\n%v", got, afterOne)
			}
			turn("TURN4: what do you see")
			var sent []llm.Message
			for _, q := range srv.Requests() {
				if q.StepID == "t4" {
					sent = q.Messages
				}
			}
			var convo []string
			for _, m := range sent {
				if m.Role != llm.RoleSystem && !strings.HasPrefix(m.Content, llmtest.TailPrefix) {
					convo = append(convo, string(m.Role)+":"+m.Content)
				}
			}
			want := []string{"user:TURN1: make a file", "assistant:", "tool:", "assistant:Turn 1 made made.txt.", "user:TURN4: what do you see"}
			if len(convo) != len(want) {
				t.Fatalf("turn 4's request carries %q; want turn 1 and turn 4 only", convo)
			}
			for i := range want {
				if !strings.HasPrefix(convo[i], want[i]) {
					t.Fatalf("turn 4's request carries %q; want turn 1 and turn 4 only", convo)
				}
			}
			if sess.LastTurn() != 4 {
				t.Errorf("last turn %d; turn numbers keep growing after a rewind", sess.LastTurn())
			}

			// An applied change, reverted by its delegation's rewind.
			turn("TURN5: delegate and apply")
			if got := readFile(t, filepath.Join(ws, "other.txt")); got != "w\n" {
				t.Fatalf("the worker's change was not applied: %q", got)
			}
			res, err := store.ListNotes("rw", blackboard.ListOptions{})
			if err != nil || len(res.Notes) != 1 {
				t.Fatalf("notes %v, %v", res, err)
			}
			ref := res.Notes[0].Ref
			if _, err := d.Rewind(t.Context(), RewindOptions{Delegation: ref, Turn: 1}); !errors.Is(err, ErrRewindUsage) {
				t.Errorf("a delegation with a turn: %v", err)
			}
			r, err = d.Rewind(t.Context(), RewindOptions{Delegation: ref})
			if err != nil {
				t.Fatal(err)
			}
			if got := readFile(t, filepath.Join(ws, "other.txt")); got != "o\n" || !slices.Equal(r.Files.Written, []string{"other.txt"}) || r.Conversation {
				t.Errorf("other.txt after the delegation's rewind: %q (%+v)", got, r)
			}
			n, err := store.ReadNote("rw", ref)
			if err != nil || n.Handoff.Change.State != blackboard.ChangePending {
				t.Errorf("the reverted change: %+v, %v; want pending", n.Handoff.Change, err)
			}
			if _, err := d.Rewind(t.Context(), RewindOptions{Delegation: ref}); err == nil || !strings.Contains(err.Error(), "never applied") {
				t.Errorf("rewinding a change not applied: %v", err)
			}

			// A delegation that writes in the workspace itself
			// (isolation: none) is checkpointed around: yagent rewind
			// --delegation (Rewind, another checkpointer) takes back the
			// files it changed, and only those.
			turn("TURN6: delegate in place")
			if got := readFile(t, filepath.Join(ws, "other.txt")); got != "n\n" {
				t.Fatalf("the worker did not edit in place: %q", got)
			}
			if err := os.WriteFile(filepath.Join(ws, "person.txt"), []byte("mine\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			res, err = store.ListNotes("rw", blackboard.ListOptions{})
			if err != nil || len(res.Notes) != 2 {
				t.Fatalf("notes %v, %v", res, err)
			}
			inPlace := res.Notes[0].Ref
			if inPlace == ref {
				inPlace = res.Notes[1].Ref
			}
			r, err = Rewind(t.Context(), RewindIn{Home: home, Workspace: ws, Session: sess, Board: store, RewindOptions: RewindOptions{Delegation: inPlace}})
			if err != nil {
				t.Fatal(err)
			}
			if got := files(t, ws); got["other.txt"] != "o\n" || got["person.txt"] != "mine\n" || !slices.Equal(r.Files.Written, []string{"other.txt"}) || r.Conversation {
				t.Errorf("after the in-place delegation's rewind: %v (%+v)", got, r)
			}
			if rep := r.Report(); !strings.Contains(rep, "before the delegation "+inPlace+" ran") {
				t.Errorf("the report: %s", rep)
			}
			cps, err := change.OpenCheckpoints(t.Context(), CheckpointsDir(home), ws)
			if err != nil {
				t.Fatal(err)
			}
			names, err := cps.Names(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range names {
				if strings.Contains(n, "delegation-") && !strings.HasPrefix(n, "rw/"+delegationCheckpoint(inPlace)) {
					t.Errorf("checkpoint %s: only the in-place delegation gets them (the isolated one is checkpointed at its apply)", n)
				}
			}
		})
	}
}

// files reads every file of the workspace (not .git), by slash path.
func files(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() && e.Name() == ".git" {
			return filepath.SkipDir
		}
		if !e.IsDir() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			out[filepath.ToSlash(rel)] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCheckpointBound: a checkpoint reads at most
// agents.isolation_max_bytes of files new to it; the largest are skipped,
// said once in a notice, and a rewind names them as not restored.
func TestCheckpointBound(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed (checkpoints keep a shadow repository)")
	}
	ws := plainWorkspace(t, map[string]string{"keep.txt": "v0\n", "gone.txt": "bye\n", "other.txt": "o\n", "big.bin": strings.Repeat("x", 5000)})
	srv := llmtest.NewTestServer(t, filepath.Join("..", "testdata", "scenarios", "rewind.yaml"))
	home := t.TempDir()
	events := &agents.Recorder{}
	d, _, _ := testDirector(t, testEnv{srv: srv, home: home, store: blackboard.Open(filepath.Join(home, "notes")), id: "rb", kind: memory.KindRun, workspace: ws,
		allowShell: true, events: events, tweak: func(c *config.Config) { c.Agents.IsolationMaxBytes = 1000 }})
	for _, in := range []string{"TURN1: make a file", "TURN2: edit files"} {
		if _, err := d.Turn(t.Context(), in); err != nil {
			t.Fatal(err)
		}
	}
	said := 0
	for _, e := range events.Events() {
		if e.Type == agents.EventNotice && strings.Contains(e.Text, "checkpoints skip") {
			said++
			if !strings.Contains(e.Text, "big.bin") || !strings.Contains(e.Text, "agents.isolation_max_bytes") {
				t.Errorf("the notice: %q; want big.bin and the key", e.Text)
			}
		}
	}
	if said != 1 {
		t.Errorf("the skipped file was said %d times; want once", said)
	}
	if err := os.WriteFile(filepath.Join(ws, "big.bin"), []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := d.Rewind(t.Context(), RewindOptions{Turn: 1, FilesOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := files(t, ws); got["made.txt"] != "" || got["keep.txt"] != "v0\n" || got["big.bin"] != "changed\n" {
		t.Errorf("after the rewind: %v", got)
	}
	if rep := r.Report(); !strings.Contains(rep, "not restored") || !strings.Contains(rep, "big.bin") {
		t.Errorf("the report does not name big.bin:\n%s", rep)
	}
}
