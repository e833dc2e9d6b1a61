package director

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/yagent/yagent/app"

	"github.com/google/go-cmp/cmp"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/internal/statedb"
	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/llm/llmtest"
	"github.com/yagent/yagent/memory"
)

// windowWorkspace is a workspace with big.txt (about 3 KB) and a reader
// sub-agent allowed 50 steps.
func windowWorkspace(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	var b strings.Builder
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&b, "parser %02d: reads one kind of input and returns its tree, or an error\n", i)
	}
	if err := os.WriteFile(filepath.Join(dir, "big.txt"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	agentsDir := filepath.Join(dir, ".yagent", "agents")
	if err := os.MkdirAll(agentsDir, 0o755); err != nil {
		t.Fatal(err)
	}
	reader := "---\nname: reader\ndescription: Reads files.\ntools: [read_file]\nmax_steps: 50\n---\nYou read files and report what they say.\n"
	if err := os.WriteFile(filepath.Join(agentsDir, "reader.md"), []byte(reader), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// smallWindowConfig is an 8 000-token window (compaction at 80 %: 6 400),
// room for long turns, and no stall check (the same read again is the
// point).
func smallWindowConfig(c *config.Config) {
	m := c.Models["default"]
	m.ContextWindow = 8000
	c.Models["default"] = m
	c.Context.CompactBudget = 0.8
	c.Agents.MaxSteps = 100
	c.Agents.SubagentMaxSteps = 50
	c.Agents.StallRepeats = 0
}

func windowFixture(t *testing.T, scenario string, tweak func(*config.Config)) *fixture {
	t.Helper()
	srv := llmtest.NewTestServer(t, filepath.Join("..", "testdata", "scenarios", scenario+".yaml"))
	home := t.TempDir()
	store := blackboard.Open(filepath.Join(home, "notes"))
	f := &fixture{srv: srv, store: store, board: "sess-1", rec: &agents.Recorder{}}
	f.d, f.sessions, f.sess = testDirector(t, testEnv{srv: srv, home: home, store: store, id: "sess-1", kind: memory.KindRun,
		tweak: func(c *config.Config) {
			smallWindowConfig(c)
			if tweak != nil {
				tweak(c)
			}
		}, events: f.rec, workspace: windowWorkspace(t)})
	return f
}

// windowFigures checks that no request went past the window and reports
// the figures of issue 16: the largest request, the summaries and what
// they cost.
func windowFigures(t *testing.T, f *fixture, agent string, spend []memory.SpendRow) (summaries int) {
	t.Helper()
	largest, requests := 0, 0
	for _, r := range f.srv.Requests() {
		if r.StepID == "summary" {
			summaries++
		} else if r.Agent != agent {
			continue
		}
		requests++
		largest = max(largest, r.PromptTokens)
		if r.PromptTokens > 8000 {
			t.Errorf("request #%d (%s) carried %d prompt tokens, over the 8 000-token window", r.N, r.StepID, r.PromptTokens)
		}
	}
	spent := 0
	for _, row := range spend {
		if row.Label == "summary" {
			spent += row.PromptTokens + row.CompletionTokens
		}
	}
	t.Logf("%s: %d requests, largest %d prompt tokens (window 8 000); %d summaries costing %d tokens", agent, requests, largest, summaries, spent)
	return summaries
}

// TestLongTurnNeverExceedsTheWindow: 90 rounds of ~3 KB outputs in one
// director turn under an 8 000-token window finish, no request exceeds the
// window, older rounds are compacted mid-turn (each summary recorded as a
// compaction, every original message kept), the board index and the
// notebook stay in the tail and out of every summary, and a resume
// rebuilds the history the turn ended with.
func TestLongTurnNeverExceedsTheWindow(t *testing.T) {
	f := windowFixture(t, "long-turn-window", nil)
	if _, err := f.store.WriteNote(f.board, blackboard.NewNote{Handoff: blackboard.Handoff{Status: blackboard.StatusOK, Agent: "explorer", Conclusion: "An early finding."}}); err != nil {
		t.Fatal(err)
	}
	out, err := f.d.Turn(t.Context(), "read big.txt again and again until you are told to stop")
	if err != nil {
		t.Fatal(err)
	}
	if out.Final != "read it ninety times" || out.Steps != 91 {
		t.Fatalf("turn ended with %q after %d steps", out.Final, out.Steps)
	}
	f.srv.AssertDone(t)
	spend, _ := f.sessions.Spend(t.Context(), f.sess.ID())
	summaries := windowFigures(t, f, "director", spend)
	if summaries == 0 {
		t.Fatal("no mid-turn compaction happened")
	}
	for _, r := range f.srv.Requests() {
		if r.StepID == "summary" {
			for _, m := range r.Messages {
				if strings.Contains(m.Content, agents.TailHeader) || strings.Contains(m.Content, "An early finding.") {
					t.Errorf("summary request #%d summarises the transient tail", r.N)
				}
			}
			continue
		}
		if tail := r.Messages[len(r.Messages)-1].Content; !strings.HasPrefix(tail, agents.TailHeader) || !strings.Contains(tail, "An early finding.") {
			t.Errorf("request #%d lost the board index from its tail", r.N)
		}
	}
	last := f.srv.Requests()[len(f.srv.Requests())-1]
	if !strings.HasPrefix(last.Messages[1].Content, memory.SummaryHeader) || !strings.Contains(last.Messages[1].Content, memory.TaskHeader+"\nread big.txt again") {
		t.Errorf("the last request does not start with the summary keeping the task:\n%.300s", last.Messages[1].Content)
	}
	if n := strings.Count(noticeText(f.rec), "older messages of this turn into a summary"); n != summaries {
		t.Errorf("%d compaction notices for %d summaries", n, summaries)
	}
	data, _ := os.ReadFile(f.sess.Info().Rollout)
	if n := strings.Count(string(data), `"type":"message"`); n != 1+90*2+1 {
		t.Errorf("rollout holds %d messages; want every one of the 182", n)
	}
	if n := strings.Count(string(data), `"type":"compacted"`); n != summaries {
		t.Errorf("rollout holds %d compactions; want %d", n, summaries)
	}
	live := f.sess.History()
	f.sess.Close()
	resumed, err := f.sessions.Resume(t.Context(), f.sess.ID())
	if err != nil {
		t.Fatal(err)
	}
	defer resumed.Close()
	if diff := cmp.Diff(live, resumed.History()); diff != "" {
		t.Errorf("resume rebuilds another history (-live +resumed):\n%s", diff)
	}
}

// TestLongSubAgentTurnNeverExceedsTheWindow: a sub-agent's 40 rounds of
// ~3 KB outputs under the same window never exceed it and the delegation
// ends with its note. With the default budget the squeeze alone keeps it
// below the threshold (figures logged); with a sub-agent budget of 0.6 its
// older rounds are compacted in its own session.
func TestLongSubAgentTurnNeverExceedsTheWindow(t *testing.T) {
	for _, budget := range []float64{0.8, 0.6} {
		t.Run(fmt.Sprintf("budget %.1f", budget), func(t *testing.T) {
			f := windowFixture(t, "long-subagent-window", func(c *config.Config) {
				c.Context.CompactBudgetByKind = map[string]float64{memory.KindSubagent: budget}
			})
			out, err := f.d.Turn(t.Context(), "have big.txt read forty times")
			if err != nil {
				t.Fatal(err)
			}
			if out.Final != "The reader read it forty times." {
				t.Fatalf("turn ended with %q", out.Final)
			}
			if budget == 0.8 {
				f.srv.Pending() // the summary step may go unused
			} else {
				f.srv.AssertDone(t)
			}
			subs, err := f.sessions.List(t.Context(), memory.ListOptions{All: true, Kinds: []string{memory.KindSubagent}})
			if err != nil || len(subs) != 1 {
				t.Fatalf("sub-agent sessions = %v, %v", subs, err)
			}
			spend, _ := f.sessions.Spend(t.Context(), subs[0].ID)
			summaries := windowFigures(t, f, "reader", spend)
			data, _ := os.ReadFile(subs[0].Rollout)
			if n := strings.Count(string(data), `"type":"message"`); n != 1+40*2+2 {
				t.Errorf("the sub-agent's rollout holds %d messages; want all 83", n)
			}
			if budget == 0.6 && (summaries == 0 || strings.Count(string(data), `"type":"compacted"`) != summaries) {
				t.Errorf("%d summaries; want the sub-agent's turn compacted, each recorded in its rollout", summaries)
			}
			if notes := f.notes(t); len(notes) != 1 || notes[0].Handoff.Status != blackboard.StatusOK {
				t.Errorf("board = %v; want the reader's ok note", notes)
			}
		})
	}
}

// TestContextOverflowRecoveredOnce: a context-length error the measure
// did not see coming compacts the history once and retries the same step
// once; the turn goes on.
func TestContextOverflowRecoveredOnce(t *testing.T) {
	f := windowFixture(t, "overflow-recover", func(c *config.Config) {
		m := c.Models["default"]
		m.ContextWindow = 128_000 // the measure sees no danger: only the provider refuses
		c.Models["default"] = m
	})
	for _, q := range []string{"first question", "second question"} {
		if _, err := f.d.Turn(t.Context(), q); err != nil {
			t.Fatal(err)
		}
	}
	out, err := f.d.Turn(t.Context(), "third question")
	if err != nil {
		t.Fatalf("the overflow was not recovered: %v", err)
	}
	if out.Final != "third answer" {
		t.Errorf("final = %q", out.Final)
	}
	f.srv.AssertDone(t)
	var third []llmtest.Recorded
	summaries := 0
	for _, r := range f.srv.Requests() {
		switch r.StepID {
		case "third":
			third = append(third, r)
		case "summary":
			summaries++
		}
	}
	if len(third) != 2 || third[0].Fault == "" || third[1].Fault != "" || summaries != 1 {
		t.Fatalf("third step: %d requests (want a refused one and one retry), %d summaries (want 1)", len(third), summaries)
	}
	if !strings.HasPrefix(third[1].Messages[1].Content, memory.SummaryHeader) || len(third[1].Messages) >= len(third[0].Messages) {
		t.Errorf("the retry was not compacted: %d messages, then %d", len(third[0].Messages), len(third[1].Messages))
	}
}

// TestSecondOverflowFails: refused again after the compaction, the turn
// ends with an error naming the window setting — never /compact — and no
// third attempt.
func TestSecondOverflowFails(t *testing.T) {
	f := windowFixture(t, "overflow-twice", func(c *config.Config) {
		m := c.Models["default"]
		m.ContextWindow = 128_000
		c.Models["default"] = m
	})
	for _, q := range []string{"first question", "second question"} {
		if _, err := f.d.Turn(t.Context(), q); err != nil {
			t.Fatal(err)
		}
	}
	_, err := f.d.Turn(t.Context(), "third question")
	if err == nil || !llm.IsContextOverflow(err) || !strings.Contains(err.Error(), "models.<name>.context_window") ||
		!strings.Contains(err.Error(), "compacted once") || strings.Contains(err.Error(), "/compact") {
		t.Fatalf("err = %v; want the overflow, naming the window setting, after one compaction", err)
	}
	third := 0
	for _, r := range f.srv.Requests() {
		if r.StepID == "third" {
			third++
		}
	}
	if third != 2 {
		t.Errorf("the refused step was sent %d times; want 2 (one retry)", third)
	}
}

// TestSummaryFailureFallsBackToSqueeze: when the summary model errors in
// the middle of a turn, the history stays as it was, the turn's older
// outputs are shrunk harder instead (one notice, no second summary
// attempt), and the turn still finishes inside the window.
func TestSummaryFailureFallsBackToSqueeze(t *testing.T) {
	f := windowFixture(t, "long-turn-summary-fails", nil)
	out, err := f.d.Turn(t.Context(), "read big.txt forty times")
	if err != nil {
		t.Fatal(err)
	}
	if out.Final != "read it forty times" {
		t.Fatalf("final = %q", out.Final)
	}
	f.srv.AssertDone(t)
	summaries, afterFailure := 0, false
	for _, r := range f.srv.Requests() {
		if r.StepID == "summary" {
			summaries++
			afterFailure = true
			continue
		}
		if r.PromptTokens > 8000 {
			t.Errorf("request #%d carried %d prompt tokens, over the window", r.N, r.PromptTokens)
		}
		whole := 0
		for _, m := range r.Messages {
			if m.Role == llm.RoleTool && !strings.HasPrefix(m.Content, "[shrunk") {
				whole++
			}
		}
		if afterFailure && whole > 1 {
			t.Errorf("request #%d after the failed summary keeps %d tool outputs whole; want the harder squeeze (1)", r.N, whole)
		}
	}
	if summaries != 1 {
		t.Errorf("%d summary calls; want exactly 1 (a failure is not retried in the same turn)", summaries)
	}
	if n := strings.Count(noticeText(f.rec), "the summary call failed, the history is unchanged"); n != 1 {
		t.Errorf("%d notices of the failed summary; want 1", n)
	}
	data, _ := os.ReadFile(f.sess.Info().Rollout)
	if strings.Contains(string(data), `"type":"compacted"`) {
		t.Error("a failed summary changed the history")
	}
}

// TestTurnThatCannotFitFails: a request larger than the window even with
// nothing left to compact or shrink is never sent; the turn ends with an
// error naming the window setting.
func TestTurnThatCannotFitFails(t *testing.T) {
	f := windowFixture(t, "long-turn-window", nil)
	_, err := f.d.Turn(t.Context(), strings.Repeat("a very long request ", 3000))
	if err == nil || !strings.Contains(err.Error(), "more than the context window of 8000 (models.default.context_window)") {
		t.Fatalf("err = %v; want the window named", err)
	}
	if n := len(f.srv.Requests()); n != 0 {
		t.Errorf("%d requests were sent; want none", n)
	}
}

// TestTransientTailCountsTowardsTheWindow: the hard bound is on the whole
// request. A first call whose prompt and history fit the window but whose
// transient tail (a board index of long lines) does not is never sent; the
// error names the size of each part and what to do.
func TestTransientTailCountsTowardsTheWindow(t *testing.T) {
	f := windowFixture(t, "long-turn-window", func(c *config.Config) {
		c.Blackboard.IndexMaxNotes = 40
		c.Blackboard.IndexLineChars = 0
	})
	for i := range 36 {
		conclusion := fmt.Sprintf("finding %02d: %s", i, strings.Repeat("the parser keeps its state in one place; ", 13))
		if _, err := f.store.WriteNote(f.board, blackboard.NewNote{Handoff: blackboard.Handoff{Status: blackboard.StatusOK, Agent: "explorer", Conclusion: conclusion}}); err != nil {
			t.Fatal(err)
		}
	}
	_, err := f.d.Turn(t.Context(), strings.Repeat("a request of a moderate size ", 400))
	if err == nil || !strings.Contains(err.Error(), "more than the context window of 8000 (models.default.context_window)") ||
		!regexp.MustCompile(`conversation \d+, transient tail [1-9]\d{3}\)`).MatchString(err.Error()) ||
		!strings.Contains(err.Error(), "it was not sent: raise models.default.context_window") {
		t.Fatalf("err = %v; want the window named with the tail's size", err)
	}
	if n := len(f.srv.Requests()); n != 0 {
		t.Errorf("%d requests were sent (%d prompt tokens); want none", n, f.srv.Requests()[0].PromptTokens)
	}
	t.Log(err)
}

// TestWindowSmallerThanPrefix: a context_window that cannot hold the
// system prompt and the tool declarations is a configuration error at
// session start, naming the key and the measured prefix.
func TestWindowSmallerThanPrefix(t *testing.T) {
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
	m := cfg.Models["default"]
	m.ContextWindow = 1500
	cfg.Models["default"] = m
	db, err := statedb.Open(t.Context(), filepath.Join(home, "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sess, err := memory.NewStore(db, home).Create(t.Context(), memory.CreateOptions{Kind: memory.KindRun, Cwd: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	a := newApp(t, app.Options{Config: cfg, Client: func(string) (llm.Client, string, error) { return nil, "", errors.New("unused") },
		Workspace: t.TempDir(), Board: blackboard.Open(filepath.Join(home, "notes"))})
	_, err = New(a, Options{Session: sess})
	var cerr *config.Error
	if !errors.As(err, &cerr) || cerr.Key != "models.default.context_window" || !strings.Contains(err.Error(), "1500 tokens is smaller than the stable prefix") ||
		!strings.Contains(err.Error(), "about ") {
		t.Fatalf("New = %v; want a config error naming models.default.context_window and the measured prefix", err)
	}
	t.Log(err)
}

// noticeText joins the notices a test's director emitted.
func noticeText(rec *agents.Recorder) string {
	var b strings.Builder
	for _, e := range rec.Events() {
		if e.Type == agents.EventNotice {
			b.WriteString(e.Text + "\n")
		}
	}
	return b.String()
}
