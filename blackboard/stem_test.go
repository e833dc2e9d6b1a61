package blackboard

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// GenerateNoteFilename returns a fresh note file name (stem + ".md") for a
// note created at now, from the namer every Store uses.
func GenerateNoteFilename(now time.Time) string { return defaultNamer.next(now) + ".md" }

func TestGenerateNoteFilename(t *testing.T) {
	name := GenerateNoteFilename(t0)
	if !strings.HasSuffix(name, ".md") || !IsNoteStem(strings.TrimSuffix(name, ".md")) {
		t.Fatalf("GenerateNoteFilename = %q; not of the note shape", name)
	}
	if !strings.HasPrefix(name, "20261129T100000Z_") || !strings.Contains(name, fmt.Sprintf("-%d-", os.Getpid())) {
		t.Errorf("GenerateNoteFilename = %q; want the UTC time and the pid", name)
	}
	// The stem parses back as a ref (the shapes mirror each other).
	if r, err := ParseNoteRef("explorer/" + strings.TrimSuffix(name, ".md")); err != nil || r.Stem+".md" != name {
		t.Errorf("ParseNoteRef of a generated name = %+v, %v", r, err)
	}
	// Names of one process in the same second sort in creation order.
	n := fixedNamer("abcd", 7)
	prev := ""
	for range 2000 {
		cur := n.next(t0)
		if cur <= prev {
			t.Fatalf("name %q does not sort after %q", cur, prev)
		}
		prev = cur
	}
}

