package director

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/internal/statedb"
	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/llm/llmtest"
	"github.com/yagent/yagent/memory"
)

// The fitter's arithmetic, each figure at its exact boundary. A fresh
// session has no provider count yet, so the measure is the prefix plus the
// history's estimate and a test sets the prefix to land on the figure it
// wants. The end-to-end tests of fit_test.go drive the same fitter through
// real turns.

// fitProbe is a fitter on a fresh session and what it did: its compaction
// calls (keepTokens of each) and its notices. Compaction answers with
// compactErr (default memory.ErrNothingToCompact: nothing older).
type fitProbe struct {
	ft         *fitter
	sess       *memory.Session
	compactErr error
	keeps      []int
	notices    []string
}

func newFitProbe(t *testing.T, window, threshold, squeezePct int) *fitProbe {
	t.Helper()
	home := t.TempDir()
	db, err := statedb.Open(t.Context(), filepath.Join(home, "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	sess, err := memory.NewStore(db, home).Create(t.Context(), memory.CreateOptions{Kind: memory.KindRun, Cwd: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	p := &fitProbe{sess: sess, compactErr: memory.ErrNothingToCompact}
	p.ft = &fitter{sess: sess, agent: "director", key: "default", source: "configuration (defaults)",
		window: window, threshold: threshold, squeezePct: squeezePct,
		notice: func(s string) { p.notices = append(p.notices, s) }}
	p.ft.compact = func(ctx context.Context, keep int) (memory.CompactResult, error) {
		p.keeps = append(p.keeps, keep)
		return memory.CompactResult{}, p.compactErr
	}
	return p
}

// output is a tool output of n bytes (first line "output <i>").
func output(i, n int) llm.Message {
	head := fmt.Sprintf("output %d\n", i)
	return llm.Message{Role: llm.RoleTool, ToolCallID: "c", Content: head + strings.Repeat("x", n-len(head))}
}

// outputs is a turn: the question, then n tool outputs of size bytes.
func outputs(n, size int) []llm.Message {
	msgs := []llm.Message{{Role: llm.RoleUser, Content: "read it"}}
	for i := range n {
		msgs = append(msgs, output(i, size))
	}
	return msgs
}

// whole counts the outputs not shrunk.
func whole(msgs []llm.Message) int {
	n := 0
	for _, m := range msgs {
		if m.Role == llm.RoleTool && !strings.HasPrefix(m.Content, "[shrunk") {
			n++
		}
	}
	return n
}

// tailTokens is what a transient tail adds to a request.
func tailTokens(tail string) int {
	return llm.EstimateTokens([]llm.Message{{Role: llm.RoleUser, Content: tail}}, nil)
}

// TestFitHardBound: a request of exactly the window is sent, one token
// more is not (whatever part of the request the token is in: prefix,
// history, transient tail, or the provider's own count), and the error
// names every size and the key to raise. No window, no bound.
func TestFitHardBound(t *testing.T) {
	const window = 2000
	tail := strings.Repeat("[board] a finding\n", 20)
	history := outputs(2, 300) // nothing to shrink: every output <= 400 bytes
	h := memory.HistoryTokens(history)
	tests := []struct {
		name      string
		window    int
		prefix    int
		tail      *string // nil: no Tail
		anchor    int     // the provider's prompt_tokens of a previous answer (0: none)
		wantAbout int     // 0: sent
	}{
		{name: "exactly the window, no tail", window: window, prefix: window - h},
		{name: "one over, no tail", window: window, prefix: window - h + 1, wantAbout: window + 1},
		{name: "exactly the window with the tail", window: window, prefix: window - h - tailTokens(tail), tail: &tail},
		{name: "the tail tips it over", window: window, prefix: window - h - tailTokens(tail) + 1, tail: &tail, wantAbout: window + 1},
		{name: "an empty tail adds nothing", window: window, prefix: window - h, tail: new(string)},
		{name: "the provider's count tips it over", window: window, prefix: 100, anchor: window + 1, wantAbout: window + 1 + h},
		{name: "the provider's count at the window", window: window, prefix: 100, anchor: window - h},
		{name: "no window, no bound", window: 0, prefix: 50 * window, tail: &tail},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newFitProbe(t, tt.window, 0, 0)
			if tt.anchor > 0 {
				// The provider counted anchor tokens for a request with an
				// empty history: the measure is anchor + history now.
				if err := p.sess.Observe(llm.Response{Usage: llm.Usage{PromptTokens: tt.anchor}}); err != nil {
					t.Fatal(err)
				}
			}
			msgs := append([]llm.Message(nil), history...)
			f := &agents.Fitting{Msgs: msgs, Prefix: tt.prefix}
			tails := 0
			if tt.tail != nil {
				f.Tail = func() (string, error) { tails++; return *tt.tail, nil }
			}
			err := p.ft.fit(t.Context(), f)
			if tt.tail != nil && tails != 1 {
				t.Errorf("the tail was built %d times; want once", tails)
			}
			if tt.wantAbout == 0 {
				if err != nil {
					t.Fatalf("fit = %v; want the request sent", err)
				}
				return
			}
			tt1 := 0
			if tt.tail != nil {
				tt1 = tailTokens(*tt.tail)
			}
			want := fmt.Sprintf("director's next request would carry about %d tokens (system prompt and tool declarations %d, conversation %d, transient tail %d), more than the context window of %d (models.default.context_window), even after compacting this turn and shrinking its tool outputs; it was not sent: raise models.default.context_window if the model has more, or split the task",
				tt.wantAbout, tt.prefix, h, tt1, window)
			if err == nil || err.Error() != want {
				t.Fatalf("fit = %v\nwant %s", err, want)
			}
		})
	}
}

