package blackboard

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adrg/frontmatter"
)

// bigBody is n bytes of text whose multi-byte characters straddle every
// 64 KiB read boundary.
func bigBody(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "line %d: é€😀 ", i)
		if i%7 == 0 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// allocated returns the bytes f allocated (the whole process's, as
// runtime.MemStats counts them).
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestBoundedReads pins constraint 15: listing and the index read only a
// note's bounded head, a note over board.max_note_bytes is marked
// oversized and never loaded whole, read_note's pages stream the body and
// a context pack inlines the start of it. What reading costs is measured
// against the same reads of a board whose notes are small, in the same
// run: a 6 MiB note may add at most 1 MiB.
func TestBoundedReads(t *testing.T) {
	s := newTestStore(t).WithMaxNoteBytes(1 << 20)
	body := bigBody(6 << 20)
	big, err := s.WriteNote("b", NewNote{Handoff: Handoff{Status: StatusOK, Agent: "explorer", Conclusion: "the big one", Key: "k"}, Body: body})
	if err != nil {
		t.Fatal(err)
	}
	small := put(t, s, "b", "reviewer", "the small one")
	baseNote, err := s.WriteNote("a", NewNote{Handoff: Handoff{Status: StatusOK, Agent: "explorer", Conclusion: "the big one", Key: "k"}, Body: bigBody(4 << 10)})
	if err != nil {
		t.Fatal(err)
	}
	put(t, s, "a", "reviewer", "the small one")

	var res ListResult
	var idx Index
	var ierr error
	base := allocated(func() { s.ListNotes("a", ListOptions{}); s.BuildIndex("a", testIndex) })
	alloc := allocated(func() { res, err = s.ListNotes("b", ListOptions{}); idx, ierr = s.BuildIndex("b", testIndex) })
	if err != nil || ierr != nil {
		t.Fatal(err, ierr)
	}
	if alloc > base+1<<20 {
		t.Errorf("listing and indexing a board with a 6 MiB note allocated %d bytes, %d with a 4 KiB one; want the heads only", alloc, base)
	}
	if len(res.Notes) != 2 || res.Notes[1].Ref != big.Ref || !res.Notes[1].Oversized || res.Notes[1].BodySize != len(body) || res.Notes[0].Oversized {
		t.Fatalf("ListNotes = %+v; want the big note oversized with its body size", res.Notes)
	}
	if !strings.Contains(idx.Text, big.Ref+" [ok, oversized] the big one") {
		t.Errorf("index does not mark the oversized note:\n%s", idx.Text)
	}
	if _, err := s.ReadNote("b", big.Ref); !errors.Is(err, ErrNoteTooLarge) || !strings.Contains(err.Error(), "read it in pages") {
		t.Errorf("ReadNote of an oversized note = %v; want ErrNoteTooLarge", err)
	}
	if n, err := s.ReadNote("b", small.Ref); err != nil || !strings.Contains(n.Body, "the small one") {
		t.Errorf("ReadNote of a small note = %v", err)
	}
	if m, ok, err := s.FindByKey("b", "explorer", "k"); err != nil || !ok || m.Ref != big.Ref {
		t.Errorf("FindByKey of the oversized note = %v, %v, %v", m, ok, err)
	}

	runes := []rune(body)
	for _, pg := range [][2]int{{0, 100}, {65530, 20}, {len(runes) - 5, 100}, {1 << 20, 12000}, {len(runes), 10}} {
		p, err := s.ReadNotePage("b", big.Ref, pg[0], pg[1])
		if err != nil {
			t.Fatal(err)
		}
		end := min(pg[0]+pg[1], len(runes))
		if p.Total != len(runes) || p.Text != string(runes[pg[0]:end]) || p.End != end {
			t.Errorf("page %v: total %d, end %d, %d chars; want %d, %d, %q…", pg, p.Total, p.End, len([]rune(p.Text)), len(runes), end, string(runes[pg[0]:min(end, pg[0]+10)]))
		}
	}
	base = allocated(func() { _, err = s.ReadNotePage("a", baseNote.Ref, 3<<10, 100) })
	if err != nil {
		t.Fatal(err)
	}
	alloc = allocated(func() { _, err = s.ReadNotePage("b", big.Ref, 5<<20, 100) })
	if err != nil {
		t.Fatal(err)
	}
	if alloc > base+1<<20 {
		t.Errorf("a page of a 6 MiB note allocated %d bytes, of a 4 KiB one %d; want it streamed", alloc, base)
	}

	pack, err := s.ResolveRefs("b", []string{big.Ref}, PackOptions{Budget: 2000})
	if err != nil || len(pack.Resolved) != 1 || !pack.Truncated || !strings.Contains(pack.Text, fmt.Sprintf("-byte note; read_note %s pages the rest]", big.Ref)) || len(pack.Text) > 20000 {
		t.Errorf("context pack of an oversized note: %v, %d bytes, truncated %v:\n%.300s", err, len(pack.Text), pack.Truncated, pack.Text)
	}

	r, err := s.OpenNote("b", big.Ref)
	if err != nil {
		t.Fatal(err)
	}
	var streamed bytes.Buffer
	_, err = streamed.ReadFrom(r)
	r.Close()
	if err != nil || streamed.String() != body {
		t.Errorf("OpenNote streamed %d bytes (%v); want the body of %d", streamed.Len(), err, len(body))
	}
}

