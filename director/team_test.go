package director

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/llm/llmtest"
)

// TestTeam is issue 30 item 4's "Done when" on one host (scenario
// team.yaml): the director posts 20 tasks for team build (T20 depends on
// T01) and four workers delegated with team: build claim them until none
// is left. Every task is done exactly once: one claim, whose ref is the
// one note landed for it (key task:{stem}); T20 was claimed only after
// T01's note landed. Messages are delivered once and first: each
// worker's first request shows the director's message at the top of its
// index and no later request of it shows it again; the director's next
// call shows the four workers' messages first, the call after it none.
// A message to an unknown agent names the known ones.
func TestTeam(t *testing.T) {
	srv := llmtest.NewTestServer(t, filepath.Join("..", "testdata", "scenarios", "team.yaml"))
	g := newGate(t, srv)
	g.hold("first", func(body string) bool {
		return strings.Contains(body, "[agent:worker]") && strings.Contains(body, "(1 of the tasks you took so far)") &&
			!strings.Contains(body, "sent mail/")
	})
	home := t.TempDir()
	store := blackboard.Open(filepath.Join(home, "notes"))
	d, _, _ := testDirector(t, testEnv{srv: srv, home: home, store: store, id: "team-1", kind: "run", client: g.client(t),
		tweak: func(c *config.Config) { c.Agents.MaxParallelDelegations, c.Agents.MaxDelegationsPerTurn = 4, 12 }})
	done := make(chan error, 1)
	go func() {
		out, err := d.Turn(t.Context(), "TEAM-START: build it as a team of four")
		if err == nil && out.Final != "The team handed over every task." {
			err = fmt.Errorf("final answer %q", out.Final)
		}
		done <- err
	}()
	// Every worker holds a task before any hands one over.
	for range 4 {
		select {
		case <-g.find("first").held:
		case err := <-done:
			for _, r := range srv.Requests() {
				t.Logf("%s %s %q", r.Agent, r.StepID, r.Messages[len(r.Messages)-1].Content)
			}
			t.Fatalf("the turn ended before four workers held a task: %v", err)
		case <-time.After(time.Minute):
			for _, r := range srv.Requests() {
				t.Logf("%s %s %q", r.Agent, r.StepID, r.Messages[len(r.Messages)-1].Content)
			}
			t.Fatal("four workers did not hold a task within a minute")
		}
	}
	g.release("first")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, err := d.Turn(t.Context(), "AGAIN: anything new?"); err != nil {
		t.Fatal(err)
	}
	srv.AssertDone(t)

	list, err := store.Tasks("team-1")
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Tasks) != 20 || list.Counts()[blackboard.TaskDone] != 20 {
		t.Fatalf("tasks: %d, %v; want 20, all done\n%s", len(list.Tasks), list.Counts(), list.Table())
	}
	notes, err := store.ListNotes("team-1", blackboard.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[string][]blackboard.NoteMeta{}
	summaries := 0
	for _, m := range notes.Notes {
		_, h, err := store.ReadHandoff("team-1", m.Ref)
		if err != nil {
			t.Fatal(err)
		}
		if k, ok := strings.CutPrefix(h.Key, "task:"); ok {
			byKey[k] = append(byKey[k], m)
		} else if strings.HasPrefix(m.Conclusion, "Team build: handed over ") {
			summaries++
		}
	}
	var t01, t20 blackboard.TaskStatus
	for _, tk := range list.Tasks {
		stem := strings.TrimPrefix(tk.Ref, blackboard.TaskRefPrefix)
		got := byKey[stem]
		if len(got) != 1 || got[0].Ref != tk.Claim.Ref {
			t.Errorf("%s (%s): notes %v, claim %s; want exactly one note, at the claim's ref", tk.Ref, tk.Title, got, tk.Claim.Ref)
		}
		switch tk.Title {
		case "T01":
			t01 = tk
		case "T20":
			t20 = tk
		}
	}
	if summaries != 4 || len(notes.Notes) != 24 {
		t.Errorf("%d notes, %d team summaries; want 20 task notes and 4 summaries", len(notes.Notes), summaries)
	}
	if len(t20.DependsOn) != 1 || t20.DependsOn[0] != t01.Ref || t20.Claim.Time.Before(t01.Created) {
		t.Errorf("T20 depends on %v, claimed %v; want T01 (%s)", t20.DependsOn, t20.Claim.Time, t01.Ref)
	}
	n01, _, _ := store.ReadHandoff("team-1", t01.Claim.Ref)
	if t20.Claim.Time.Before(n01.Created) {
		t.Errorf("T20 was claimed at %v, before T01's note landed at %v", t20.Claim.Time, n01.Created)
	}

	// Messages: the director's reached each worker once, first.
	firsts := 0
	for _, r := range srv.Requests() {
		if r.Agent != "worker" {
			continue
		}
		tail := tailText(r.Messages)
		first := r.StepID == "hello"
		if first {
			firsts++
			if !strings.HasPrefix(tail, agents.TailHeader+"\n\n[mailbox · 1 unread]\n- mail/") || !strings.Contains(tail, "from director to worker: PLAN-NOTE") {
				t.Errorf("a worker's first request does not show the director's message first:\n%s", tail)
			}
		} else if strings.Contains(tail, "PLAN-NOTE") {
			t.Errorf("request %s of a worker shows the director's message again:\n%s", r.StepID, tail)
		}
	}
	if firsts != 4 {
		t.Errorf("%d first requests of workers; want 4", firsts)
	}
	report := tailOf(t, srv, "report")
	if !strings.HasPrefix(report, agents.TailHeader+"\n\n[mailbox · 4 unread]") || strings.Count(report, "from worker to director: HELLO") != 4 {
		t.Errorf("the director's call after the team does not show the four messages first:\n%s", report)
	}
	if !strings.Contains(report, "[tasks · 20: 20 done]") {
		t.Errorf("the director's index has no task line:\n%s", report)
	}
	if again := tailOf(t, srv, "again"); strings.Contains(again, "[mailbox") {
		t.Errorf("the director's next call shows the messages again:\n%s", again)
	}
	// The unknown addressee.
	for _, m := range request(t, srv, "team").Messages {
		if m.Role == llm.RoleTool && strings.Contains(m.Content, `"nobody"`) && !strings.Contains(m.Content, "director, all, explorer, reviewer, worker") {
			t.Errorf("a message to nobody: %q; want the known agents named", m.Content)
		}
	}
}

// tailText is the transient tail among msgs ("" when none).
func tailText(msgs []llm.Message) string {
	for _, m := range msgs {
		if strings.HasPrefix(m.Content, agents.TailHeader) {
			return m.Content
		}
	}
	return ""
}
