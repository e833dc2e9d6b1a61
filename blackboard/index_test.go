package blackboard

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/yagent/yagent/config"
)

// TestBuildIndexEmptyAndValve pins constraints 2 and 11: an empty board
// gives no index, MaxNotes 0 turns the index off, and the configured
// valves keep config's meaning of 0 (index_line_chars: 0 = no trimming;
// a 0 read as "default" turns this red).
func TestBuildIndexEmptyAndValve(t *testing.T) {
	s := newTestStore(t)
	idx, err := s.BuildIndex("b", testIndex)
	if err != nil || idx.Text != "" || idx.Total != 0 {
		t.Fatalf("empty board: index %+v, %v; want empty", idx, err)
	}
	for i := range 3 {
		put(t, s, "b", "explorer", fmt.Sprintf("finding %d %s", i, strings.Repeat("long ", 60)))
	}
	tests := []struct {
		name      string
		cfg       config.Blackboard
		wantLines int
		wantLong  bool // lines longer than the default budget
	}{
		{"index off", config.Blackboard{IndexMaxNotes: 0, IndexLineChars: 160}, 0, false},
		{"two notes", config.Blackboard{IndexMaxNotes: 2, IndexLineChars: 160}, 2, false},
		{"no trimming", config.Blackboard{IndexMaxNotes: 12, IndexLineChars: 0}, 3, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			idx, err := s.BuildIndex("b", IndexOptionsFromConfig(tt.cfg))
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantLines == 0 {
				if idx.Text != "" {
					t.Fatalf("index with index_max_notes: 0 = %q; want none", idx.Text)
				}
				return
			}
			lines := strings.Split(idx.Text, "\n")[1:]
			if len(lines) != tt.wantLines {
				t.Fatalf("index has %d note lines; want %d:\n%s", len(lines), tt.wantLines, idx.Text)
			}
			long := utf8.RuneCountInString(lines[0]) > testIndex.LineChars
			if long != tt.wantLong {
				t.Errorf("first line has %d runes; want longer than %d: %v", utf8.RuneCountInString(lines[0]), testIndex.LineChars, tt.wantLong)
			}
		})
	}
	if o := IndexOptionsFromConfig(config.Blackboard{IndexMaxNotes: 12, IndexLineChars: 0}); o != (IndexOptions{MaxNotes: 12}) {
		t.Errorf("IndexOptionsFromConfig(line_chars 0) = %+v; want the values as configured", o)
	}
}

// TestFormatIndexLineTinyBudgetStillHasRef pins constraint 11: the ref is
// never trimmed, whatever the budget.
func TestFormatIndexLineTinyBudgetStillHasRef(t *testing.T) {
	m := NoteMeta{Ref: "explorer/20261129T100001Z_abcd-42-000001", Status: StatusOK, Conclusion: "a conclusion that is rather long and will not fit"}
	for _, budget := range []int{1, 5, 20, 45, 60, 160, 0} {
		line := FormatIndexLine(m, budget)
		if !strings.Contains(line, m.Ref) {
			t.Errorf("FormatIndexLine(budget %d) = %q; lost the ref", budget, line)
		}
		if n := utf8.RuneCountInString(line); budget >= 60 && n > budget {
			t.Errorf("FormatIndexLine(budget %d) has %d runes", budget, n)
		}
	}
	if line := FormatIndexLine(m, 60); !strings.HasSuffix(line, "…") {
		t.Errorf("trimmed line %q does not end with an ellipsis", line)
	}
	if line := FormatIndexLine(m, 0); !strings.HasSuffix(line, m.Conclusion) {
		t.Errorf("FormatIndexLine(budget 0) = %q; want the whole conclusion (0 = no trimming)", line)
	}
}

