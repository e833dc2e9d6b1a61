package memory

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/llm/llmtest"
)

func TestStoreGetListRenameDelete(t *testing.T) {
	st := newStore(t)
	a := newSession(t, st, KindRun, "/one")
	b := newSession(t, st, KindInteractive, "/two")
	sub, err := st.Create(t.Context(), CreateOptions{Kind: KindSubagent, Cwd: "/one", ParentID: a.ID(), BoardID: a.BoardID()})
	if err != nil {
		t.Fatal(err)
	}
	sub.Close()
	turn(t, a, "question one", "answer")
	if got, err := st.Get(t.Context(), a.ID()[:20]); err != nil || got.ID != a.ID() {
		t.Errorf("Get by prefix = %+v, %v", got, err)
	}
	if _, err := st.Get(t.Context(), "2026"); !errors.Is(err, ErrAmbiguousSession) || !strings.Contains(err.Error(), "give more of the id") {
		t.Errorf("Get of an ambiguous prefix = %v", err)
	}
	if _, err := st.Get(t.Context(), "nope"); !errors.Is(err, ErrNoSession) {
		t.Errorf("Get(nope) = %v", err)
	}
	if err := st.Rename(t.Context(), b.ID(), "refactor"); err != nil {
		t.Fatal(err)
	}
	if got, _ := st.Get(t.Context(), "refactor"); got.ID != b.ID() {
		t.Errorf("Get by name = %+v", got)
	}
	if err := st.Rename(t.Context(), a.ID(), "refactor"); err == nil {
		t.Error("two sessions got one name")
	}
	list, _ := st.List(t.Context(), ListOptions{Cwd: "/two", All: true, HereFirst: true})
	if len(list) != 2 || list[0].ID != b.ID() {
		t.Errorf("List(cwd /two first) = %v", list)
	}
	// sessions ls --all: newest first whatever the directory (a had a
	// turn after b was created), and the status its last turn left.
	list, _ = st.List(t.Context(), ListOptions{Cwd: "/two", All: true})
	if len(list) != 2 || list[0].ID != a.ID() || list[0].Status != "ok" || list[1].Status != "" {
		t.Errorf("List(all, newest first) = %+v", list)
	}
	list, _ = st.List(t.Context(), ListOptions{Cwd: "/one"})
	if len(list) != 1 || list[0].ID != a.ID() || list[0].Title != "question one" || list[0].Turns != 1 {
		t.Errorf("List(/one) = %+v (subagents hidden, title from the first prompt)", list)
	}
	if err := a.RecordUsage(t.Context(), "turn", llm.Usage{PromptTokens: 100, CompletionTokens: 5}); err != nil {
		t.Fatal(err)
	}
	a.Close()
	removed, err := st.Delete(t.Context(), a.ID())
	if err != nil || len(removed) != 2 {
		t.Fatalf("Delete = %v, %v; want the session and its sub-agent", removed, err)
	}
	for _, r := range removed {
		if _, err := LoadRollout(r.Rollout); err == nil {
			t.Errorf("rollout %s survived", r.Rollout)
		}
	}
	if rows, _ := st.Spend(t.Context(), a.ID()); len(rows) != 0 {
		t.Errorf("spend survived: %v", rows)
	}
}

func TestResumeRebuildsAndReconnectsBoard(t *testing.T) {
	st := newStore(t)
	s, err := st.Create(t.Context(), CreateOptions{Kind: KindRun, Cwd: "/w", BoardID: "shared-board"})
	if err != nil {
		t.Fatal(err)
	}
	turn(t, s, "q1", "a1")
	turn(t, s, "q2", "a2")
	want := s.History()
	s.Close()
	r, err := st.Resume(t.Context(), s.ID())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.BoardID() != "shared-board" || len(r.History()) != len(want) || r.History()[3].Content != "a2" {
		t.Errorf("resumed: board %s, history %+v", r.BoardID(), r.History())
	}
	if n, _ := r.BeginTurn(t.Context(), "q3"); n != 3 {
		t.Errorf("resumed turn number = %d; want 3", n)
	}
}

func TestCompact(t *testing.T) {
	srv := llmtest.NewTestServer(t, filepath.Join("..", "testdata", "scenarios", "compact-summary.yaml"))
	client, _ := llm.NewOpenAI(llm.EndpointConfig{BaseURL: srv.URL(), Model: "m", Timeout: 5 * time.Second})
	st := newStore(t)
	s := newSession(t, st, KindRun, "/w")
	turn(t, s, "what is in go.mod?", "example.com/demo")
	turn(t, s, "and main.go?", "func main")
	turn(t, s, "thanks", "welcome")
	res, err := Compact(t.Context(), s, CompactOptions{Client: client, Window: 128_000, KeepTurns: 2})
	if err != nil {
		t.Fatal(err)
	}
	h := s.History()
	if res.Upto != 2 || len(h) != 5 || !strings.HasPrefix(h[0].Content, SummaryHeader) || !strings.Contains(h[0].Content, "example.com/demo") || h[1].Content != "and main.go?" {
		t.Fatalf("after compaction: upto %d, history %+v", res.Upto, h)
	}
	if s.Info().SummaryUpto != 2 {
		t.Errorf("summary_upto = %d", s.Info().SummaryUpto)
	}
	if rows, _ := st.Spend(t.Context(), s.ID()); len(rows) != 1 || rows[0].Label != "summary" {
		t.Errorf("spend = %+v; want the summary recorded", rows)
	}
	// A failing summary call changes nothing.
	turn(t, s, "fail-now please", "ok")
	before := s.History()
	if _, err := Compact(t.Context(), s, CompactOptions{Client: client, Window: 128_000, KeepTurns: 1}); err == nil || !strings.Contains(err.Error(), "the history is unchanged") {
		t.Fatalf("failed compaction = %v", err)
	}
	if after := s.History(); len(after) != len(before) || after[0].Content != before[0].Content {
		t.Error("a failed compaction changed the history")
	}
	// The compaction survives a resume.
	s.Close()
	r, err := st.Resume(t.Context(), s.ID())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := r.History(); len(got) != len(before) || got[0].Content != before[0].Content {
		t.Errorf("resumed history %+v; want the compacted one", got)
	}
}

func TestMeasureAnchorsOnProviderCount(t *testing.T) {
	st := newStore(t)
	s := newSession(t, st, KindRun, "/w")
	s.Append(user("hello"))
	if got := s.Measure(func() int { return 1000 }); got != 1000+llm.EstimateTokens([]llm.Message{user("hello")}, nil) {
		t.Errorf("Measure without anchor = %d", got)
	}
	s.Observe(llm.Response{Usage: llm.Usage{PromptTokens: 5000}})
	if got := s.Measure(func() int { return 1000 }); got != 5000 {
		t.Errorf("Measure right after a response = %d; want the provider's 5000", got)
	}
	long := assistant(strings.Repeat("x", 4000))
	s.Append(long)
	if got := s.Measure(func() int { return 1000 }); got != 5000+llm.EstimateTokens([]llm.Message{long}, nil) {
		t.Errorf("Measure = %d; want anchor + estimate of what was added", got)
	}
}
