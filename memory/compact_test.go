package memory

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/llm/llmtest"
)

func TestRoundCut(t *testing.T) {
	u, tool := user("u"), llm.Message{Role: llm.RoleTool, Content: strings.Repeat("r", 396)} // 100 tokens each
	call := llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c", Name: "n"}}}
	round := HistoryTokens([]llm.Message{call, tool})
	tests := []struct {
		msgs []llm.Message
		keep int
		want int
	}{
		{[]llm.Message{u, call, tool}, 1000, 0},                  // only the request before the newest round
		{[]llm.Message{u, call, tool, call, tool}, 0, 3},         // nothing fits: the newest round stays
		{[]llm.Message{u, call, tool, call, tool}, 2 * round, 3}, // at least two messages are summarised
		{[]llm.Message{u, call, tool, call, tool, call, tool}, 2 * round, 3},
		{[]llm.Message{u, call, tool, tool, call, tool}, round, 4},       // never between a call and its results
		{[]llm.Message{call, tool, call, tool, u, call, tool}, round, 5}, // any round boundary, turn or not
	}
	for i, tt := range tests {
		if got := roundCut(tt.msgs, tt.keep); got != tt.want {
			t.Errorf("case %d: roundCut = %d; want %d", i, got, tt.want)
		}
	}
}

// TestMidTurnCompaction compacts twice inside one running turn: the newest
// rounds stay whole, no tool result is parted from its call, the turn's
// request stays verbatim next to the summary (also after the second
// compaction, which no longer sees it), the rollout keeps every original
// message and a resume rebuilds the same history.
func TestMidTurnCompaction(t *testing.T) {
	srv := llmtest.NewTestServer(t, filepath.Join("..", "testdata", "scenarios", "compact-midturn.yaml"))
	client, err := llm.NewOpenAI(llm.EndpointConfig{BaseURL: srv.URL(), Model: "m", MaxRetries: 0, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	st := newStore(t)
	s := newSession(t, st, KindRun, "/w")
	turn(t, s, "an earlier question", "an earlier answer")
	if _, err := s.BeginTurn(t.Context(), "find the parsers"); err != nil {
		t.Fatal(err)
	}
	const task = "Task: find every parser in a.txt to d.txt"
	appended := 2
	add := func(m llm.Message) {
		t.Helper()
		if err := s.Append(m); err != nil {
			t.Fatal(err)
		}
		appended++
	}
	round := func(n int) {
		id := fmt.Sprintf("call_%d", n)
		add(llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: id, Name: "read_file", Arguments: fmt.Sprintf(`{"path":"%c.txt"}`, 'a'+n-1)}}})
		add(llm.Message{Role: llm.RoleTool, ToolCallID: id, Content: strings.Repeat(fmt.Sprintf("parser %d\n", n), 100)})
	}
	add(user(task))
	for n := 1; n <= 4; n++ {
		round(n)
	}
	keep := HistoryTokens(s.History()[len(s.History())-4:]) // the newest two rounds
	res, err := Compact(t.Context(), s, CompactOptions{Client: client, Window: 8000, MidTurn: true, KeepTokens: keep})
	if err != nil {
		t.Fatal(err)
	}
	h := s.History()
	if !res.MidTurn || res.Upto != 2+1+4 || len(h) != 5 {
		t.Fatalf("first compaction: %+v, history of %d messages; want the earlier turn, the request and two rounds replaced", res, len(h))
	}
	wantHead := SummaryHeader + "\n\nRead a.txt and b.txt: both define parsers. Left: c.txt.\n\n" + TaskHeader + "\n" + task
	if h[0].Content != wantHead {
		t.Errorf("summary message:\n%s\nwant:\n%s", h[0].Content, wantHead)
	}
	if h[1].Role != llm.RoleAssistant || h[1].ToolCalls[0].ID != "call_3" || h[2].ToolCallID != "call_3" {
		t.Errorf("the kept part does not start with the newest rounds whole: %+v", h[1:])
	}
	sum := srv.Requests()[0]
	if sys := sum.Messages[0].Content; !strings.Contains(sys, "what was learned so far") {
		t.Errorf("the mid-turn summary prompt is missing:\n%s", sys)
	}
	if tr := sum.Messages[1].Content; !strings.Contains(tr, task) || !strings.Contains(tr, "an earlier question") || strings.Contains(tr, "parser 3") {
		t.Errorf("transcript sent for the summary:\n%s", tr)
	}
	// Two more rounds, then a second compaction keeping only the newest.
	round(5)
	round(6)
	if _, err := Compact(t.Context(), s, CompactOptions{Client: client, Window: 8000, MidTurn: true, KeepTokens: 0}); err != nil {
		t.Fatal(err)
	}
	h = s.History()
	if len(h) != 3 || !strings.HasSuffix(h[0].Content, TaskHeader+"\n"+task) || !strings.Contains(h[0].Content, "Left: the answer.") || h[1].ToolCalls[0].ID != "call_6" {
		t.Fatalf("after the second compaction: %+v", h)
	}
	if tr := srv.Requests()[1].Messages[1].Content; !strings.Contains(tr, "Left: c.txt.") || !strings.Contains(tr, task) {
		t.Errorf("the second summary did not see the first one and the request:\n%s", tr)
	}
	// The rollout keeps every message; a resume rebuilds the same history.
	data, _ := os.ReadFile(s.Info().Rollout)
	if n := strings.Count(string(data), `"type":"message"`); n != appended {
		t.Errorf("rollout holds %d messages; want all %d", n, appended)
	}
	if n := strings.Count(string(data), `"type":"compacted"`); n != 2 || !strings.Contains(string(data), `"task":"`+task+`"`) {
		t.Errorf("rollout holds %d compactions (want 2, with the task)", n)
	}
	s.Close()
	r, err := st.Resume(t.Context(), s.ID())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if diff := cmp.Diff(h, r.History()); diff != "" {
		t.Errorf("resumed history differs (-live +resumed):\n%s", diff)
	}
}

