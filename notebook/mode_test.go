package notebook

import (
	"strings"
	"testing"
)

// TestModeHysteresisDoesNotFlip pins the hysteresis: a notebook that
// oscillates around the upper threshold does not flip the mode (and so the
// tool list) every turn; it returns to inline only below both lower bounds.
func TestModeHysteresisDoesNotFlip(t *testing.T) {
	c := testConfig() // enter index above 600 chars or 6 notes; leave below 400 and 4
	mode := Inline
	var modes []Mode
	// chars per turn: climbs over 600, then oscillates 590–610, then drops.
	for _, chars := range []int{300, 590, 610, 590, 610, 590, 450, 399} {
		mode = NextMode(mode, chars, 3, c)
		modes = append(modes, mode)
	}
	want := []Mode{Inline, Inline, Index, Index, Index, Index, Index, Inline}
	for i := range want {
		if modes[i] != want[i] {
			t.Fatalf("modes = %v; want %v", modes, want)
		}
	}
	flips := 0
	for i := 1; i < len(modes); i++ {
		if modes[i] != modes[i-1] {
			flips++
		}
	}
	if flips != 2 {
		t.Errorf("%d mode flips over an oscillating notebook; want 2", flips)
	}
	if NextMode(Index, 100, 5, c) != Index {
		t.Error("left index mode with 5 notes (the lower bound is 4)")
	}
}

func TestEnterTurnStoresMode(t *testing.T) {
	b, st, id := newBook(t)
	for i := range 7 {
		save(t, b, "n"+string(rune('a'+i)), "d", "x")
	}
	if mode, err := b.EnterTurn(t.Context()); err != nil || mode != Index {
		t.Fatalf("EnterTurn = %s, %v", mode, err)
	}
	in, _ := st.Get(t.Context(), id)
	if in.NotesMode != "index" {
		t.Errorf("chats.notes_mode = %q; want index", in.NotesMode)
	}
}

func TestBlock(t *testing.T) {
	notes := []Note{
		{Name: "big-pin", Description: "a long pinned note", Body: strings.Repeat("p", 250), Pinned: true},
		{Name: "goal", Description: "the goal", Body: "ship v1", Pinned: true},
		{Name: "todo", Description: "open items", Body: "- tests"},
	}
	inline := Block(notes, Inline, false, PinLimits{Chars: 300, Max: 2})
	for _, w := range []string{"[notebook] 3 notes", "## todo | open items\n- tests", "## goal | the goal (pinned)\nship v1"} {
		if !strings.Contains(inline, w) {
			t.Errorf("inline block lacks %q:\n%s", w, inline)
		}
	}
	index := Block(notes, Index, false, PinLimits{Chars: 200, Max: 2})
	for _, w := range []string{"index mode: chat_note_read NAME gives a body", "- todo — open items",
		"## big-pin | a long pinned note (pinned; over the pin budget — chat_note_read big-pin for the body)", "## goal | the goal (pinned)\nship v1"} {
		if !strings.Contains(index, w) {
			t.Errorf("index block lacks %q:\n%s", w, index)
		}
	}
	if strings.Contains(index, "- tests") || strings.Contains(index, "ppppp") {
		t.Errorf("index block shows an unpinned body or the over-budget pin's body:\n%s", index)
	}
	if Block(nil, Inline, false, PinLimits{Chars: 300, Max: 2}) != "" {
		t.Error("an empty notebook without pressure got a block")
	}
	if b := Block(nil, Inline, true, PinLimits{Chars: 300, Max: 2}); !strings.Contains(b, "[notebook] empty") {
		t.Errorf("an empty notebook under pressure got %q; want a block", b)
	}
}