// TestReadNoteFrontMatterBeyondHead: a front matter that does not close
// within HeadBytes reads as none, and damage after the head shows only
// when the body is read.
func TestReadNoteFrontMatterBeyondHead(t *testing.T) {
	s := newTestStore(t)
	writeRaw(t, s, "b", "x", "20261129T090000Z_abcd-1-000001", "---\ntags: ["+strings.Repeat("a, ", HeadBytes/3)+"]\n---\nbody\n")
	writeRaw(t, s, "b", "x", "20261129T090000Z_abcd-1-000002", "---\nversion: 2\nstatus: ok\nconclusion: fine head\n---\n"+strings.Repeat("text ", HeadBytes/4)+"\x00")
	res, err := s.ListNotes("b", ListOptions{})
	if err != nil || len(res.Notes) != 2 {
		t.Fatalf("ListNotes = %+v, %v", res, err)
	}
	if m := res.Notes[1]; m.Degraded != DegradedAbsent || !strings.Contains(m.Conclusion, "does not close within 64 KiB") {
		t.Errorf("note with a long front matter: %+v", m)
	}
	if m := res.Notes[0]; m.Conclusion != "fine head" {
		t.Errorf("note damaged after its head: %+v", m)
	}
	if _, err := s.ReadNotePage("b", res.Notes[0].Ref, 0, 10); !errors.Is(err, errDamaged) {
		t.Errorf("page of a note damaged after its head = %v; want damaged", err)
	}
}

// TestShowRefusesSymlinkedAgentDir: a symlinked agent directory that leads
// out of the notes root is skipped by listing and refused by every read.
func TestShowRefusesSymlinkedAgentDir(t *testing.T) {
	s := newTestStore(t)
	put(t, s, "b", "explorer", "inside")
	outside := t.TempDir()
	stem := "20261129T090000Z_abcd-1-000001"
	if err := os.WriteFile(filepath.Join(outside, stem+".md"), []byte("---\nversion: 2\nstatus: ok\nconclusion: secret outside\n---\nsecret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, AgentDir(s.root, "b", "evil")); err != nil {
		t.Fatal(err)
	}
	res, _ := s.ListNotes("b", ListOptions{})
	if len(res.Notes) != 1 {
		t.Errorf("ListNotes = %+v; want the symlinked directory skipped", res.Notes)
	}
	ref := "evil/" + stem
	if _, err := s.ReadNote("b", ref); err == nil || !strings.Contains(err.Error(), "is a symlink or not a directory") {
		t.Errorf("ReadNote through a symlinked agent dir = %v", err)
	}
	if _, err := s.ReadNotePage("b", ref, 0, 10); err == nil {
		t.Error("ReadNotePage read through a symlinked agent dir")
	}
	if pack, _ := s.ResolveRefs("b", []string{ref}, PackOptions{}); strings.Contains(pack.Text, "secret") {
		t.Error("a context pack inlined a note outside the notes root")
	}
}

// TestMaxNoteBytesBoundary pins constraint 15 at its exact edge:
// board.max_note_bytes is the largest note file loaded whole. A note of
// exactly that many bytes is read, listed, indexed and packed whole; one
// byte more and it is oversized: ReadNote refuses it naming both sizes,
// the listing and the index mark it, a context pack inlines an excerpt. 0
// means no limit.
func TestMaxNoteBytesBoundary(t *testing.T) {
	s := newTestStore(t)
	body := strings.Repeat("a line of the deliverable\n", 40)
	m, err := s.WriteNote("b", NewNote{Handoff: Handoff{Status: StatusOK, Agent: "explorer", Conclusion: "the note"}, Body: body})
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(s.BoardDir("b"), "explorer", m.Stem+".md"))
	if err != nil {
		t.Fatal(err)
	}
	size := fi.Size()
	for _, tt := range []struct {
		limit     int64
		oversized bool
	}{{size, false}, {size + 1, false}, {size - 1, true}, {0, false}} {
		t.Run(fmt.Sprintf("limit %d of %d", tt.limit, size), func(t *testing.T) {
			ls := s.WithMaxNoteBytes(tt.limit)
			n, err := ls.ReadNote("b", m.Ref)
			if tt.oversized {
				want := fmt.Sprintf("(%d bytes, the limit is %d): read it in pages (read_note), or raise board.max_note_bytes", size, tt.limit)
				if !errors.Is(err, ErrNoteTooLarge) || !strings.Contains(err.Error(), want) {
					t.Errorf("ReadNote = %v; want ErrNoteTooLarge %s", err, want)
				}
			} else if err != nil || n.Body != body {
				t.Errorf("ReadNote = %v; want the note whole", err)
			}
			res, err := ls.ListNotes("b", ListOptions{})
			if err != nil || len(res.Notes) != 1 || res.Notes[0].Oversized != tt.oversized {
				t.Errorf("ListNotes = %+v, %v; want oversized %v", res.Notes, err, tt.oversized)
			}
			idx, err := ls.BuildIndex("b", testIndex)
			if err != nil || strings.Contains(idx.Text, "oversized") != tt.oversized {
				t.Errorf("index (oversized %v):\n%s", tt.oversized, idx.Text)
			}
			pack, err := ls.ResolveRefs("b", []string{m.Ref}, PackOptions{})
			if err != nil || len(pack.Resolved) != 1 || pack.Resolved[0].Oversized != tt.oversized || pack.Truncated != tt.oversized ||
				strings.Contains(pack.Text, "[excerpt: ") != tt.oversized || !strings.Contains(pack.Text, body[:500]) {
				t.Errorf("context pack (oversized %v): %+v, %v", tt.oversized, pack, err)
			}
		})
	}
}