// TestFitPrefixBound: a prefix the window cannot hold is a configuration
// error naming the key and the file; one token less is not. No window, no
// check.
func TestFitPrefixBound(t *testing.T) {
	for _, tt := range []struct {
		window, prefix int
		wantErr        bool
	}{{1000, 1000, true}, {1000, 999, false}, {0, 5000, false}} {
		p := newFitProbe(t, tt.window, 0, 0)
		p.ft.source = "/home/me/.yagent/config.yaml"
		err := p.ft.fit(t.Context(), &agents.Fitting{Prefix: tt.prefix})
		var cerr *config.Error
		if got := errors.As(err, &cerr); got != tt.wantErr {
			t.Fatalf("window %d, prefix %d: fit = %v; want a configuration error: %v", tt.window, tt.prefix, err, tt.wantErr)
		}
		if tt.wantErr && (cerr.File != p.ft.source || cerr.Key != "models.default.context_window" ||
			cerr.Msg != fmt.Sprintf("%d tokens is smaller than the stable prefix of director's requests (system prompt and tool declarations: about %d tokens): set it to the model's real context window", tt.window, tt.prefix)) {
			t.Errorf("error = %#v", cerr)
		}
	}
}

// TestFitSqueezesPastTheSqueezePercent: the turn's older tool outputs
// (all but the newest 3) are shrunk from exactly turn_squeeze_percent of
// the threshold on, not a token before; a threshold or a percent of 0
// never squeezes.
func TestFitSqueezesPastTheSqueezePercent(t *testing.T) {
	history := outputs(5, 800)
	h := memory.HistoryTokens(history)
	for _, tt := range []struct {
		name                  string
		threshold, pct, m     int
		wantWhole, wantShrunk int
	}{
		{"at the percent", 20000, 50, 10000, 3, 2},
		{"a token below", 20000, 50, 9999, 5, 0},
		{"no threshold", 0, 50, 10000, 5, 0},
		{"no percent", 20000, 0, 10000, 5, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := newFitProbe(t, 0, tt.threshold, tt.pct)
			f := &agents.Fitting{Msgs: append([]llm.Message(nil), history...), Prefix: tt.m - h}
			if err := p.ft.fit(t.Context(), f); err != nil {
				t.Fatal(err)
			}
			if got := whole(f.Msgs); got != tt.wantWhole || p.ft.squeezed != tt.wantShrunk {
				t.Errorf("%d outputs whole, %d counted shrunk; want %d, %d", got, p.ft.squeezed, tt.wantWhole, tt.wantShrunk)
			}
			if len(p.keeps) != 0 {
				t.Errorf("compaction ran below the threshold: %v", p.keeps)
			}
			if p.ft.measure != memory.HistoryTokens(f.Msgs)+f.Prefix {
				t.Errorf("measure = %d; want the request as sent, %d", p.ft.measure, memory.HistoryTokens(f.Msgs)+f.Prefix)
			}
		})
	}
}

