package blackboard

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// TestHandoffKeepsUnknownFields pins that keys a person adds to a note's
// front matter (tags, aliases, dates…) neither degrade the note nor get
// lost: they come back in Extra, in order, and a note written with them
// keeps them verbatim.
func TestHandoffKeepsUnknownFields(t *testing.T) {
	const note = "---\nversion: 2\nstatus: ok\nagent: explorer\ntask: t\nconclusion: done\nfacts: [a]\nartifacts: []\n" +
		"created: 2026-11-29T10:00:00Z\ntags: [release, обзор]\naliases:\n  - Release audit\nreviewed: 2026-12-01\n" +
		"owner: {name: alice, team: web}\n---\nbody\n"
	h := ParseHandoff([]byte(note))
	if h.Degraded != DegradedNone || h.Status != StatusOK || h.Conclusion != "done" {
		t.Fatalf("ParseHandoff = degraded %q status %q conclusion %q; want a current note", h.Degraded, h.Status, h.Conclusion)
	}
	if diff := cmp.Diff([]string{"tags", "aliases", "reviewed", "owner"}, h.Extra.Keys()); diff != "" {
		t.Errorf("extra keys (-want +got):\n%s", diff)
	}
	var tags []string
	if ok, err := h.Extra.Get("tags", &tags); !ok || err != nil || len(tags) != 2 || tags[1] != "обзор" {
		t.Errorf("Extra.Get(tags) = %v, %v, %v", tags, ok, err)
	}
	b, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"extra":{"tags":["release","обзор"],"aliases":["Release audit"],"reviewed":"2026-12-01T00:00:00Z","owner":{"name":"alice","team":"web"}}`) {
		t.Errorf("JSON = %s", b)
	}

	// Written again, the fields survive byte for byte.
	s := newTestStore(t)
	m, err := s.WriteNote("b", NewNote{Handoff: *h, Body: "body\n"})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(BoardDir(s.root, "b"), "explorer", m.Stem+".md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"tags: [release, обзор]\n", "aliases:\n  - Release audit\n", "reviewed: 2026-12-01\n", "owner: {name: alice, team: web}\n"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("written note lacks %q:\n%s", want, data)
		}
	}
	n, err := s.ReadNote("b", m.Ref)
	if err != nil {
		t.Fatal(err)
	}
	if !n.Handoff.Extra.Equal(h.Extra) || n.Handoff.Degraded != DegradedNone {
		t.Errorf("read back: extra %v, degraded %q", n.Handoff.Extra.Keys(), n.Handoff.Degraded)
	}

	// A field the handoff owns is never taken for an extra one, and the
	// salvage tier keeps extras too.
	h = ParseHandoff([]byte("---\nversion: 2\nstatus: paused\nconclusion: c\ntags: [x]\n---\n"))
	if h.Degraded != DegradedPartial || !slices.Equal(h.Extra.Keys(), []string{"tags"}) {
		t.Errorf("salvaged: degraded %q, extra %v", h.Degraded, h.Extra.Keys())
	}
}

// TestNonASCIIStoredAsUTF8 pins that text outside ASCII — Cyrillic, ё,
// emoji beyond U+FFFF — is written as UTF-8, never as \U escapes, and reads
// back unchanged.
func TestNonASCIIStoredAsUTF8(t *testing.T) {
	s := newTestStore(t)
	h := Handoff{Status: StatusOK, Agent: "writer", Task: "ёлка: проверить 🎄",
		Conclusion: "Готово 🚀 — all \"quoted\" \\ fine", Facts: []string{"emoji 👍🏽 ok", "line1\nline2 😀", "plain"}}
	m, err := s.WriteNote("b", NewNote{Handoff: h, Body: "тело 🙂\n"})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(BoardDir(s.root, "b"), "writer", m.Stem+".md"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), `\U`) || !strings.Contains(string(data), "🚀") || !strings.Contains(string(data), "ёлка") {
		t.Errorf("note is not plain UTF-8:\n%s", data)
	}
	n, err := s.ReadNote("b", m.Ref)
	if err != nil {
		t.Fatal(err)
	}
	got := n.Handoff
	if got.Degraded != DegradedNone || got.Task != h.Task || got.Conclusion != h.Conclusion || !slices.Equal(got.Facts, h.Facts) {
		t.Errorf("read back %+v; want %+v", got, h)
	}
}

// FuzzFrontMatterRoundTrip: any valid UTF-8 text in a handoff is written
// without \U escapes and reads back as it was (a follow-up's session and
// supersedes too).
func FuzzFrontMatterRoundTrip(f *testing.F) {
	for _, seed := range []string{"Готово 🚀", "a\"b\\c", "\x00\x01 tab\t", "\u2028 ls 𝄞", "- not a list", "key: value", "'quoted'", "#comment", "\ufeffbom"} {
		f.Add(seed, "fact 😀")
	}
	f.Fuzz(func(t *testing.T, conclusion, fact string) {
		if !utf8.ValidString(conclusion) || !utf8.ValidString(fact) {
			return
		}
		h := &Handoff{Version: HandoffVersion, Status: StatusOK, Agent: "a", Conclusion: conclusion, Facts: []string{fact}, Artifacts: []string{},
			Session: fact, Supersedes: conclusion}
		fm, err := encodeFrontMatter(h)
		if err != nil {
			t.Fatalf("encode: %v", err)
		}
		if strings.Contains(string(fm), `\U`) && !strings.Contains(conclusion+fact, `\U`) {
			t.Fatalf("\\U escape in %s", fm)
		}
		got := ParseHandoff([]byte("---\n" + string(fm) + "---\nbody\n"))
		if got.Degraded != DegradedNone || got.Conclusion != conclusion || len(got.Facts) != 1 || got.Facts[0] != fact ||
			got.Session != fact || got.Supersedes != conclusion {
			t.Fatalf("round trip of %q, %q: got %+v from\n%s", conclusion, fact, got, fm)
		}
	})
}