// TestBuildIndexSkippedIsReported pins constraint 11: unreadable notes are
// counted and reported, so "board is empty" and "notes unreadable" differ.
func TestBuildIndexSkippedIsReported(t *testing.T) {
	s := newTestStore(t)
	writeRaw(t, s, "b", "worker", "20261129T090000Z_abcd-1-000001", "\x00\x00\x00\x00")
	idx, err := s.BuildIndex("b", testIndex)
	if err != nil {
		t.Fatal(err)
	}
	if idx.Skipped != 1 || !strings.Contains(idx.Text, "\n(1 unreadable notes skipped: worker/20261129T090000Z_abcd-1-000001)") || !strings.HasPrefix(idx.Text, IndexHeaderPrefix) {
		t.Fatalf("index of a board with one damaged note = %+v; want header and a skipped line naming it", idx)
	}
	res, err := s.ListNotes("b", ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []Unreadable{{Ref: "worker/20261129T090000Z_abcd-1-000001", Err: errDamaged.Error()}}; res.Skipped != 1 || !slices.Equal(res.Unreadable, want) {
		t.Errorf("ListNotes skipped %d, unreadable %+v; want %+v", res.Skipped, res.Unreadable, want)
	}
}

// TestBuildIndexDecodesOnlyNewest pins constraint 11's cost bound: older
// notes beyond MaxNotes are not opened (damaged ones would be counted).
func TestBuildIndexDecodesOnlyNewest(t *testing.T) {
	s := newTestStore(t)
	for i := range 5 {
		writeRaw(t, s, "b", "worker", fmt.Sprintf("20261128T0900%02dZ_abcd-1-%06d", i, i), "\x00damaged")
	}
	for i := range 3 {
		put(t, s, "b", "explorer", fmt.Sprintf("fresh %d", i))
	}
	idx, err := s.BuildIndex("b", IndexOptions{MaxNotes: 3, LineChars: 160})
	if err != nil {
		t.Fatal(err)
	}
	if idx.Skipped != 0 || idx.Listed != 3 || idx.Total != 8 {
		t.Fatalf("index = %+v; want 3 listed of 8, none skipped (old damaged notes never decoded)", idx)
	}
	if !strings.Contains(idx.Text, "fresh 2") || strings.Index(idx.Text, "fresh 2") > strings.Index(idx.Text, "fresh 0") {
		t.Errorf("index is not newest first:\n%s", idx.Text)
	}
	// Damaged newest notes use up the decode budget too: the index never
	// walks further back than MaxNotes files.
	for i := range 3 {
		writeRaw(t, s, "b", "worker", fmt.Sprintf("20261130T0900%02dZ_abcd-1-%06d", i, i), "\x00damaged")
	}
	idx, _ = s.BuildIndex("b", IndexOptions{MaxNotes: 3, LineChars: 160})
	if idx.Skipped != 3 || idx.Listed != 0 {
		t.Errorf("index = %+v; want 3 skipped, 0 listed (older notes not decoded)", idx)
	}
}

// TestTempFilesNeverTakenForNotes pins constraint 6: a half-written
// temporary file (renameio's ".<name><digits>", or the seed's ".md.tmp")
// is invisible to listing, index and resolution.
func TestTempFilesNeverTakenForNotes(t *testing.T) {
	s := newTestStore(t)
	m := put(t, s, "b", "explorer", "real")
	for _, name := range []string{"." + m.Stem + ".md123456", m.Stem + ".md.tmp", "notes.md", "README.md"} {
		writeRaw(t, s, "b", "explorer", strings.TrimSuffix(name, ".md"), "---\nversion: 2\nstatus: ok\nconclusion: fake\n---\n")
	}
	idx, _ := s.BuildIndex("b", testIndex)
	res, _ := s.ListNotes("b", ListOptions{})
	if idx.Total != 1 || len(res.Notes) != 1 || strings.Contains(idx.Text, "fake") {
		t.Fatalf("index %+v / list %d notes; want only the real note", idx, len(res.Notes))
	}
}

func TestBuildIndexGolden(t *testing.T) {
	s := newTestStore(t)
	put(t, s, "release-audit", "explorer", "The CLI lives in cmd/yagent; 9 packages export 41 identifiers.", "cmd/yagent is thin")
	put(t, s, "release-audit", "reviewer", "Two exported names lack doc comments: Store.Root and Ref.String.")
	m, err := s.WriteNote("release-audit", NewNote{Handoff: Handoff{Status: StatusError, Agent: "worker", Task: "run the tests", Reason: "the shell tool timed out"}})
	if err != nil {
		t.Fatal(err)
	}
	_ = m
	writeRaw(t, s, "release-audit", "legacy", "20261129T100004Z_abcd-7-000009", "---\nsummary: An old v1 note.\n---\nbody\n")
	idx, err := s.BuildIndex("release-audit", testIndex)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "index.txt", idx.Text+"\n")
}
