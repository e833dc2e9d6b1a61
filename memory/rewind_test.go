package memory

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/yagent/yagent/event"
	"github.com/yagent/yagent/llm"
)

// TestRewind: rewinding to before turn 2 leaves turn 1's conversation (a
// compaction after turn 2 started is undone too); the rollout keeps every
// line and a resume honours the marker; the message count keeps growing,
// so a later turn and a later rewind still work.
func TestRewind(t *testing.T) {
	st := newStore(t)
	s := newSession(t, st, KindRun, "/w")
	turn(t, s, "q1", "a1")
	turn(t, s, "q2", "a2")
	if err := s.Compacted(t.Context(), "sum", "", 3); err != nil {
		t.Fatal(err)
	}
	turn(t, s, "q3", "a3")
	if err := s.Rewind(t.Context(), 9); !errors.Is(err, ErrNoTurn) {
		t.Fatalf("rewind to a turn never started: %v", err)
	}
	if err := s.Rewind(t.Context(), 2); err != nil {
		t.Fatal(err)
	}
	want := []string{"q1", "a1"}
	check := func(what string, h []llm.Message, want []string) {
		t.Helper()
		var got []string
		for _, m := range h {
			got = append(got, m.Content)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: history %q, want %q", what, got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%s: history %q, want %q", what, got, want)
			}
		}
	}
	check("live", s.History(), want)
	if _, _, total := s.Memory(); total != 6 {
		t.Errorf("message count after the rewind = %d, want 6 (it never shrinks)", total)
	}
	turn(t, s, "q4", "a4")
	check("after a turn", s.History(), []string{"q1", "a1", "q4", "a4"})
	id := s.ID()
	s.Close()
	r, err := st.Resume(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	check("resumed", r.History(), []string{"q1", "a1", "q4", "a4"})
	if err := r.Rewind(t.Context(), 4); err != nil {
		t.Fatal(err)
	}
	check("rewound twice", r.History(), want)
}

// TestLiveAfterRewind: what views show after a rewind — the row's turn
// count and Live's items hold only the turns still in the conversation
// (the rewound event marks the place), however many rewinds.
func TestLiveAfterRewind(t *testing.T) {
	st := newStore(t)
	s := newSession(t, st, KindRun, "/w")
	turn(t, s, "q1", "a1")
	turn(t, s, "q2", "a2")
	turn(t, s, "q3", "a3")
	if err := s.Rewind(t.Context(), 2); err != nil {
		t.Fatal(err)
	}
	turn(t, s, "q4", "a4")
	row := func(want int) {
		t.Helper()
		in, err := st.Get(t.Context(), s.ID())
		if err != nil {
			t.Fatal(err)
		}
		if in.Turns != want || s.Info().Turns != want {
			t.Errorf("turns: row %d, session %d; want %d (only live ones)", in.Turns, s.Info().Turns, want)
		}
	}
	row(2)
	shown := func(want ...string) {
		t.Helper()
		r, err := LoadRollout(s.Info().Rollout)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, it := range Live(r.Items) {
			switch {
			case it.Type == event.Message:
				got = append(got, it.Message.Content)
			case it.Type == event.Rewound:
				got = append(got, "rewound "+strconv.Itoa(it.Turn))
			}
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("Live shows %q; want %q", got, want)
		}
		if n := LiveTurns(r.Items); n != s.Info().Turns {
			t.Errorf("LiveTurns = %d, the row %d", n, s.Info().Turns)
		}
	}
	shown("q1", "a1", "rewound 2", "q4", "a4")
	// Back to before turn 3: turn 2 is in the conversation again (its
	// memory as turn 3 started), as Rebuild has it.
	if err := s.Rewind(t.Context(), 3); err != nil {
		t.Fatal(err)
	}
	row(2)
	shown("q1", "a1", "q2", "a2", "rewound 3")
}
