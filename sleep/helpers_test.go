package sleep

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/internal/statedb"
	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/llm/llmtest"
	"github.com/yagent/yagent/memory"
)

// fixture is a session with a registry of many tools, a curator talking to
// the scripted server, and a clock the test moves.
type fixture struct {
	t      *testing.T
	srv    *llmtest.Server
	db     *statedb.DB
	ms     *memory.Store
	st     *Store
	cur    *Curator
	reg    *agents.Registry
	chatID string
	now    time.Time
}

func testSleepConfig() config.ChatSleep {
	return config.ChatSleep{Enabled: true, Interval: config.Duration(24 * time.Hour), MinGap: config.Duration(20 * time.Hour),
		RetryAfter: config.Duration(time.Hour), MaxParallel: 2, SkipKinds: []string{"subagent", "cron"},
		Tools: config.SleepToolsStep{BudgetPercent: 1, MinTurns: 5, ThinTurns: 8, Windows: []int{1, 7, 30}, MaxHidePerNight: 8,
			Core: []string{"read_file", "tool_find", "tool_load"}}}
}

// newFixture registers read_file plus n tools with sizeable schemas, and
// extra named tools (case markers).
func newFixture(t *testing.T, kind string, n int, extra ...string) *fixture {
	t.Helper()
	home := t.TempDir()
	db, err := statedb.Open(t.Context(), filepath.Join(home, "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	f := &fixture{t: t, db: db, now: time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)}
	clock := func() time.Time { return f.now }
	ms := memory.NewStore(db, home)
	ms.Now = clock
	s, err := ms.Create(t.Context(), memory.CreateOptions{Kind: kind, Cwd: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	f.chatID = s.ID()
	f.ms = ms
	f.st = &Store{DB: db, Now: clock}
	f.reg = agents.NewRegistry()
	mk := func(name string) *agents.Tool {
		schema := fmt.Sprintf(`{"type":"object","properties":{"arg":{"type":"string","description":%q}}}`, strings.Repeat("a long description of an argument ", 12))
		tool, err := agents.NewDynamicTool(agents.Tool{Name: name, Family: "mcp_x", Description: "Does " + name + " things for the session. Many words here.", Schema: []byte(schema)},
			func(context.Context, *agents.Call) (agents.Result, error) { return agents.Result{Content: name}, nil })
		if err != nil {
			t.Fatal(err)
		}
		return tool
	}
	f.reg.MustAdd(mk("read_file"))
	for i := range n {
		f.reg.MustAdd(mk(fmt.Sprintf("tool_%02d", i)))
	}
	for _, e := range extra {
		f.reg.MustAdd(mk(e))
	}
	f.reg.MustAdd(FindTool(func(context.Context) []*agents.Tool { return nil }))
	f.reg.MustAdd(LoadTool(func(context.Context) []*agents.Tool { return nil }, func(context.Context) *agents.Loaded { return &agents.Loaded{} }, nil))
	f.srv = llmtest.NewTestServer(t, filepath.Join("..", "testdata", "scenarios", "sleep-plans.yaml"))
	// A minute of silence: a loaded machine must not fail a curation the
	// scripted model answers at once (tests that want a stuck call use
	// patientClient and their own deadlines).
	client, err := llm.NewOpenAI(llm.EndpointConfig{BaseURL: f.srv.URL(), Model: "m", Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	f.cur = &Curator{Store: f.st, Config: testSleepConfig(), Registry: f.reg,
		Client: func(string) (llm.Client, string, error) { return client, "m", nil }}
	return f
}

// turns records n turns spread over the last days, calling the given tools
// in every turn.
func (f *fixture) turns(n, days int, tools ...string) {
	f.t.Helper()
	start := f.now
	for i := range n {
		f.now = start.Add(-time.Duration(days*24) * time.Hour).Add(time.Duration(i) * time.Duration(days*24) * time.Hour / time.Duration(max(n, 1)))
		calls := map[string]int{}
		for _, t := range tools {
			calls[t] = 1
		}
		turnNo := i + 1 + f.countTurns()
		if err := f.st.RecordTurn(f.t.Context(), f.chatID, TurnRecord{Turn: turnNo, Messages: 4, Calls: calls}); err != nil {
			f.t.Fatal(err)
		}
	}
	f.now = start
	if err := f.st.SaveEnv(f.t.Context(), f.chatID, Env{Gates: GateMaster, Window: 20000}); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) countTurns() int {
	var n int
	f.db.QueryRow(`SELECT COUNT(*) FROM turn_stats WHERE chat_id = ?`, f.chatID).Scan(&n)
	return n
}

// setDue sets the session's due time.
func (f *fixture) setDue(at time.Time) {
	f.t.Helper()
	if _, err := f.db.Exec(`UPDATE chats SET next_sleep_at = ? WHERE id = ?`, at.UnixMilli(), f.chatID); err != nil {
		f.t.Fatal(err)
	}
}

// due reads the session's due time.
func (f *fixture) due() time.Time {
	f.t.Helper()
	d, err := f.cur.Due(f.t.Context(), f.chatID)
	if err != nil || d == nil {
		f.t.Fatalf("due = %v, %v", d, err)
	}
	return *d
}

func (f *fixture) profile() Profile {
	f.t.Helper()
	p, err := f.st.Profile(f.t.Context(), f.chatID)
	if err != nil {
		f.t.Fatal(err)
	}
	return p
}

func (f *fixture) run(o Options) Run {
	f.t.Helper()
	o.Manual = true
	r, err := f.cur.Run(f.t.Context(), f.chatID, o)
	if err != nil {
		f.t.Fatal(err)
	}
	return r
}

// another creates a second session of the same kind in the fixture's
// database, records n turns over days for it (calling tools) and returns
// its id.
func (f *fixture) another(n, days int, tools ...string) string {
	f.t.Helper()
	s, err := f.ms.Create(f.t.Context(), memory.CreateOptions{Kind: memory.KindInteractive, Cwd: "/w"})
	if err != nil {
		f.t.Fatal(err)
	}
	s.Close()
	main := f.chatID
	defer func() { f.chatID = main }()
	f.chatID = s.ID()
	f.turns(n, days, tools...)
	return s.ID()
}

// setDueOf sets a session's due time.
func (f *fixture) setDueOf(id string, at time.Time) {
	f.t.Helper()
	if _, err := f.db.Exec(`UPDATE chats SET next_sleep_at = ? WHERE id = ?`, at.UnixMilli(), id); err != nil {
		f.t.Fatal(err)
	}
}

// patientClient makes the curator's model calls wait as long as the model
// does (the fixture's client gives up after a minute of silence).
func (f *fixture) patientClient() {
	f.t.Helper()
	client, err := llm.NewOpenAI(llm.EndpointConfig{BaseURL: f.srv.URL(), Model: "m", Timeout: time.Hour})
	if err != nil {
		f.t.Fatal(err)
	}
	f.cur.Client = func(string) (llm.Client, string, error) { return client, "m", nil }
}

// requestsFor counts the model calls answered by step id so far (arrived,
// answered or not).
func (f *fixture) requestsFor(step string) int {
	n := 0
	for _, r := range f.srv.Requests() {
		if r.StepID == step {
			n++
		}
	}
	return n
}

// within fails the test unless cond holds within d, polling.
func within(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(d); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("not within %v: %s", d, what)
		}
	}
}