// TestGenerateNoteFilenameSurvivesConstantRandomness pins constraint 13:
// uniqueness comes from the counter, not from luck. With the random source
// pinned to a constant, the same pid and the same second, every name is
// still unique.
func TestGenerateNoteFilenameSurvivesConstantRandomness(t *testing.T) {
	saved := noteRandom
	noteRandom = func() string { return "0000" }
	t.Cleanup(func() { noteRandom = saved })
	n := &namer{} // draws its tag from noteRandom
	seen := map[string]bool{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 250 {
				name := n.next(t0)
				mu.Lock()
				if seen[name] {
					t.Errorf("duplicate name %q", name)
				}
				seen[name] = true
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(seen) != 2000 {
		t.Fatalf("%d unique names; want 2000", len(seen))
	}
}

// TestConcurrentWriteNotesNeverCollide pins constraint 13 end to end: 200
// concurrent writes to one board in the same second give 200 notes.
func TestConcurrentWriteNotesNeverCollide(t *testing.T) {
	s := Open(t.TempDir())
	s.now = func() time.Time { return t0 }
	var wg sync.WaitGroup
	errs := make(chan error, 200)
	for i := range 200 {
		wg.Go(func() {
			_, err := s.WriteNote("b", NewNote{Handoff: Handoff{Status: StatusOK, Agent: "explorer", Conclusion: fmt.Sprint(i)}, Body: fmt.Sprint(i)})
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	res, err := s.ListNotes("b", ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, m := range res.Notes {
		seen[m.Conclusion] = true
	}
	if len(res.Notes) != 200 || len(seen) != 200 || res.Skipped != 0 {
		t.Fatalf("%d notes (%d distinct, %d skipped) after 200 concurrent writes; want 200", len(res.Notes), len(seen), res.Skipped)
	}
}

var stemRegexp = regexp.MustCompile(`^[0-9]{8}T[0-9]{6}Z_[0-9a-f]{4}-[0-9]+-[0-9]{6,}$`)

func FuzzIsNoteStem(f *testing.F) {
	for _, seed := range []string{"20261129T100001Z_abcd-42-000001", "20261129T100001Z_abcd-42-00001", "20261129T100001Z_ABCD-42-000001", "20261129T100001Z_abcd--000001", "20261129T100001Z_abcd-1-1234567", ""} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := IsNoteStem(s), stemRegexp.MatchString(s); got != want {
			t.Fatalf("IsNoteStem(%q) = %v; the pattern says %v", s, got, want)
		}
	})
}

// TestTakenNameSkipsARandomStretch pins constraint 13's skip: a name found
// taken moves the counter on by 1 + a random draw in [0, 1024) before the
// next name is tried (so two namers of one tag and pid do not collide in
// lockstep), at most maxNameAttempts names in all; the draw comes from the
// namer's source, pinned here.
func TestTakenNameSkipsARandomStretch(t *testing.T) {
	stem := func(seq uint64) string { return fmt.Sprintf("20261129T100000Z_e9fb-4242-%06d", seq) }
	for _, tt := range []struct {
		name    string
		draws   []uint64 // what the source returns, in order
		taken   []uint64 // counters whose names exist already
		wantSeq uint64   // the counter of the name written; 0: WriteNote fails
	}{
		{"nothing taken: no draw", nil, nil, 1},
		{"one taken", []uint64{36}, []uint64{1}, 1 + (1 + 36) + 1},
		{"a draw of 0 still skips one", []uint64{0}, []uint64{1}, 3},
		{"two taken", []uint64{36, 1023}, []uint64{1, 39}, 39 + (1 + 1023) + 1},
		{"the last attempt", zeros(maxNameAttempts - 1), odd(maxNameAttempts - 1), 2*maxNameAttempts - 1},
		{"every attempt taken", zeros(maxNameAttempts - 1), odd(maxNameAttempts), 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "notes")
			s := Open(root)
			s.now = func() time.Time { return t0 }
			s.namer = fixedNamer("e9fb", 4242)
			var spans []uint64
			s.namer.draw = func(n uint64) uint64 {
				spans = append(spans, n)
				if len(spans) > len(tt.draws) {
					t.Fatalf("draw %d; the test scripted %d", len(spans), len(tt.draws))
				}
				return tt.draws[len(spans)-1]
			}
			dir := AgentDir(root, "b", "explorer")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			for _, seq := range tt.taken {
				if err := os.WriteFile(filepath.Join(dir, stem(seq)+".md"), []byte("someone else's note\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			m, err := s.WriteNote("b", NewNote{Handoff: Handoff{Status: StatusOK, Agent: "explorer", Conclusion: "mine"}})
			if tt.wantSeq == 0 {
				if !errors.Is(err, fs.ErrExist) || !strings.Contains(err.Error(), "write note explorer/"+stem(2*maxNameAttempts-1)) {
					t.Errorf("WriteNote = %v, %v; want the last name tried, taken", m, err)
				}
			} else if err != nil || m.Stem != stem(tt.wantSeq) {
				t.Errorf("WriteNote = %q, %v; want %q", m.Stem, err, stem(tt.wantSeq))
			}
			if len(spans) != len(tt.draws) {
				t.Errorf("%d draws; want %d", len(spans), len(tt.draws))
			}
			for _, n := range spans {
				if n != 1024 {
					t.Errorf("drew in [0, %d); want [0, 1024)", n)
				}
			}
			for _, seq := range tt.taken {
				if data, _ := os.ReadFile(filepath.Join(dir, stem(seq)+".md")); string(data) != "someone else's note\n" {
					t.Errorf("the taken note %d was replaced: %q", seq, data)
				}
			}
		})
	}
}

func zeros(n int) []uint64 { return make([]uint64, n) }

// odd is the counters 1, 3, 5…: the names a namer drawing 0 tries.
func odd(n int) []uint64 {
	var seqs []uint64
	for i := range n {
		seqs = append(seqs, uint64(2*i+1))
	}
	return seqs
}

// TestSkipStretchIsRandom: without a pinned source the stretch is drawn
// from math/rand: between 1 and 1024 names, and not the same every time.
func TestSkipStretchIsRandom(t *testing.T) {
	n := fixedNamer("e9fb", 4242)
	stretches := map[uint64]bool{}
	for range 32 {
		before := n.seq
		n.skip()
		d := n.seq - before
		if d < 1 || d > 1024 {
			t.Fatalf("skip moved the counter %d; want 1 to 1024", d)
		}
		stretches[d] = true
	}
	if len(stretches) < 2 {
		t.Errorf("32 skips moved the counter by %v only; want random stretches", stretches)
	}
}
