package agents

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/yagent/yagent/blackboard"
)

// teamFixture is a board with the team tools and a member context.
func teamFixture(t *testing.T) (*blackboard.Store, map[string]*Tool, func(agent string) context.Context) {
	t.Helper()
	store := blackboard.Open(filepath.Join(t.TempDir(), "notes"))
	cat := LoadCatalog(Sources{Workspace: t.TempDir()}, nil)
	tools := map[string]*Tool{}
	for _, tl := range append(TeamTools(store, func() *Catalog { return cat }), ClaimTaskTool(store)) {
		tools[tl.Name] = tl
	}
	ctx := blackboard.WithBoardID(t.Context(), "b")
	as := func(agent string) context.Context {
		if agent == blackboard.Director {
			return ctx
		}
		var reserved string
		m := &member{agent: agent, session: agent + "-session", team: "t", board: "b", store: store}
		m.stem = func() string {
			if reserved == "" {
				reserved = store.NewStem()
			}
			return reserved
		}
		return withMember(ctx, m)
	}
	return store, tools, as
}

func teamCall(t *testing.T, ctx context.Context, tl *Tool, args any) Result {
	t.Helper()
	raw, _ := json.Marshal(args)
	res, err := tl.Run(ctx, &Call{ID: "c", Name: tl.Name, Args: raw})
	if err != nil {
		t.Fatalf("%s: %v", tl.Name, err)
	}
	return res
}

// TestTeamTools: claim_task of a claimed task says who holds it as a
// normal result, of a waiting one which tasks are open, of a done one how
// it went; the director claims nothing; a message to an unknown agent
// names the known ones; post_task refuses an unknown dependency, naming
// it.
func TestTeamTools(t *testing.T) {
	store, tools, as := teamFixture(t)
	dir, alice, bob := as(blackboard.Director), as("worker"), as("reviewer")
	res := teamCall(t, dir, tools["post_task"], map[string]any{"title": "first", "team": "t"})
	first := strings.Fields(res.Content)[1]
	first = strings.TrimSuffix(first, ":")
	res = teamCall(t, alice, tools["post_task"], map[string]any{"title": "second", "depends_on": []string{first}})
	second := strings.TrimSuffix(strings.Fields(res.Content)[1], ":")
	if !strings.Contains(res.Content, "team: t") {
		t.Errorf("a member's task is not of its team by default: %q", res.Content)
	}
	tests := []struct {
		name    string
		ctx     context.Context
		tool    string
		args    map[string]any
		want    string
		isError bool
	}{
		{"bad dependency", dir, "post_task", map[string]any{"title": "x", "depends_on": []string{"task/20260101T000000Z_abcd-1-000001"}}, "task/20260101T000000Z_abcd-1-000001: no such task", true},
		{"director claims", dir, "claim_task", map[string]any{"ref": first}, "the director hands tasks out", true},
		{"waiting", alice, "claim_task", map[string]any{"ref": second}, second + " cannot be claimed yet: it depends on tasks not done: " + first, false},
		{"won", alice, "claim_task", map[string]any{"ref": first}, "claimed " + first + ": first", false},
		{"holds one", alice, "claim_task", map[string]any{"ref": second}, "you hold " + first + " already", true},
		{"claimed by", bob, "claim_task", map[string]any{"ref": first}, first + " is claimed by worker", false},
		{"bad ref", bob, "claim_task", map[string]any{"ref": "../x"}, "is no task ref", true},
		{"unknown addressee", alice, "send_message", map[string]any{"to": "nobody", "text": "hi"}, `there is no agent "nobody" to send to: send to one of director, all, explorer, reviewer, worker`, true},
		{"sent", alice, "send_message", map[string]any{"to": "Director", "text": "hi"}, "sent mail/", false},
	}
	for _, tt := range tests {
		res := teamCall(t, tt.ctx, tools[tt.tool], tt.args)
		if !strings.Contains(res.Content, tt.want) || res.IsError != tt.isError {
			t.Errorf("%s: %s = %q (error %v); want %q (error %v)", tt.name, tt.tool, res.Content, res.IsError, tt.want, tt.isError)
		}
	}
	if msgs, _ := store.Mailbox("b", blackboard.Director); len(msgs) != 1 || msgs[0].From != "worker" || msgs[0].To != blackboard.Director {
		t.Errorf("director's mailbox = %+v; want the worker's message", msgs)
	}
}

// TestNextTaskWaitsForAHeldDependency: a member with nothing to claim
// but a task waiting on one another member holds waits for that note to
// land, then claims it; with nothing held, it stops at once.
func TestNextTaskWaitsForAHeldDependency(t *testing.T) {
	store, _, _ := teamFixture(t)
	a, _ := store.PostTask("b", blackboard.Task{Title: "a", Team: "t"})
	b, _ := store.PostTask("b", blackboard.Task{Title: "b", Team: "t", DependsOn: []string{a.Ref}})
	other := blackboard.Ref{Agent: "worker", Stem: store.NewStem()}
	if res, _ := store.ClaimTask("b", a.Ref, blackboard.Claim{Agent: "worker", Ref: other.String()}); !res.Won {
		t.Fatal("not won")
	}
	m := &member{agent: "worker", team: "t", board: "b", store: store, stem: store.NewStem}
	go func() {
		time.Sleep(300 * time.Millisecond)
		store.WriteNote("b", blackboard.NewNote{Handoff: blackboard.Handoff{Status: blackboard.StatusOK, Agent: "worker", Conclusion: "a done"}, Stem: other.Stem})
	}()
	res, ok, err := m.nextTask(t.Context())
	if err != nil || !ok || res.Task.Ref != b.Ref {
		t.Fatalf("nextTask = %+v, %v, %v; want %s once a's note landed", res.Task.Ref, ok, err, b.Ref)
	}
	start := time.Now()
	if _, ok, err := m.nextTask(t.Context()); ok || err != nil || time.Since(start) > 5*time.Second {
		t.Errorf("nextTask with nothing left = %v, %v after %v; want none, at once", ok, err, time.Since(start))
	}
}