// TestFitCompactsAtTheThreshold: compaction runs from exactly the
// threshold on (or after a refusal), keeping whole half the room the
// history has below the threshold (none after a refusal, none when the
// prefix alone passes it); a threshold of 0 never compacts.
func TestFitCompactsAtTheThreshold(t *testing.T) {
	history := outputs(1, 100)
	h := memory.HistoryTokens(history)
	refused := errors.New("context length exceeded")
	for _, tt := range []struct {
		name              string
		threshold, prefix int
		overflow          error
		wantKeeps         []int
	}{
		{"at the threshold", 1000, 1000 - h, nil, []int{(1000 - (1000 - h)) / 2}},
		{"a token below", 1000, 999 - h, nil, nil},
		{"a refusal below the threshold", 1000, 100, refused, []int{0}},
		{"a prefix past the threshold", 1000, 1200, nil, []int{0}},
		{"compaction off", 0, 5000, refused, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := newFitProbe(t, 0, tt.threshold, 0)
			f := &agents.Fitting{Msgs: append([]llm.Message(nil), history...), Prefix: tt.prefix, Overflow: tt.overflow}
			err := p.ft.fit(t.Context(), f)
			if diff := cmp.Diff(tt.wantKeeps, p.keeps); diff != "" {
				t.Errorf("compactions (keepTokens) (-want +got):\n%s", diff)
			}
			// A refusal with nothing compacted and nothing to shrink fails.
			if wantErr := tt.overflow != nil; (err != nil) != wantErr ||
				wantErr && err.Error() != "nothing is left to compact or shrink" {
				t.Errorf("fit = %v; want an error: %v", err, wantErr)
			}
		})
	}
}

