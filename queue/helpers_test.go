package queue

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/internal/pgtest"
	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/llm/llmtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Run(m)) }

// env is a queue database with a board, a scripted model and runners over
// them: the coordinator's (its board) and a worker's.
type env struct {
	dsn    string
	q      *Queue
	srv    *llmtest.Server
	store  *blackboard.Store
	runner *agents.SubRunner
	events *agents.Recorder // the coordinators'
	// workerEvents are the workers' notices.
	workerEvents *agents.Recorder
}

func newEnv(t *testing.T, scenario string, opts Options) *env {
	t.Helper()
	sc, err := llmtest.Parse([]byte(scenario), "scenario")
	if err != nil {
		t.Fatal(err)
	}
	return newEnvWith(t, sc, opts)
}

// newEnvWith is newEnv of a parsed scenario.
func newEnvWith(t *testing.T, sc *llmtest.Scenario, opts Options) *env {
	t.Helper()
	srv, err := llmtest.Start(sc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	e := &env{dsn: pgtest.New(t), srv: srv, store: blackboard.Open(filepath.Join(t.TempDir(), "notes")), events: &agents.Recorder{}, workerEvents: &agents.Recorder{}}
	opts.DSN = e.dsn
	if opts.RescueAfter == 0 {
		opts.RescueAfter = time.Hour
	}
	if opts.MaxAttempts == 0 {
		opts.MaxAttempts = 2
	}
	opts.PollInterval = 20 * time.Millisecond
	if e.q, err = Open(t.Context(), opts); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.q.Close)
	client, err := llm.NewOpenAI(llm.EndpointConfig{BaseURL: srv.URL(), Model: "scripted", MaxRetries: 0, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	e.runner = newRunner(t, e.store, func(string) (llm.Client, string, error) { return client, "scripted", nil })
	return e
}

// newRunner is a sub-agent runner with the workspace tools over a temp
// workspace.
func newRunner(t *testing.T, store *blackboard.Store, client agents.ClientFunc) *agents.SubRunner {
	t.Helper()
	ws, err := agents.OpenWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	reg := agents.NewRegistry()
	for _, tool := range agents.FSTools(ws, agents.ShellPolicy{}) {
		reg.MustAdd(tool)
	}
	cat := agents.LoadCatalog(agents.Sources{Workspace: ws.Dir()}, func(name string) bool { _, ok := reg.Get(name); return ok })
	return &agents.SubRunner{Client: client, Registry: reg, Catalog: cat, Board: store, Workspace: ws, MaxSteps: 5, TailRole: llm.RoleUser}
}

// serve runs a worker over runner until the test ends (or stop is called).
func (e *env) serve(t *testing.T, runner *agents.SubRunner, name string) (stop func()) {
	t.Helper()
	return e.serveWith(t, WorkerOptions{Runner: runner, Name: name})
}

// serveWith runs a worker with opts (Concurrency 4 and the env's events
// unless set) until the test ends (or stop is called).
func (e *env) serveWith(t *testing.T, opts WorkerOptions) (stop func()) {
	t.Helper()
	if opts.Concurrency == 0 {
		opts.Concurrency = 4
	}
	if opts.Events == nil {
		opts.Events = e.workerEvents
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := e.q.Serve(ctx, opts); err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("worker %s: %v", opts.Name, err)
			if errors.Is(err, context.DeadlineExceeded) {
				// What the stop still waits for: every goroutine's stack.
				buf := make([]byte, 4<<20)
				t.Logf("goroutines when worker %s could not stop:\n%s", opts.Name, buf[:runtime.Stack(buf, true)])
			}
		}
	}()
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); wg.Wait() }) }
	t.Cleanup(stop)
	return stop
}

func (e *env) coordinate(t *testing.T, resume bool) *Coordinator {
	t.Helper()
	c, err := e.q.Coordinate(t.Context(), CoordinatorOptions{Runner: e.runner, Board: "b", Plan: "plan.yaml", Digest: "d1", Resume: resume, Events: e.events})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(false) })
	return c
}

// runFirst runs item 0 through a coordinator of its own, which it closes
// (the run finished), and returns its result.
func (e *env) runFirst(t *testing.T) agents.DelegationResult {
	t.Helper()
	c := e.coordinate(t, false)
	defer c.Close(true)
	res, err := c.Run(t.Context(), item(0))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func item(i int) agents.Delegation {
	id := "item-" + string(rune('0'+i/100)) + string(rune('0'+i/10%10)) + string(rune('0'+i%10))
	return agents.Delegation{CallID: id, Agent: "worker", Task: id + ": hand it over.", BoardID: "b", Depth: 1, Key: "batch:" + id}
}

// notesByID reads board b: delegation id → its notes.
func (e *env) notesByID(t *testing.T) map[string][]*blackboard.Note {
	t.Helper()
	list, err := e.store.ListNotes("b", blackboard.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]*blackboard.Note{}
	for _, m := range list.Notes {
		n, err := e.store.ReadNote("b", m.Ref)
		if err != nil {
			t.Fatal(err)
		}
		id := n.Handoff.Key
		if k, ok := cutKey(id); ok {
			id = k
		}
		out[id] = append(out[id], n)
	}
	return out
}

func cutKey(key string) (string, bool) {
	for i := len(key) - 1; i >= 0; i-- {
		if key[i] == '@' {
			return key[len("batch:"):i], len(key) > len("batch:")
		}
	}
	return "", false
}

// jobs counts the queue's jobs by state.
func (e *env) jobs(t *testing.T) map[string]int {
	t.Helper()
	rows, err := e.q.pool.Query(t.Context(), `SELECT state::text, count(*) FROM river_job GROUP BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var s string
		var n int
		if err := rows.Scan(&s, &n); err != nil {
			t.Fatal(err)
		}
		out[s] = n
	}
	return out
}

// notices are the texts of rec's notices.
func notices(rec *agents.Recorder) []string {
	var out []string
	for _, ev := range rec.Events() {
		if ev.Type == agents.EventNotice {
			out = append(out, ev.Text)
		}
	}
	return out
}

// notesByIDIfAny is notesByID of a board that may not exist.
func (e *env) notesByIDIfAny(t *testing.T) map[string][]*blackboard.Note {
	t.Helper()
	if !e.store.BoardExists("b") {
		return nil
	}
	return e.notesByID(t)
}
