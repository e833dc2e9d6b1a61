package notebook

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/yagent/yagent/config"
)

// TestLimitsRefuseNeverCut pins the seed's limits: name ≤ 48 of
// [a-z0-9_-], description ≤ 120, body ≤ max_note_chars; over a limit is a
// refusal saying what to do, never a silent cut.
func TestLimitsRefuseNeverCut(t *testing.T) {
	b, _, _ := newBook(t)
	tests := []struct {
		name, desc, body string
		want             string
	}{
		{"Plan", "d", "b", "use at most 48 characters of a-z"},
		{"plan goal", "d", "b", "use at most 48"},
		{strings.Repeat("a", 49), "d", "b", "use at most 48"},
		{"plan", "", "b", "needs a description"},
		{"plan", strings.Repeat("d", 121), "b", "over 120: shorten it"},
		{"plan", "d", "", "empty body"},
		{"plan", "d", strings.Repeat("x", 201), "is 201 characters, over the limit of 200: split it into two notes"},
	}
	for _, tt := range tests {
		_, err := b.Save(t.Context(), tt.name, tt.desc, tt.body)
		if !IsRefusal(err) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Save(%q, %q, %d chars) = %v; want a refusal containing %q", tt.name, tt.desc, len(tt.body), err, tt.want)
		}
	}
	if n, _ := b.Count(t.Context()); n != 0 {
		t.Errorf("%d notes stored after refusals", n)
	}
	save(t, b, "plan", strings.Repeat("d", 120), strings.Repeat("x", 200))
	save(t, b, strings.Repeat("a", 48), "d", "b")
}

func TestSaveKeepsPrevBodyAndNewMarks(t *testing.T) {
	b, _, _ := newBook(t)
	save(t, b, "goal", "the goal", "ship v1")
	if err := b.MarkSeen(t.Context()); err != nil {
		t.Fatal(err)
	}
	save(t, b, "other", "another", "x")
	res, err := b.Save(t.Context(), "goal", "the goal", "ship v2")
	if err != nil {
		t.Fatal(err)
	}
	if res.Created || res.Note.PrevBody != "ship v1" {
		t.Errorf("overwrite = %+v", res)
	}
	notes, _ := b.List(t.Context())
	if len(notes) != 2 || !notes[0].New || notes[0].PrevBody != "ship v1" || notes[0].Body != "ship v2" {
		t.Errorf("notes = %+v", notes)
	}
	b.MarkSeen(t.Context())
	notes, _ = b.List(t.Context())
	if notes[0].New || notes[1].New {
		t.Error("notes still new after the person looked")
	}
}

// TestPinBudgetRefusals pins the seed's pin rules: the budget never falls
// below max_note_chars; refusals say what to cut or who holds the budget.
func TestPinBudgetRefusals(t *testing.T) {
	b, _, _ := newBook(t)
	save(t, b, "a", "first", strings.Repeat("a", 150))
	save(t, b, "b", "second", strings.Repeat("b", 120))
	save(t, b, "c", "third", strings.Repeat("c", 160))
	save(t, b, "d", "fourth", "tiny")
	if _, err := b.Pin(t.Context(), "a", true); err != nil {
		t.Fatal(err)
	}
	_, err := b.Pin(t.Context(), "c", true)
	if !IsRefusal(err) || !strings.Contains(err.Error(), "these pinned notes hold it: a (150)") {
		t.Errorf("pin over the sum = %v", err)
	}
	if _, err := b.Pin(t.Context(), "d", true); err != nil {
		t.Fatal(err)
	}
	_, err = b.Pin(t.Context(), "b", true)
	if !IsRefusal(err) || !strings.Contains(err.Error(), "at most 2 notes can be pinned and these are: a (150), d (4)") {
		t.Errorf("pin over the count = %v", err)
	}
	// Growing a pinned note past the budget is refused too.
	_, err = b.Save(t.Context(), "a", "first", strings.Repeat("a", 199)+"\n"+strings.Repeat("z", 0))
	if err != nil {
		t.Fatalf("a pinned note of 199 within the 300 budget: %v", err)
	}
	// The budget never falls below max_note_chars: a legal note can be pinned alone.
	b.cfg.PinnedChars = 10
	b.Pin(t.Context(), "a", false)
	b.Pin(t.Context(), "d", false)
	if _, err := b.Pin(t.Context(), "b", true); err != nil {
		t.Errorf("a legal-size note could not be pinned under a tiny pinned_chars: %v", err)
	}
}

