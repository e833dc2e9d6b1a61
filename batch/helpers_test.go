package batch

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/app"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/llm/llmtest"
)

// batchFixture runs plans against a scripted scenario on one backend (see
// batch_backend_test.go): the workspace is the repository (the example
// plan reads it), the board lives in a temp dir.
type batchFixture struct {
	backend backend
	srv     *llmtest.Server
	runner  *agents.SubRunner
	store   *blackboard.Store
	rec     *agents.Recorder
	queue   *queueBackend // the River backend's database and worker
}

func newBatchFixture(t *testing.T, be backend, scenario string) *batchFixture {
	t.Helper()
	srv := llmtest.NewTestServer(t, filepath.Join("..", "testdata", "scenarios", scenario+".yaml"))
	return newBatchFixtureOn(t, be, srv, blackboard.Open(filepath.Join(t.TempDir(), "notes")), nil)
}

// newBatchFixtureOn builds a fixture over an existing server, store and
// (River) queue: a second run of the same plan.
func newBatchFixtureOn(t *testing.T, be backend, srv *llmtest.Server, store *blackboard.Store, qb *queueBackend) *batchFixture {
	t.Helper()
	f := &batchFixture{backend: be, srv: srv, runner: testRunner(t, srv, store), store: store, rec: &agents.Recorder{}, queue: qb}
	if be == backendRiver && qb == nil {
		f.queue = newQueueBackend(t, f.runner)
	}
	return f
}

// testRunner assembles a run over the repository (the example plan reads
// it) whose every model is srv, and returns its runner of delegations: a
// batch needs nothing else, and no session.
func testRunner(t *testing.T, srv *llmtest.Server, store *blackboard.Store) *agents.SubRunner {
	t.Helper()
	// The workspace is this repository: a worktree of it per writing
	// delegation (agents.isolation: auto) would cost 0.5 s each and is
	// not what these tests are about.
	return testRunnerAt(t, srv, store, "..", "none")
}

// testRunnerAt is testRunner over the workspace ws with agents.isolation
// set to isolation.
func testRunnerAt(t *testing.T, srv *llmtest.Server, store *blackboard.Store, ws, isolation string) *agents.SubRunner {
	t.Helper()
	home := t.TempDir()
	cfg, err := config.Load(config.Options{Getenv: func(k string) string {
		if k == "YAGENT_HOME" {
			return home
		}
		return ""
	}, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Agents.Isolation = isolation
	client, err := llm.NewOpenAI(llm.EndpointConfig{BaseURL: srv.URL(), Model: "scripted", Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	a, err := app.New(app.Options{Config: cfg, Client: func(string) (llm.Client, string, error) { return client, "scripted", nil },
		Workspace: ws, Board: store, Policy: agents.ShellPolicy{Approval: agents.ApproveNever}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a.Runner
}

// again is a fixture for a second run on the same server, board and queue.
func (f *batchFixture) again(t *testing.T) *batchFixture {
	t.Helper()
	return newBatchFixtureOn(t, f.backend, f.srv, f.store, f.queue)
}

func (f *batchFixture) options(board string) Options {
	return Options{Runner: f.runner, Board: board, Events: f.rec}
}

// run runs the plan on the fixture's backend: in this process, or through
// a River coordinator whose jobs the fixture's worker runs.
func (f *batchFixture) run(ctx context.Context, t *testing.T, p *Plan, opts Options) (*Report, error) {
	t.Helper()
	if f.backend == backendInProcess {
		return Run(ctx, p, opts)
	}
	return f.queue.run(ctx, t, p, opts)
}

// notes reads every note of board in full.
func (f *batchFixture) notes(t *testing.T, board string) []*blackboard.Note {
	t.Helper()
	res, err := f.store.ListNotes(board, blackboard.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Skipped > 0 {
		t.Errorf("%d unreadable notes on board %s", res.Skipped, board)
	}
	var out []*blackboard.Note
	for _, m := range res.Notes {
		n, err := f.store.ReadNote(board, m.Ref)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	return out
}

func loadPlan(t testing.TB, path string) *Plan {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := ParsePlan(data, path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func parsePlan(t testing.TB, src string) *Plan {
	t.Helper()
	p, err := ParsePlan([]byte(src), "plan.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func byID(r *Report) map[string]DelegationReport {
	m := map[string]DelegationReport{}
	for _, d := range r.Delegations {
		m[d.ID] = d
	}
	return m
}

// builtinCatalog is the catalog of the built-in agents only.
func builtinCatalog(t testing.TB) *agents.Catalog {
	t.Helper()
	c := agents.LoadCatalog(agents.Sources{Workspace: t.TempDir()}, nil)
	return c
}