// TestFitSummaryFailure: a failed summary is one notice, never tried again
// in the turn, and from then on the turn keeps only its newest output
// whole while it stays at or past the threshold; a cancelled summary is
// the turn's error, not a failure to fall back from.
func TestFitSummaryFailure(t *testing.T) {
	history := outputs(5, 800)
	h := memory.HistoryTokens(history)
	t.Run("failed", func(t *testing.T) {
		p := newFitProbe(t, 0, 1000, 0)
		p.compactErr = errors.New("the summary model is down")
		for call := range 2 {
			f := &agents.Fitting{Msgs: append([]llm.Message(nil), history...), Prefix: 1000 - h}
			if err := p.ft.fit(t.Context(), f); err != nil {
				t.Fatal(err)
			}
			if got := whole(f.Msgs); got != 1 {
				t.Errorf("call %d: %d outputs whole; want the newest only", call, got)
			}
		}
		if diff := cmp.Diff([]int{(1000 - (1000 - h)) / 2}, p.keeps); diff != "" {
			t.Errorf("compactions (-want +got):\n%s", diff)
		}
		want := []string{"warning: director: the summary model is down; shrinking this turn's older tool outputs harder instead"}
		if diff := cmp.Diff(want, p.notices); diff != "" {
			t.Errorf("notices (-want +got):\n%s", diff)
		}
		// Below the threshold the harder squeeze stops: the usual one.
		p.ft.squeezePct = 10
		f := &agents.Fitting{Msgs: append([]llm.Message(nil), history...), Prefix: 999 - h}
		if err := p.ft.fit(t.Context(), f); err != nil {
			t.Fatal(err)
		}
		if got := whole(f.Msgs); got != 1 {
			t.Errorf("below the threshold after the failure: %d outputs whole; want 1 (keepWhole after a failure)", got)
		}
		p.ft.squeezePct = 0
		f = &agents.Fitting{Msgs: append([]llm.Message(nil), history...), Prefix: 999 - h}
		if err := p.ft.fit(t.Context(), f); err != nil {
			t.Fatal(err)
		}
		if got := whole(f.Msgs); got != 5 {
			t.Errorf("below the threshold, no squeeze percent: %d outputs whole; want all 5", got)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		p := newFitProbe(t, 0, 1000, 0)
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		p.compactErr = ctx.Err()
		err := p.ft.fit(ctx, &agents.Fitting{Msgs: append([]llm.Message(nil), history...), Prefix: 1000 - h})
		if !errors.Is(err, context.Canceled) || p.ft.summaryFailed || len(p.notices) != 0 {
			t.Errorf("fit = %v, summary failed %v, notices %q; want the cancellation, nothing else", err, p.ft.summaryFailed, p.notices)
		}
	})
}

// TestFitHarderSqueeze: a request over the window after compaction shrinks
// every output but the newest, then the newest too, and stops as soon as
// it fits; the tail (which counts the shrunk outputs) is built again after
// a squeeze, with the measure after it. After a refusal, a squeeze that
// shrank something is the retry (the newest output last); one that shrank
// nothing fails.
func TestFitHarderSqueeze(t *testing.T) {
	history := outputs(4, 2000)
	h := memory.HistoryTokens(history)
	one := append([]llm.Message(nil), history...)
	squeeze(one[1:], 1)
	h1 := memory.HistoryTokens(one)
	for _, tt := range []struct {
		name      string
		window    int
		wantWhole int
	}{
		{"fits as it is", 100 + h, 4},
		{"fits with the newest whole", 100 + h1, 1},
		{"needs the newest shrunk too", 100 + h1 - 1, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := newFitProbe(t, tt.window, 0, 0)
			var measures []int
			f := &agents.Fitting{Msgs: append([]llm.Message(nil), history...), Prefix: 100}
			f.Tail = func() (string, error) { measures = append(measures, p.ft.measure); return "", nil }
			if err := p.ft.fit(t.Context(), f); err != nil {
				t.Fatal(err)
			}
			if got := whole(f.Msgs); got != tt.wantWhole {
				t.Errorf("%d outputs whole; want %d", got, tt.wantWhole)
			}
			want := []int{100 + h}
			if tt.wantWhole < 4 {
				want = append(want, 100+memory.HistoryTokens(f.Msgs)) // built again, after the squeeze
			}
			if diff := cmp.Diff(want, measures); diff != "" {
				t.Errorf("measures the tail was built with (-want +got):\n%s", diff)
			}
			if p.ft.squeezed != 4-tt.wantWhole {
				t.Errorf("squeezed = %d; want %d", p.ft.squeezed, 4-tt.wantWhole)
			}
		})
	}
	t.Run("a refusal shrinks", func(t *testing.T) {
		p := newFitProbe(t, 0, 0, 0)
		f := &agents.Fitting{Msgs: append([]llm.Message(nil), history...), Prefix: 100, Overflow: errors.New("too long")}
		if err := p.ft.fit(t.Context(), f); err != nil || whole(f.Msgs) != 1 {
			t.Errorf("fit = %v with %d outputs whole; want the retry with the newest whole", err, whole(f.Msgs))
		}
		if err := p.ft.fit(t.Context(), f); err != nil || whole(f.Msgs) != 0 {
			t.Errorf("a second refusal: fit = %v with %d outputs whole; want the newest shrunk too", err, whole(f.Msgs))
		}
		if err := p.ft.fit(t.Context(), f); err == nil || err.Error() != "nothing is left to compact or shrink" {
			t.Errorf("a third refusal with every output shrunk: fit = %v; want nothing left", err)
		}
	})
	t.Run("the tail fails", func(t *testing.T) {
		p := newFitProbe(t, 10*h, 0, 0)
		boom := errors.New("board unreadable")
		f := &agents.Fitting{Msgs: append([]llm.Message(nil), history...), Prefix: 100, Tail: func() (string, error) { return "", boom }}
		if err := p.ft.fit(t.Context(), f); !errors.Is(err, boom) {
			t.Errorf("fit = %v; want the tail's error", err)
		}
	})
	t.Run("the rebuilt tail fails", func(t *testing.T) {
		p := newFitProbe(t, 100+h1, 0, 0)
		boom := errors.New("board unreadable")
		calls := 0
		f := &agents.Fitting{Msgs: append([]llm.Message(nil), history...), Prefix: 100, Tail: func() (string, error) {
			if calls++; calls > 1 {
				return "", boom
			}
			return "", nil
		}}
		if err := p.ft.fit(t.Context(), f); !errors.Is(err, boom) {
			t.Errorf("fit = %v; want the rebuilt tail's error", err)
		}
	})
}

