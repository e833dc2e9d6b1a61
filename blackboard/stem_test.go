package blackboard

import (
	"fmt"
	"os"
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