// TestRestoreRoundTrip: the archived notebook comes back as the same notes
// (names, pins, creation dates), and the current one takes its place.
func TestRestoreRoundTrip(t *testing.T) {
	b, _, _ := newBook(t)
	if _, err := b.Restore(t.Context()); !IsRefusal(err) {
		t.Errorf("restore without an archive = %v", err)
	}
	if _, _, ok, err := b.Archived(t.Context()); ok || err != nil {
		t.Errorf("Archived() without an archive = %v, %v; want none", ok, err)
	}
	save(t, b, "goal", "the goal", "ship v1")
	b.Pin(t.Context(), "goal", true)
	before, _ := b.List(t.Context())
	if err := b.replace(t.Context(), before, []Note{{Name: "merged", Description: "m", Body: "x", Created: b.now(), Updated: b.now()}}); err != nil {
		t.Fatal(err)
	}
	if archived, _, ok, err := b.Archived(t.Context()); err != nil || !ok || len(archived) != 1 || archived[0].Name != "goal" {
		t.Errorf("Archived() = %+v, %v, %v; want the replaced notebook, unchanged", archived, ok, err)
	}
	restored, err := b.Restore(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	after, _ := b.List(t.Context())
	if len(after) != 1 || after[0].Name != "goal" || !after[0].Pinned || !after[0].Created.Equal(before[0].Created) || len(restored) != 1 ||
		after[0].PinnedAt.IsZero() || !after[0].PinnedAt.Equal(before[0].PinnedAt) {
		t.Errorf("after restore: %+v; want the same note, pinned at the same time", after)
	}
	again, _ := b.Restore(t.Context())
	if len(again) != 1 || again[0].Name != "merged" {
		t.Errorf("restoring again brings back %+v; want the notebook it replaced", again)
	}
}

// TestNotesCascadeWithSession: deleting a session deletes its notebook.
func TestNotesCascadeWithSession(t *testing.T) {
	b, st, id := newBook(t)
	save(t, b, "goal", "the goal", "x")
	if _, err := st.Delete(t.Context(), id); err != nil {
		t.Fatal(err)
	}
	var n int
	st.DB.QueryRow(`SELECT COUNT(*) FROM chat_notes WHERE chat_id = ?`, id).Scan(&n)
	if n != 0 {
		t.Errorf("%d notes survived their session", n)
	}
}

// TestBlindOverwriteGuard: in index mode, saving over a note needs a read
// of it in the same turn; in inline mode the body is in view, no check.
func TestBlindOverwriteGuard(t *testing.T) {
	b, _, _ := newBook(t)
	for i := range 7 {
		save(t, b, "n"+string(rune('a'+i)), "d", "body")
	}
	if mode, _ := b.EnterTurn(t.Context()); mode != Index {
		t.Fatalf("mode = %s; want index", mode)
	}
	tools := b.Tools(nil)
	run := func(name string, args string) string {
		for _, tool := range tools {
			if tool.Name == name {
				res, err := tool.Run(t.Context(), agentsCall{name, args}.call())
				if err != nil {
					t.Fatal(err)
				}
				return res.Content
			}
		}
		t.Fatalf("no tool %s", name)
		return ""
	}
	if got := run("chat_note_save", `{"name":"na","description":"d","body":"new"}`); !strings.Contains(got, "you have not read it in this turn: chat_note_read na first") {
		t.Errorf("blind overwrite = %q", got)
	}
	if got := run("chat_note_save", `{"name":"fresh","description":"d","body":"new"}`); !strings.Contains(got, "created note fresh") {
		t.Errorf("a new note in index mode = %q", got)
	}
	run("chat_note_read", `{"name":"na"}`)
	if got := run("chat_note_save", `{"name":"na","description":"d","body":"merged"}`); !strings.Contains(got, "saved note na") {
		t.Errorf("overwrite after a read = %q", got)
	}
	b.EnterTurn(t.Context()) // a new turn forgets the read
	if got := run("chat_note_save", `{"name":"na","description":"d","body":"again"}`); !strings.Contains(got, "have not read it") {
		t.Errorf("the read carried over to the next turn: %q", got)
	}
}

// TestOverBudgetPinIsTheOneWithoutTheCheck: when pins exceed their budget
// — a ceiling lowered by hand, fewer pins allowed, a pin a rebuild
// rewrote — the pin named with a "read for the body" marker is the one
// that got in without the budget check, never an older pin by name order.
func TestOverBudgetPinIsTheOneWithoutTheCheck(t *testing.T) {
	b, _, id := newBook(t)
	save(t, b, "zzz", "admitted first", strings.Repeat("z", 140))
	save(t, b, "aaa", "admitted second", strings.Repeat("a", 140))
	save(t, b, "mid", "unpinned", "m")
	for _, n := range []string{"zzz", "aaa"} { // 280 of the 300 budget: both fit
		if _, err := b.Pin(t.Context(), n, true); err != nil {
			t.Fatal(err)
		}
	}
	notes, _ := b.List(t.Context())
	named := func(block, name string) bool {
		return strings.Contains(block, "over the pin budget — chat_note_read "+name+" for the body")
	}
	quoted := func(block, name string) bool { return strings.Contains(block, "## "+name+" | ") && !named(block, name) }
	for _, tc := range []struct {
		name string
		cfg  func(*config.Notes)
	}{
		{"pinned_chars lowered", func(c *config.Notes) { c.PinnedChars = 200 }},
		{"pinned_max lowered", func(c *config.Notes) { c.PinnedMax = 1 }},
	} {
		cfg := testConfig()
		tc.cfg(&cfg)
		lowered := Open(b.db, id, cfg)
		block := Block(notes, Index, false, lowered.PinLimits())
		if !strings.Contains(block, "zzz | admitted first (pinned)\n"+strings.Repeat("z", 140)) || !named(block, "aaa") || named(block, "zzz") {
			t.Errorf("%s: want zzz quoted and aaa (pinned later) named:\n%s", tc.name, block)
		}
	}
	// A rebuild that rewrites zzz's body lets it in without the check:
	// now zzz is the one named.
	next, _, err := b.check(notes, "## zzz | admitted first\n"+strings.Repeat("y", 130)+"\n## aaa | admitted second\n"+strings.Repeat("a", 140), func(string, ...any) {})
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig()
	cfg.PinnedChars = 200
	block := Block(next, Index, false, Open(b.db, id, cfg).PinLimits())
	if !quoted(block, "aaa") || !named(block, "zzz") {
		t.Errorf("after a rebuild rewrote zzz: want aaa quoted and zzz named:\n%s", block)
	}
}

// TestParallelWritesOfOneNote: the loop runs an answer's calls in
// parallel, and a model may save one note twice in one answer: each save
// lands (one creates, the others overwrite), none fails the turn with the
// database's uniqueness error; parallel pins stay within the pin budget.
func TestParallelWritesOfOneNote(t *testing.T) {
	b, _, _ := newBook(t)
	const n = 8
	var wg sync.WaitGroup
	errs := make(chan error, n)
	created := make(chan bool, n)
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			res, err := b.Save(t.Context(), "log", "a log", fmt.Sprintf("entry %d", i))
			errs <- err
			created <- res.Created
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	close(created)
	for err := range errs {
		if err != nil {
			t.Errorf("a parallel save failed: %v", err)
		}
	}
	c := 0
	for ok := range created {
		if ok {
			c++
		}
	}
	if notes, _ := b.List(t.Context()); c != 1 || len(notes) != 1 {
		t.Errorf("%d saves created the note, %d notes; want one creation, one note", c, len(notes))
	}
	// Three notes pinned at once where the budget (pinned_max 2) holds two.
	for _, name := range []string{"p1", "p2", "p3"} {
		save(t, b, name, "pin me", "short")
	}
	var pinned sync.WaitGroup
	go2 := make(chan struct{})
	for _, name := range []string{"p1", "p2", "p3"} {
		pinned.Add(1)
		go func() { defer pinned.Done(); <-go2; b.Pin(t.Context(), name, true) }()
	}
	close(go2)
	pinned.Wait()
	notes, _ := b.List(t.Context())
	pins := 0
	for _, nt := range notes {
		if nt.Pinned {
			pins++
		}
	}
	if pins != 2 {
		t.Errorf("%d notes pinned by three parallel pins; want the budget's 2", pins)
	}
}