// TestSharedRootNamesStayUnique pins constraint 13 across hosts: two
// writers with the same pid and the same pinned random tag (two
// containers sharing one notes root) in the same second never lose a
// note: a taken name is never replaced, the next one is used.
func TestSharedRootNamesStayUnique(t *testing.T) {
	root := filepath.Join(t.TempDir(), "notes")
	var wg sync.WaitGroup
	const perHost = 100
	for host := range 2 {
		s := Open(root)
		s.now = func() time.Time { return t0 }
		s.namer = fixedNamer("0000", 1)
		for i := range perHost {
			wg.Go(func() {
				if _, err := s.WriteNote("b", NewNote{Handoff: Handoff{Status: StatusOK, Agent: "explorer", Conclusion: fmt.Sprintf("host %d note %d", host, i)}}); err != nil {
					t.Error(err)
				}
			})
		}
	}
	wg.Wait()
	res, err := Open(root).ListNotes("b", ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, m := range res.Notes {
		seen[m.Conclusion] = true
	}
	if len(res.Notes) != 2*perHost || len(seen) != 2*perHost {
		t.Fatalf("%d notes (%d distinct) after %d writes from two hosts with one pid; want every one", len(res.Notes), len(seen), 2*perHost)
	}
}

// FuzzFrontMatterBoundsMatchesAdrg: the bounded front matter reader splits
// every file as adrg/frontmatter (what notes were read with before) does.
func FuzzFrontMatterBoundsMatchesAdrg(f *testing.F) {
	for _, seed := range []string{"---\na: 1\n---\nbody", "\n\n---\r\na\n---", "---", "---\n", "x\n---\na\n---\n", "---\na\n", " --- \na\n ---\nb", "---\n---\n"} {
		f.Add(seed)
	}
	raw := frontmatter.NewFormat("---", "---", func(data []byte, v any) error {
		*v.(*[]byte) = bytes.Clone(data)
		return nil
	})
	f.Fuzz(func(t *testing.T, s string) {
		data := []byte(s)
		var fm []byte
		body, err := frontmatter.Parse(bytes.NewReader(data), &fm, raw)
		wantOK := err == nil && fm != nil
		gotFM, gotBody, ok := SplitFrontMatter(data)
		if ok != wantOK || ok && (!bytes.Equal(gotFM, fm) || !bytes.Equal(gotBody, body)) || !ok && !bytes.Equal(gotBody, data) {
			t.Fatalf("SplitFrontMatter(%q) = %q, %q, %v; adrg says %q, %q, %v", s, gotFM, gotBody, ok, fm, body, wantOK)
		}
		// A head cut anywhere agrees with the whole file or says it
		// cannot decide.
		for cut := range len(data) {
			a, b, c, st := frontMatterBounds(data[:cut], false)
			switch {
			case st == fmTooLong:
			case st == fmFound && (!ok || !bytes.Equal(data[a:b], gotFM) || !bytes.Equal(data[c:], gotBody)):
				t.Fatalf("head %q of %q: found front matter the whole file does not have", data[:cut], s)
			case st == fmNone && ok:
				t.Fatalf("head %q of %q: no front matter, the whole file has one", data[:cut], s)
			}
		}
	})
}