// TestFitCompactionKeepsTheTurn: after a real mid-turn compaction the
// history is the summary, then what was kept, and Turn points at the
// running turn's first message in it: after the kept part of earlier
// turns when the cut fell before the turn, right after the summary when it
// fell inside the turn.
func TestFitCompactionKeepsTheTurn(t *testing.T) {
	big := strings.Repeat("an earlier answer, long ", 400)
	for _, tt := range []struct {
		name     string
		cutAt    int // the global index of the first message kept whole
		wantTurn int
		// the outputs shrunk: past the squeeze percent, before the
		// compaction (in the request), then in what it kept
		wantSqueezed int
	}{
		{"cut before the turn", 2, 3, 1 + 1}, // [summary, question 2, answer 2, question 3…]: 4 outputs kept
		{"cut inside the turn", 7, 1, 1 + 0}, // [summary, the newest rounds…]: 3 outputs kept
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := newFitProbe(t, 0, 0, 1)
			sc, err := llmtest.Parse([]byte("steps: [{reply: {text: 'the summary'}}]"), t.Name())
			if err != nil {
				t.Fatal(err)
			}
			srv := llmtest.New(sc)
			t.Cleanup(srv.Close)
			client, err := llm.NewOpenAI(llm.EndpointConfig{BaseURL: srv.URL(), Model: "scripted", Timeout: 30 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			p.ft.compact = func(ctx context.Context, keep int) (memory.CompactResult, error) {
				p.keeps = append(p.keeps, keep)
				return memory.Compact(ctx, p.sess, memory.CompactOptions{Client: client, Model: "scripted", Window: 100_000, MidTurn: true, KeepTokens: keep})
			}
			turn := func(input string, msgs ...llm.Message) {
				if _, err := p.sess.BeginTurn(t.Context(), input); err != nil {
					t.Fatal(err)
				}
				for _, m := range append([]llm.Message{{Role: llm.RoleUser, Content: input}}, msgs...) {
					if err := p.sess.Append(m); err != nil {
						t.Fatal(err)
					}
				}
			}
			turn("question 1", llm.Message{Role: llm.RoleAssistant, Content: strings.Repeat(big, 3)})
			turn("question 2", llm.Message{Role: llm.RoleAssistant, Content: big})
			var rounds []llm.Message
			for i := range 4 {
				id := fmt.Sprintf("call_%d", i)
				rounds = append(rounds, llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: id, Name: "read_file", Arguments: `{}`}}},
					llm.Message{Role: llm.RoleTool, ToolCallID: id, Content: strings.Repeat("x", 800)})
			}
			turn("question 3", rounds...)
			history := p.sess.History()
			keep := memory.HistoryTokens(history[tt.cutAt:])
			p.ft.threshold = 2*keep + 10
			f := &agents.Fitting{Msgs: history, Turn: 4, Prefix: p.ft.threshold - 2*keep}
			if memory.HistoryTokens(history)+f.Prefix < p.ft.threshold {
				t.Fatalf("the test's history does not reach the threshold")
			}
			if err := p.ft.fit(t.Context(), f); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]int{keep}, p.keeps); diff != "" {
				t.Errorf("compactions (-want +got):\n%s", diff)
			}
			if !strings.HasPrefix(f.Msgs[0].Content, memory.SummaryHeader) || len(f.Msgs) != 1+len(history)-tt.cutAt {
				t.Fatalf("history after the compaction: %d messages, the first %.60q", len(f.Msgs), f.Msgs[0].Content)
			}
			if f.Turn != tt.wantTurn {
				t.Errorf("Turn = %d; want %d", f.Turn, tt.wantTurn)
			}
			if p.ft.squeezed != tt.wantSqueezed || whole(f.Msgs) != 3 {
				t.Errorf("%d outputs shrunk, %d whole after the compaction; want %d, the newest 3", p.ft.squeezed, whole(f.Msgs), tt.wantSqueezed)
			}
			if tt.wantTurn > 1 && f.Msgs[f.Turn].Content != "question 3" {
				t.Errorf("Msgs[Turn] = %.40q; want the running turn's request", f.Msgs[f.Turn].Content)
			}
			if n := len(p.notices); n != 1 || !strings.Contains(p.notices[0], fmt.Sprintf("compacted %d older messages of this turn", tt.cutAt)) {
				t.Errorf("notices = %q", p.notices)
			}
		})
	}
}

