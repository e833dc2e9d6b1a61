package director

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/app"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/llm/llmtest"
	"github.com/yagent/yagent/memory"
	"github.com/yagent/yagent/sleep"
)

// TestCurationAtTheDirector drives a session with 120 extra tools through
// a sleep: the tool list changes only at the turn after the run; hidden
// tools are named in the catalogue and come back with tool_load from the
// next step (counted); gated tools never appear in the catalogue. It logs
// the request sizes before and after (the benchmark figure of the issue).
func TestCurationAtTheDirector(t *testing.T) {
	extra := extraTools(t, 120)
	f := newFixture(t, "curation-director", func(c *config.Config) {
		c.ChatSleep.Tools.MinTurns = 3
		c.ChatSleep.Tools.ThinTurns = 3
		c.ChatSleep.Tools.MaxHidePerNight = 500
	}, extra...)
	for i := range 4 {
		if _, err := f.d.Turn(t.Context(), fmt.Sprintf("plain turn %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	run, err := f.d.cur.curator.Run(t.Context(), f.sess.ID(), sleep.Options{Manual: true})
	if err != nil || run.Status != "ok" || len(run.Removed) < 100 {
		t.Fatalf("sleep = %+v, %v", run, err)
	}
	if _, err := f.d.Turn(t.Context(), "plain turn after the sleep"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.d.Turn(t.Context(), "load please"); err != nil {
		t.Fatal(err)
	}
	f.srv.AssertDone(t)
	var turns [][]string
	var sizes []int
	var loadTurn []string
	for _, r := range f.srv.Requests() {
		if r.Agent != "director" {
			continue
		}
		last := r.Messages[len(r.Messages)-1].Content
		if r.StepID == "plain" || r.StepID == "load" {
			turns = append(turns, r.Tools)
			sizes = append(sizes, len(r.Body))
		}
		if r.StepID == "use" {
			loadTurn = r.Tools
		}
		_ = last
	}
	changes := 0
	for i := 1; i < len(turns); i++ {
		if !slices.Equal(turns[i], turns[i-1]) {
			changes++
			if i != 4 {
				t.Errorf("the tool list changed at turn %d; only the turn after the sleep (4) may change it", i)
			}
		}
	}
	if changes != 1 {
		t.Errorf("the tool list changed %d times; want once", changes)
	}
	t.Logf("request bytes per turn with 120 extra tools: before the sleep %d, after %d (%.0f%% smaller); %d tools → %d",
		sizes[3], sizes[4], 100*(1-float64(sizes[4])/float64(sizes[3])), len(turns[3]), len(turns[4]))
	if sizes[4] >= sizes[3]/2 {
		t.Errorf("curation did not shrink the request enough: %d → %d bytes", sizes[3], sizes[4])
	}
	after := turns[4]
	if slices.Contains(after, "extra_050") || !slices.Contains(after, "tool_load") || !slices.Contains(after, "extra_003") {
		t.Errorf("tools after the sleep = %v", after)
	}
	if !slices.Contains(loadTurn, "extra_050") {
		t.Errorf("the step after tool_load does not declare extra_050: %v", loadTurn)
	}
	// The catalogue names hidden tools and never a gated one.
	var system string
	for _, r := range f.srv.Requests() {
		if r.StepID == "load" {
			system = r.Messages[0].Content
		}
	}
	i := strings.Index(system, "[hidden tools]")
	if i < 0 {
		t.Fatal("no catalogue in the system prompt")
	}
	catalogue := system[i:]
	if !strings.Contains(catalogue, "- extra_050: Tool extra_050") || strings.Contains(catalogue, "chat_note_read") {
		t.Errorf("catalogue wrong:\n%s", catalogue)
	}
	table, _ := f.d.cur.store.Stats(t.Context(), f.sess.ID(), []string{"extra_050"}, []int{30}, 1, run.Finished)
	if table.Tools[0].Loads != 1 {
		t.Errorf("loads of extra_050 = %d; want 1", table.Tools[0].Loads)
	}
}

// extraTools returns n tools of a remote service with sizeable schemas:
// enough of them no longer fit chat_sleep.tools.budget_percent.
func extraTools(t *testing.T, n int) []*agents.Tool {
	t.Helper()
	var extra []*agents.Tool
	for i := range n {
		name := fmt.Sprintf("extra_%03d", i)
		tool, err := agents.NewDynamicTool(agents.Tool{Name: name, Family: "mcp_big", Description: "Tool " + name + ": does one specific thing with the remote service, with options.",
			Schema: []byte(`{"type":"object","properties":{"query":{"type":"string","description":"What to look for in the remote service."},"limit":{"type":"integer"}}}`)},
			func(context.Context, *agents.Call) (agents.Result, error) {
				return agents.Result{Content: name + " ran"}, nil
			})
		if err != nil {
			t.Fatal(err)
		}
		extra = append(extra, tool)
	}
	return extra
}

// curationFixture is a director over scenario with 120 extra tools, curation
// thresholds a few turns can meet, and a clock the test moves (the session
// store's, which the schedule reads).
type curationFixture struct {
	*fixture
	home  string
	mu    sync.Mutex
	clock time.Time
}

func newCurationFixture(t *testing.T, scenario string, e testEnv) *curationFixture {
	t.Helper()
	srv := llmtest.NewTestServer(t, filepath.Join("..", "testdata", "scenarios", scenario+".yaml"))
	home := t.TempDir()
	store := blackboard.Open(filepath.Join(home, "notes"))
	f := &curationFixture{fixture: &fixture{srv: srv, store: store, board: "sess-1", rec: &agents.Recorder{}}, home: home,
		clock: time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)}
	tweak := e.tweak
	e.srv, e.home, e.store, e.id, e.kind, e.events, e.extra = srv, home, store, "sess-1", memory.KindRun, f.rec, extraTools(t, 120)
	e.tweak = func(c *config.Config) {
		c.ChatSleep.Tools.MinTurns, c.ChatSleep.Tools.ThinTurns, c.ChatSleep.Tools.MaxHidePerNight = 3, 3, 500
		if tweak != nil {
			tweak(c)
		}
	}
	f.d, f.sessions, f.sess = testDirector(t, e)
	f.sessions.Now = f.now
	return f
}

func (f *curationFixture) now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.clock
}

func (f *curationFixture) advance(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.clock = f.clock.Add(d)
}

// settled waits until the scheduler reported back the nudge in flight,
// and returns the director's in-memory due time.
func (f *curationFixture) settled(t *testing.T) *time.Time {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		f.d.cur.mu.Lock()
		pending, due := f.d.cur.pending, f.d.cur.due
		f.d.cur.mu.Unlock()
		if !pending {
			return due
		}
	}
	t.Fatal("the scheduler never reported the nudge back")
	return nil
}

func (f *curationFixture) pending() bool {
	f.d.cur.mu.Lock()
	defer f.d.cur.mu.Unlock()
	return f.d.cur.pending
}

// dbDue reads chats.next_sleep_at.
func (f *curationFixture) dbDue(t *testing.T) time.Time {
	t.Helper()
	due, err := f.d.Curator().Due(t.Context(), f.sess.ID())
	if err != nil || due == nil {
		t.Fatalf("next_sleep_at = %v, %v", due, err)
	}
	return *due
}

func (f *curationFixture) curationCalls() int {
	n := 0
	for _, r := range f.srv.Requests() {
		if r.StepID == "sleep" {
			n++
		}
	}
	return n
}

// TestSessionCuratedWhenItBecomesDue: a long chat keeps its due time in
// memory, current after every nudge the scheduler serves, and checks it
// after every turn (as `yagent chat` does) — so a session that becomes due
// while it is open is curated between turns, and the next turn has the
// curated list. Before the due time no check nudges and no model is asked.
func TestSessionCuratedWhenItBecomesDue(t *testing.T) {
	f := newCurationFixture(t, "curation-schedule", testEnv{})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	f.d.Start(ctx)
	start := f.now()
	// The first message of a never-scheduled session only sets its due time.
	if _, err := f.d.Turn(ctx, "plain turn 1"); err != nil {
		t.Fatal(err)
	}
	due := f.settled(t)
	if due == nil || !due.Equal(start.Add(24*time.Hour)) {
		t.Fatalf("in-memory due after the first turn = %v; want %v", due, start.Add(24*time.Hour))
	}
	for i := 2; i <= 4; i++ {
		f.advance(5 * time.Hour)
		if _, err := f.d.Turn(ctx, fmt.Sprintf("plain turn %d", i)); err != nil {
			t.Fatal(err)
		}
		f.d.CheckSleep()
		if f.pending() {
			t.Fatalf("turn %d nudged before the due time", i)
		}
	}
	// Still open, the session becomes due; the check after the turn
	// curates it between turns.
	f.advance(10 * time.Hour) // 25 h after the start
	f.d.CheckSleep()
	if !f.pending() {
		t.Fatal("the check after a turn past the due time did not nudge")
	}
	next := f.settled(t)
	runs, err := f.d.SleepStore().Runs(t.Context(), f.sess.ID(), 10)
	if err != nil || len(runs) != 1 || runs[0].Status != "ok" || len(runs[0].Removed) < 100 {
		t.Fatalf("journal = %+v, %v; want one curation", runs, err)
	}
	if want := f.now().Add(24 * time.Hour); next == nil || !next.Equal(want) {
		t.Errorf("in-memory due after the curation = %v; want %v (an interval later)", next, want)
	}
	if _, err := f.d.Turn(ctx, "plain turn after the sleep"); err != nil {
		t.Fatal(err)
	}
	reqs := f.srv.Requests()
	last := reqs[len(reqs)-1]
	if f.curationCalls() != 1 || slices.Contains(last.Tools, "extra_050") || !slices.Contains(last.Tools, "tool_load") {
		t.Errorf("%d curation calls; the turn after the sleep declares %d tools (%v); want the curated list", f.curationCalls(), len(last.Tools), last.Tools)
	}
}

// TestCurationCutShortAtCloseRetries: a one-shot run whose session is due
// nudges the sleep at its first message; the turn ends first and closing
// the session cancels the sleep mid-call. The session is due again
// retry_after (1 h) after the capture, not a whole interval later.
func TestCurationCutShortAtCloseRetries(t *testing.T) {
	f := newCurationFixture(t, "curation-cut-short", testEnv{})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	f.d.Start(ctx)
	for i := 1; i <= 3; i++ {
		if _, err := f.d.Turn(ctx, fmt.Sprintf("plain turn %d", i)); err != nil {
			t.Fatal(err)
		}
		f.settled(t)
	}
	f.advance(25 * time.Hour)
	captured := f.now()
	if _, err := f.d.Turn(ctx, "the due turn"); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); f.curationCalls() == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the due turn did not start a curation")
		}
	}
	if err := f.d.Close(); err != nil { // the end of `yagent run`
		t.Fatal(err)
	}
	if due := f.dbDue(t); !due.Equal(captured.Add(time.Hour)) {
		t.Errorf("due after the cut-short sleep = %v; want retry_after (1h) after the capture, %v", due, captured.Add(time.Hour))
	}
	runs, _ := f.d.SleepStore().Runs(t.Context(), f.sess.ID(), 10)
	if len(runs) != 1 || runs[0].Status != "cancelled" {
		t.Errorf("journal = %+v; want one cancelled run", runs)
	}
}

