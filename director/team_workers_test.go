package director

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/internal/pgtest"
	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/llm/llmtest"
	"github.com/yagent/yagent/queue"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Run(m)) }

// TestTeamOnWorkers is issue 30 item 4's "Done when" on two River
// workers with PostgreSQL (scenario team_workers.yaml): four background
// members of team build claim 20 tasks on the director's host (claims
// as rows of the queue database), and each claimed task runs on a
// worker as one job. Every task is done exactly once: one job, one note
// at the stem its claim named, landed once; the gate holds every
// member's first round until four run at once, so both workers (two
// jobs each at most) run rounds. Messages are delivered once, unread
// first: the director's message heads each member's first round and no
// later one; a message sent while those rounds run heads the second
// round of each member that has one, and no later one.
func TestTeamOnWorkers(t *testing.T) {
	dsn := pgtest.New(t)
	srv := llmtest.NewTestServer(t, filepath.Join("..", "testdata", "scenarios", "team_workers.yaml"))
	g := newGate(t, srv)
	g.hold("first", func(body string) bool {
		return strings.Contains(body, "[agent:worker]") && strings.Contains(body, "(1 of the tasks you took so far)")
	})
	home := t.TempDir()
	const board = "team-w"
	store := blackboard.Open(filepath.Join(home, "notes"))
	qo := queue.Options{DSN: dsn, RescueAfter: time.Hour, MaxAttempts: 1, PollInterval: 20 * time.Millisecond}
	t.Cleanup(queue.UseClaims(t.Context(), qo, store))
	d, _, _ := testDirector(t, testEnv{srv: srv, home: home, store: store, id: board, kind: "run", client: g.client(t),
		tweak: func(c *config.Config) { c.Agents.MaxParallelDelegations, c.Agents.MaxDelegationsPerTurn = 4, 12 }})
	bg := queue.NewBackground(t.Context(), qo, board, queue.CoordinatorOptions{Runner: d.SubRunner(), Board: board})
	d.delegator.Remote = bg
	t.Cleanup(bg.Close) // before the director's Close (cleanups run last first)

	// Two workers on this host: the same notes root (a worker reads
	// nothing of it), no session, two jobs at once each.
	wr := *d.SubRunner()
	wr.Recorder, wr.Events, wr.Hooks = nil, nil, nil
	for _, name := range []string{"w1", "w2"} {
		q, err := queue.Open(t.Context(), qo)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		wg.Go(func() {
			if err := q.Serve(ctx, queue.WorkerOptions{Runner: &wr, Name: name, Concurrency: 2}); err != nil && !errors.Is(err, context.Canceled) {
				t.Errorf("worker %s: %v", name, err)
			}
		})
		t.Cleanup(func() { cancel(); wg.Wait(); q.Close() })
	}

	if out, err := d.Turn(t.Context(), "TEAM-WORKERS: build it as a team of four, on the workers"); err != nil || out.Final != "The team is at work on the workers." {
		t.Fatalf("the turn: %v, %+v", err, out)
	}
	dump := func() {
		for _, r := range srv.Requests() {
			t.Logf("%s %s %q", r.Agent, r.StepID, roundInput(r.Messages))
		}
	}
	for range 4 {
		select {
		case <-g.find("first").held:
		case <-time.After(time.Minute):
			dump()
			t.Fatal("four members' first rounds did not run at once within a minute")
		}
	}
	if _, err := store.SendMessage(board, blackboard.Message{From: blackboard.Director, To: "worker", Text: "SECOND-NOTE: mind the tests."}); err != nil {
		t.Fatal(err)
	}
	g.release("first")
	text, err := d.AwaitBackground(t.Context(), nil, 2*time.Minute)
	if err != nil || strings.Contains(text, "still running") {
		dump()
		t.Fatalf("awaiting the members: %v\n%s", err, text)
	}
	srv.AssertDone(t)

	list, err := store.Tasks(board)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Tasks) != 20 || list.Counts()[blackboard.TaskDone] != 20 {
		t.Fatalf("tasks: %d, %v; want 20, all done\n%s", len(list.Tasks), list.Counts(), list.Table())
	}
	claimed := map[string]string{} // the note's ref → its task
	for _, tk := range list.Tasks {
		claimed[tk.Claim.Ref] = tk.Ref
	}

	// One note per task, at its claim's ref; one summary per member.
	notes, err := store.ListNotes(board, blackboard.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	landed, summaries, handed := map[string]int{}, 0, 0
	for _, m := range notes.Notes {
		if strings.HasPrefix(m.Conclusion, "Team build: handed over ") {
			summaries++
			n, err := store.ReadNote(board, m.Ref)
			if err != nil {
				t.Fatal(err)
			}
			handed += len(n.Handoff.Facts)
			continue
		}
		landed[m.Ref]++
		if _, ok := claimed[m.Ref]; !ok {
			t.Errorf("note %s (%s) is at no claim's ref", m.Ref, m.Conclusion)
		}
	}
	for ref, task := range claimed {
		if landed[ref] != 1 {
			t.Errorf("%s: %d notes at its claim's ref %s; want exactly one", task, landed[ref], ref)
		}
	}
	if summaries != 4 || handed != 20 || len(notes.Notes) != 24 {
		t.Errorf("%d notes, %d member summaries listing %d tasks; want 20 task notes and 4 summaries listing 20", len(notes.Notes), summaries, handed)
	}

	// Each round was one job, run on a worker, landed once at its claim's ref.
	conn, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.WithoutCancel(t.Context()))
	rows, err := conn.Query(t.Context(), `SELECT j.state::text, coalesce(j.args->>'stem', ''), coalesce(j.metadata->'output'->>'worker', ''), coalesce(b.landed_ref, '')
		FROM river_job j LEFT JOIN yagent_batch_job b ON b.job_id = j.id ORDER BY j.id`)
	if err != nil {
		t.Fatal(err)
	}
	type jobRow struct{ state, stem, worker, landed string }
	jobs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (j jobRow, err error) {
		return j, r.Scan(&j.state, &j.stem, &j.worker, &j.landed)
	})
	if err != nil {
		t.Fatal(err)
	}
	ran := map[string]int{}
	stems := map[string]bool{}
	for _, j := range jobs {
		ref := blackboard.Ref{Agent: "worker", Stem: j.stem}.String()
		if j.state != "completed" || !slices.Contains([]string{"w1", "w2"}, j.worker) || j.landed != ref || claimed[ref] == "" || stems[j.stem] {
			t.Errorf("job %+v; want completed on w1 or w2, once per claim, landed at the claim's ref %s", j, ref)
		}
		stems[j.stem] = true
		ran[j.worker]++
	}
	if len(jobs) != 20 || ran["w1"] < 2 || ran["w2"] < 2 {
		t.Errorf("%d jobs, by worker %v; want 20, at least two on each worker", len(jobs), ran)
	}

	// Messages: once, unread first.
	rounds := map[int]int{}
	for _, r := range srv.Requests() {
		if r.Agent != "worker" {
			continue
		}
		n := roundOf(roundInput(r.Messages))
		rounds[n]++
		tail := tailText(r.Messages)
		head := agents.TailHeader + "\n\n[mailbox · 1 unread]\n- mail/"
		switch n {
		case 1:
			if !strings.HasPrefix(tail, head) || !strings.Contains(tail, "from director to worker: PLAN-NOTE") || strings.Contains(tail, "SECOND-NOTE") {
				t.Errorf("a member's first round does not show the director's first message alone and first:\n%s", tail)
			}
		case 2:
			if !strings.HasPrefix(tail, head) || !strings.Contains(tail, "from director to worker: SECOND-NOTE") || strings.Contains(tail, "PLAN-NOTE") {
				t.Errorf("a member's second round does not show the message sent meanwhile alone and first:\n%s", tail)
			}
		default:
			if strings.Contains(tail, "[mailbox") {
				t.Errorf("round %d of a member shows messages again:\n%s", n, tail)
			}
		}
	}
	if rounds[1] != 4 || rounds[2] < 1 || rounds[0] != 0 {
		t.Errorf("worker requests by round %v; want 4 first rounds, some second ones and none without a round", rounds)
	}
}

var roundRE = regexp.MustCompile(`\((\d+) of the tasks you took so far\)`)

// roundInput is the round's input among a member's messages: the last
// user message naming a task claimed ("" when none).
func roundInput(msgs []llm.Message) string {
	for _, m := range slices.Backward(msgs) {
		if m.Role == llm.RoleUser && !agents.IsTail(m) && roundRE.MatchString(m.Content) {
			return m.Content
		}
	}
	return ""
}

// roundOf is the member's round number a round's input names (0: none).
func roundOf(input string) int {
	m := roundRE.FindStringSubmatch(input)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}