// TestSqueeze: outputs of more than 400 bytes are shrunk, all but the
// newest keep, once; the shrunk text names the size and the first line,
// cut past 160 bytes.
func TestSqueeze(t *testing.T) {
	long := strings.Repeat("y", 161)
	turn := []llm.Message{
		{Role: llm.RoleUser, Content: strings.Repeat("u", 1000)},
		{Role: llm.RoleTool, Content: strings.Repeat("a", 400)},
		{Role: llm.RoleTool, Content: strings.Repeat("b", 160) + "\n" + strings.Repeat("b", 240)},
		{Role: llm.RoleTool, Content: long + "\n" + strings.Repeat("z", 400)},
		{Role: llm.RoleTool, Content: strings.Repeat("c", 1000)},
	}
	if n := squeeze(turn, 1); n != 2 {
		t.Errorf("squeeze shrank %d; want 2", n)
	}
	want := []string{
		strings.Repeat("u", 1000),
		strings.Repeat("a", 400),
		"[shrunk to save room: 401 bytes; first line: " + strings.Repeat("b", 160) + "] — run the call again if you need it",
		"[shrunk to save room: 562 bytes; first line: " + long[:160] + "…] — run the call again if you need it",
		strings.Repeat("c", 1000),
	}
	var got []string
	for _, m := range turn {
		got = append(got, m.Content)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("squeezed turn (-want +got):\n%s", diff)
	}
	if n := squeeze(turn, 1); n != 0 {
		t.Errorf("a second squeeze shrank %d; want 0 (already shrunk)", n)
	}
	if n := squeeze(turn, 5); n != 0 {
		t.Errorf("keeping more than there are shrank %d", n)
	}
	// A real output that happens to start like a shrunk one is shrunk.
	lookalike := []llm.Message{{Role: llm.RoleTool, Content: "[shrunk" + strings.Repeat("d", 500)}, {Role: llm.RoleTool, Content: "new"}}
	if n := squeeze(lookalike, 1); n != 1 {
		t.Errorf("an output of 507 bytes starting with [shrunk: squeeze shrank %d; want 1", n)
	}
}

// TestConfigSource: errors name the last configuration file read, else the
// defaults.
func TestConfigSource(t *testing.T) {
	if got := configSource(&config.Config{Sources: []string{"/etc/a.yaml", "/w/.yagent/config.yaml"}}); got != "/w/.yagent/config.yaml" {
		t.Errorf("configSource = %q", got)
	}
	if got := configSource(&config.Config{}); got != "configuration (defaults)" {
		t.Errorf("configSource = %q", got)
	}
}