// TestAnchorSurvivesResume: the provider's count of the last request is
// recorded with the rollout, so a resumed session measures exactly as the
// live one; the count pairs with the history as it was sent (squeezed), so
// outputs sent shrunk count whole once they go whole; a compaction voids it.
func TestAnchorSurvivesResume(t *testing.T) {
	st := newStore(t)
	s := newSession(t, st, KindRun, "/w")
	prefix := func() int { return 1000 }
	turn(t, s, "read it", "it says hello")
	full := s.History()
	sent := append([]llm.Message(nil), full...)
	sent[1].Content = "[shrunk]"
	s.Sending(sent)
	if err := s.Observe(llm.Response{Usage: llm.Usage{PromptTokens: 5000}}); err != nil {
		t.Fatal(err)
	}
	want := 5000 - HistoryTokens(sent) + HistoryTokens(full)
	if got := s.Measure(prefix); got != want {
		t.Errorf("Measure = %d; want the anchor 5000 plus what the sent history lacks (%d)", got, want)
	}
	s.Close()
	r, err := st.Resume(t.Context(), s.ID())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := r.Measure(prefix); got != want {
		t.Errorf("resumed Measure = %d; want %d, as the live session measured", got, want)
	}
	if err := r.Compacted(t.Context(), "a summary", "", 1); err != nil {
		t.Fatal(err)
	}
	if got, want := r.Measure(prefix), 1000+HistoryTokens(r.History()); got != want {
		t.Errorf("Measure after a compaction = %d; want the prefix estimate %d (the anchor counted what is gone)", got, want)
	}
	r.Close()
	r2, err := st.Resume(t.Context(), s.ID())
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	if got, want := r2.Measure(prefix), 1000+HistoryTokens(r2.History()); got != want {
		t.Errorf("resumed after a compaction: Measure = %d; want %d (an anchor before the compaction is void)", got, want)
	}
}