// TestSnapshotRecordsSessionModel: the environment snapshot stores the
// session's own model (--model big) and its window, and a curation run
// later by another process without --model (yagent sleep) asks that
// model, not the default.
func TestSnapshotRecordsSessionModel(t *testing.T) {
	big := func(c *config.Config) {
		m := c.Models["default"]
		m.ContextWindow = 64000
		c.Models["big"] = m
	}
	var mu sync.Mutex
	var asked []string
	var client llm.Client
	f := newCurationFixture(t, "curation-schedule", testEnv{tweak: big, model: "big", client: func(name string) (llm.Client, string, error) {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, name)
		return client, "scripted", nil
	}})
	var err error
	if client, err = llm.NewOpenAI(llm.EndpointConfig{BaseURL: f.srv.URL(), Model: "scripted", MaxRetries: 0, Timeout: 30 * time.Second}); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, err := f.d.Turn(t.Context(), fmt.Sprintf("plain turn %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	env, ok, err := f.d.SleepStore().LoadEnv(t.Context(), f.sess.ID())
	if err != nil || !ok || env.Model != "big" || env.Window != 64000 {
		t.Fatalf("snapshot = %+v, %v, %v; want model big, window 64000", env, ok, err)
	}
	// Another process opens the session without --model and curates it.
	f.d.Close()
	f.sess.Close()
	sess, err := f.sessions.Resume(t.Context(), f.sess.ID())
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	a := newApp(t, app.Options{Config: f.d.app.Config, Client: f.d.app.Client, Workspace: "..", Board: f.store,
		Tools: extraTools(t, 120), Policy: agents.ShellPolicy{Approval: agents.ApproveNever}})
	d, err := New(a, Options{BoardID: "sess-1", Session: sess})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	mu.Lock()
	asked = nil
	mu.Unlock()
	run, err := d.Curator().Run(t.Context(), sess.ID(), sleep.Options{Manual: true})
	if err != nil || run.Status != "ok" {
		t.Fatalf("curation = %+v, %v", run, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(asked, []string{"big"}) {
		t.Errorf("the curation asked for models %q; want the session's, big", asked)
	}
}

// TestToolsProfileCountsMatchRequest: right after a run, `yagent tools
// profile` counts what the session's request declared — uncurated,
// curated and under --toolset — not counting tool_find and tool_load.
func TestToolsProfileCountsMatchRequest(t *testing.T) {
	declared := func(f *curationFixture) int {
		reqs := f.srv.Requests()
		tools := reqs[len(reqs)-1].Tools
		return len(slices.DeleteFunc(slices.Clone(tools), func(n string) bool { return slices.Contains(sleep.Always, n) }))
	}
	check := func(t *testing.T, f *curationFixture, what string, wantReachable int) {
		t.Helper()
		v, err := f.d.Curator().Overview(t.Context(), f.sess.ID())
		if err != nil || v.InContext == nil || v.Reachable == nil {
			t.Fatalf("%s: overview = %+v, %v", what, v, err)
		}
		if *v.InContext != declared(f) || *v.Reachable != wantReachable {
			t.Errorf("%s: in_context %d, reachable %d; the request declared %d of %d", what, *v.InContext, *v.Reachable, declared(f), wantReachable)
		}
	}
	f := newCurationFixture(t, "curation-schedule", testEnv{})
	for i := range 3 {
		if _, err := f.d.Turn(t.Context(), fmt.Sprintf("plain turn %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	all := declared(f)
	check(t, f, "uncurated", all)
	if run, err := f.d.Curator().Run(t.Context(), f.sess.ID(), sleep.Options{Manual: true}); err != nil || run.Status != "ok" {
		t.Fatalf("curation = %+v, %v", run, err)
	}
	// Right after the sleep, before any turn, the session still reaches
	// every tool (its MasterOnly ones too).
	if v, err := f.d.Curator().Overview(t.Context(), f.sess.ID()); err != nil || *v.Reachable != all {
		t.Errorf("reachable right after the sleep = %d, %v; want %d", *v.Reachable, err, all)
	}
	if _, err := f.d.Turn(t.Context(), "plain turn after the sleep"); err != nil {
		t.Fatal(err)
	}
	check(t, f, "curated", all)
	if declared(f) >= all {
		t.Fatalf("the curated request declares %d tools of %d", declared(f), all)
	}

	g := newCurationFixture(t, "curation-schedule", testEnv{toolset: "few", tweak: func(c *config.Config) {
		c.Toolsets = map[string][]string{"few": {"read_file", "grep", "extra_0*"}}
	}})
	if _, err := g.d.Turn(t.Context(), "plain turn"); err != nil {
		t.Fatal(err)
	}
	check(t, g, "--toolset few", 102)
}

// TestNoCurationUnderToolset: with --toolset the toolset is the view —
// a curated profile hides nothing from it (no catalogue, no tool_find or
// tool_load), and the session's sleep is skipped without a model call.
func TestNoCurationUnderToolset(t *testing.T) {
	f := newCurationFixture(t, "curation-schedule", testEnv{toolset: "few", tweak: func(c *config.Config) {
		c.Toolsets = map[string][]string{"few": {"read_file", "grep", "extra_00*"}}
	}})
	if err := f.d.SleepStore().SaveProfile(t.Context(), f.sess.ID(), sleep.Profile{Visible: []string{"read_file"}, Curated: true}); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, err := f.d.Turn(t.Context(), fmt.Sprintf("plain turn %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	reqs := f.srv.Requests()
	last := reqs[len(reqs)-1]
	want := []string{"extra_000", "extra_001", "extra_002", "extra_003", "extra_004", "extra_005", "extra_006", "extra_007", "extra_008", "extra_009", "grep", "read_file"}
	if !slices.Equal(last.Tools, want) || strings.Contains(last.Messages[0].Content, "[hidden tools]") {
		t.Errorf("request under --toolset declares %v; want the whole toolset %v and no catalogue", last.Tools, want)
	}
	run, err := f.d.Curator().Run(t.Context(), f.sess.ID(), sleep.Options{Manual: true})
	if err != nil || run.Status != "skipped" || !strings.Contains(run.Reason, "explicit toolset") || f.curationCalls() != 0 {
		t.Errorf("a sleep under --toolset = %+v, %v (%d curation calls); want skipped", run, err, f.curationCalls())
	}
}

// TestSnapshotOnlyWhenChanged: the environment snapshot is written after
// a turn only when access, gates or model changed — turns in the same
// environment leave it (and its time) alone — and the gates accumulate
// over the cycle: a turn in index mode adds its bit, the inline turns
// after it keep it; a curation starts the cycle afresh.
func TestSnapshotOnlyWhenChanged(t *testing.T) {
	f := newCurationFixture(t, "curation-schedule", testEnv{tweak: func(c *config.Config) {
		c.Notes.IndexEnterNotes, c.Notes.IndexLeaveNotes = 2, 1
	}})
	snapshot := func() (sleep.Env, time.Time) {
		t.Helper()
		env, ok, err := f.d.SleepStore().LoadEnv(t.Context(), f.sess.ID())
		var updated int64
		if err == nil {
			err = f.sessions.DB.QueryRowContext(t.Context(), `SELECT updated FROM chat_turn_env WHERE chat_id = ?`, f.sess.ID()).Scan(&updated)
		}
		if err != nil || !ok {
			t.Fatalf("snapshot: %v, %v", ok, err)
		}
		return env, time.UnixMilli(updated).UTC()
	}
	turn := func(what string) {
		t.Helper()
		f.advance(time.Hour)
		if _, err := f.d.Turn(t.Context(), what); err != nil {
			t.Fatal(err)
		}
	}
	turn("plain turn 1")
	first := f.now()
	for i := 2; i <= 3; i++ {
		turn(fmt.Sprintf("plain turn %d", i))
		if env, at := snapshot(); !at.Equal(first) || env.Gates != sleep.GateMaster {
			t.Fatalf("after turn %d in the same environment: gates %b written at %v; want master, written once at %v", i, env.Gates, at, first)
		}
	}
	book := f.d.Notebook()
	for _, n := range []string{"a", "b", "c"} {
		if _, err := book.Save(t.Context(), n, "a note", "short"); err != nil {
			t.Fatal(err)
		}
	}
	turn("plain turn in index mode")
	indexed := f.now()
	if env, at := snapshot(); env.Gates != sleep.GateMaster|sleep.GateNotesIndexed || !at.Equal(indexed) {
		t.Fatalf("after a turn in index mode: gates %b at %v; want master|indexed written at %v", env.Gates, at, indexed)
	}
	for _, n := range []string{"a", "b", "c"} {
		if _, err := book.Delete(t.Context(), n); err != nil {
			t.Fatal(err)
		}
	}
	turn("plain turn inline again")
	turn("plain turn inline, once more")
	if env, at := snapshot(); env.Gates != sleep.GateMaster|sleep.GateNotesIndexed || !at.Equal(indexed) {
		t.Errorf("after inline turns: gates %b at %v; want the cycle's master|indexed kept, unwritten since %v", env.Gates, at, indexed)
	}
	if run, err := f.d.Curator().Run(t.Context(), f.sess.ID(), sleep.Options{Manual: true}); err != nil || run.Status != "ok" {
		t.Fatalf("curation = %+v, %v", run, err)
	}
	turn("plain turn after the curation")
	if env, _ := snapshot(); env.Gates != sleep.GateMaster {
		t.Errorf("after the curation and an inline turn: gates %b; want the master bit alone (a new cycle)", env.Gates)
	}
}

// TestCurationNeverStallsTurns: a due session's curation whose model call
// never answers runs in the background: the turn that nudged it and the
// turns after it take no longer than turns without it, the due check
// after each turn does not wait, and the sleep is not nudged again while
// it runs; closing the session cuts it short.
func TestCurationNeverStallsTurns(t *testing.T) {
	var client llm.Client
	f := newCurationFixture(t, "curation-stuck", testEnv{client: func(string) (llm.Client, string, error) { return client, "scripted", nil }})
	var err error
	if client, err = llm.NewOpenAI(llm.EndpointConfig{BaseURL: f.srv.URL(), Model: "scripted", Timeout: time.Hour}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	f.d.Start(ctx)
	for i := 1; i <= 3; i++ {
		if _, err := f.d.Turn(ctx, fmt.Sprintf("plain turn %d", i)); err != nil {
			t.Fatal(err)
		}
		f.settled(t)
	}
	f.advance(25 * time.Hour)
	start := time.Now()
	done := make(chan error, 1)
	go func() {
		for i := 4; i <= 8; i++ {
			if _, err := f.d.Turn(ctx, fmt.Sprintf("plain turn %d", i)); err != nil {
				done <- err
				return
			}
			f.d.CheckSleep() // as yagent chat does after every turn
		}
		done <- nil
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("five turns beside a stuck curation did not end within 30 s: the turns wait for it (%d curation calls)", f.curationCalls())
	}
	if took := time.Since(start); took > 15*time.Second {
		t.Errorf("five turns beside a stuck curation took %v", took)
	}
	for deadline := time.Now().Add(20 * time.Second); f.curationCalls() == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the due turn did not start a curation")
		}
	}
	if n := f.curationCalls(); n != 1 || !f.pending() {
		t.Errorf("%d curation calls, pending %v; want the one stuck sleep, not nudged again", n, f.pending())
	}
	if err := f.d.Close(); err != nil {
		t.Fatal(err)
	}
	runs, _ := f.d.SleepStore().Runs(t.Context(), f.sess.ID(), 10)
	if len(runs) != 1 || runs[0].Status != "cancelled" {
		t.Errorf("journal = %+v; want the stuck sleep cancelled at close", runs)
	}
}
