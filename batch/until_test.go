package batch

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yagent/yagent/app"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/llm/llmtest"
)

// TestBatchUntilOnWorkers: a plan's until with the delegations on River
// workers, where the sub-agent's history stays on the host that ran it.
// While the check fails the next round is a new job whose task is the
// entry's task and what still fails, with the last round's note in its
// context pack; its note supersedes that one. (Before, round 2 failed:
// a worker's note names no session to follow up.)
func TestBatchUntilOnWorkers(t *testing.T) {
	sc, err := llmtest.Parse([]byte(`
steps:
  - id: first
    match: {agent: worker, last_contains: "Create the DONE file.", not_contains: "The check still fails"}
    reply:
      tool_calls: [{name: agent_exit, arguments: {status: ok, conclusion: "tried once, no DONE yet"}}]
  - id: second
    match: {agent: worker, contains: "tried once, no DONE yet"}
    reply:
      tool_calls: [{name: agent_exit, arguments: {status: ok, conclusion: "created DONE"}}]
`), "until-workers")
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.New(sc)
	t.Cleanup(srv.Close)
	f := newBatchFixtureOn(t, backendRiver, srv, blackboard.Open(filepath.Join(t.TempDir(), "notes")), nil)
	opts := f.options("")
	opts.Check = func(_ context.Context, g app.Goal, round int) (app.CheckResult, error) {
		if round == 1 {
			return app.CheckResult{Round: round, Code: 1, Tail: "DONE is missing"}, nil
		}
		return app.CheckResult{Round: round}, nil
	}
	p := parsePlan(t, "board: until\nuntil: test -f DONE\nmax_rounds: 3\ndelegations:\n  - {id: done, agent: worker, task: Create the DONE file.}\n")
	rep, err := f.run(t.Context(), t, p, opts)
	if err != nil {
		t.Fatal(err)
	}
	srv.AssertDone(t)
	if got := byID(rep)["done"]; !rep.OK() || got.Conclusion != "created DONE" {
		t.Fatalf("report %+v; want done ok, created DONE", got)
	}
	reqs := srv.Requests()
	second := reqs[len(reqs)-1].Messages
	var prompt strings.Builder
	for _, m := range second {
		prompt.WriteString(m.Content)
	}
	for _, want := range []string{"Create the DONE file.", "The check still fails: `test -f DONE` exited 1", "DONE is missing", "tried once, no DONE yet"} {
		if !strings.Contains(prompt.String(), want) {
			t.Errorf("round 2's request lacks %q", want)
		}
	}
	notes := f.notes(t, "until")
	if len(notes) != 2 {
		t.Fatalf("%d notes; want 2, one per round", len(notes))
	}
	first, last := notes[0], notes[1]
	if first.Handoff.Conclusion != "tried once, no DONE yet" {
		first, last = last, first
	}
	if last.Handoff.Supersedes != first.Meta.Ref {
		t.Errorf("round 2's note supersedes %q; want %s", last.Handoff.Supersedes, first.Meta.Ref)
	}
}
