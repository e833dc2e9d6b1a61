package blackboard

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// TestRenderDropsFactsNotConclusion pins constraint 4: short of budget,
// Render drops facts one by one and never cuts the conclusion.
func TestRenderDropsFactsNotConclusion(t *testing.T) {
	h := &Handoff{Status: StatusOK, Agent: "explorer", Conclusion: strings.Repeat("conclusion ", 20),
		Facts: []string{"fact one is here", "fact two is here", "fact three is here"}}
	full := h.Render(0)
	for _, f := range h.Facts {
		if !strings.Contains(full, f) {
			t.Fatalf("Render(0) lacks %q", f)
		}
	}
	// Render(b) must keep the longest prefix of facts whose rendering fits
	// in b (none if even the bare handoff does not fit).
	sizes := make([]int, len(h.Facts)+1)
	for k := range sizes {
		sizes[k] = utf8.RuneCountInString(h.render(h.Facts[:k], len(h.Facts)-k))
	}
	type row struct{ budget, wantFacts int }
	var tests []row
	for b := 1; b <= sizes[len(h.Facts)]+2; b++ {
		want := 0
		for k := len(h.Facts); k > 0; k-- {
			if sizes[k] <= b {
				want = k
				break
			}
		}
		tests = append(tests, row{b, want})
	}
	for _, tt := range tests {
		got := h.Render(tt.budget)
		if !strings.Contains(got, h.Conclusion) {
			t.Errorf("Render(%d) cut the conclusion:\n%s", tt.budget, got)
		}
		n := 0
		for _, f := range h.Facts {
			if strings.Contains(got, f) {
				n++
			}
		}
		if n != tt.wantFacts {
			t.Errorf("Render(%d) kept %d facts; want %d:\n%s", tt.budget, n, tt.wantFacts, got)
		}
		if n < len(h.Facts) && !strings.Contains(got, "more facts)") {
			t.Errorf("Render(%d) dropped facts silently", tt.budget)
		}
		if n > 0 && !strings.Contains(got, h.Facts[0]) {
			t.Errorf("Render(%d) dropped the first fact before the last", tt.budget)
		}
	}
}

// TestParseHandoffTiers pins constraint 4's three tiers.
func TestParseHandoffTiers(t *testing.T) {
	tests := []struct {
		name         string
		in           string
		wantDegraded Degraded
		wantStatus   Status
		wantConcl    string
	}{
		{"current", "---\nversion: 2\nstatus: partial\nagent: explorer\ntask: t\nconclusion: done\nfacts: [a]\nartifacts: []\ncreated: 2026-11-29T10:00:00Z\n---\nbody\n", DegradedNone, StatusPartial, "done"},
		{"v1 legacy", "---\nsummary: old summary\nagent: explorer\n---\nbody\n", DegradedV1, StatusOK, "old summary"},
		{"wrong types", "---\nversion: 2\nstatus: ok\nconclusion: c\nfacts: just one\n---\n", DegradedPartial, StatusOK, "c"},
		{"unknown status", "---\nversion: 2\nstatus: paused\nconclusion: c\n---\n", DegradedPartial, StatusDegraded, "c"},
		{"broken yaml", "---\nstatus: [ok\n---\n# Heading\nfirst line\n", DegradedAbsent, StatusDegraded, "Heading"},
		{"no front matter", "just text\nmore\n", DegradedAbsent, StatusDegraded, "just text"},
		{"unterminated", "---\nstatus: ok\n", DegradedAbsent, StatusDegraded, "status: ok"},
		{"empty", "", DegradedAbsent, StatusDegraded, ""},
		{"scalar front matter", "---\n42\n---\nx\n", DegradedAbsent, StatusDegraded, "x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := ParseHandoff([]byte(tt.in))
			if h == nil {
				t.Fatal("ParseHandoff returned nil")
			}
			if h.Degraded != tt.wantDegraded || h.Status != tt.wantStatus || h.Conclusion != tt.wantConcl {
				t.Errorf("ParseHandoff = degraded %q status %q conclusion %q; want %q %q %q", h.Degraded, h.Status, h.Conclusion, tt.wantDegraded, tt.wantStatus, tt.wantConcl)
			}
		})
	}
}

// TestParseHandoffUsage: a note's usage (issue 29 item 4) is read in
// the strict tier and salvaged in the next; a note without one, written
// before it, still parses strictly; usage that is not a mapping of
// numbers degrades the note, never fails it.
func TestParseHandoffUsage(t *testing.T) {
	const head = "---\nversion: 2\nstatus: ok\nagent: a\ntask: t\nconclusion: c\nfacts: []\nartifacts: []\ncreated: 2026-11-29T10:00:00Z\n"
	tests := []struct {
		name, usage  string
		wantDegraded Degraded
		want         string // NoteUsage.String, "" for none
	}{
		{"priced", "usage: {requests: 2, prompt_tokens: 1000, cached_tokens: 200, completion_tokens: 30, cost_usd: 0.0123}\n", DegradedNone, "2 requests · prompt 1000 (cached 200) · completion 30 · $0.0123"},
		{"unpriced", "usage: {requests: 1, prompt_tokens: 5, cached_tokens: 0, completion_tokens: 1}\n", DegradedNone, "1 requests · prompt 5 (cached 0) · completion 1"},
		{"written before usage", "", DegradedNone, ""},
		{"salvaged", "facts: one\nusage: {requests: 3, cost_usd: 0.5, prompt_tokens: lots}\n", DegradedPartial, "3 requests · prompt 0 (cached 0) · completion 0 · $0.5000"},
		{"not a mapping", "usage: lots\n", DegradedPartial, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := head + tt.usage + "---\nbody\n"
			if strings.HasPrefix(tt.usage, "facts:") {
				in = strings.Replace(in, "facts: []\n", "", 1)
			}
			h := ParseHandoff([]byte(in))
			got := ""
			if h.Usage != nil {
				got = h.Usage.String()
			}
			if h.Degraded != tt.wantDegraded || got != tt.want || h.Conclusion != "c" {
				t.Errorf("ParseHandoff: degraded %q, usage %q, conclusion %q; want %q, %q, \"c\"", h.Degraded, got, h.Conclusion, tt.wantDegraded, tt.want)
			}
			if h.Extra.Len() != 0 {
				t.Errorf("usage kept as a person's key: %v", h.Extra.Keys())
			}
			if full := h.Full(); (tt.want != "") != strings.Contains(full, "\nusage: "+tt.want) {
				t.Errorf("Full() = %q; want the usage line %q", full, tt.want)
			}
		})
	}
	s := newTestStore(t)
	cost := 0.25
	m, err := s.WriteNote("b", NewNote{Handoff: Handoff{Status: StatusOK, Agent: "x", Conclusion: "c", Usage: &NoteUsage{Requests: 1, PromptTokens: 7, CostUSD: &cost}}})
	if err != nil {
		t.Fatal(err)
	}
	n, err := s.ReadNote("b", m.Ref)
	if err != nil {
		t.Fatal(err)
	}
	if n.Handoff.Degraded != DegradedNone || n.Handoff.Usage == nil || *n.Handoff.Usage.CostUSD != cost || n.Handoff.Usage.PromptTokens != 7 {
		t.Errorf("written and read back: degraded %q usage %+v; want the usage written", n.Handoff.Degraded, n.Handoff.Usage)
	}
}

// TestStatusVocabulary pins constraint 3: there is no "paused".
func TestStatusVocabulary(t *testing.T) {
	for _, s := range []Status{StatusOK, StatusPartial, StatusError, StatusDegraded} {
		if !s.Valid() {
			t.Errorf("%q not valid", s)
		}
	}
	for _, s := range []Status{"paused", "", "OK", "cancelled"} {
		if s.Valid() {
			t.Errorf("%q is valid; the vocabulary is ok|partial|error|degraded", s)
		}
	}
	s := newTestStore(t)
	if _, err := s.WriteNote("b", NewNote{Handoff: Handoff{Status: "paused", Agent: "x"}}); err == nil {
		t.Error("WriteNote accepted status paused")
	}
}

func FuzzParseHandoff(f *testing.F) {
	for _, seed := range []string{
		"---\nversion: 2\nstatus: ok\nconclusion: c\nfacts: [a, b]\n---\nbody",
		"---\nsummary: s\n---\n", "---\n: :\n---\n", "---\r\nstatus: ok\r\n---\r\n", "", "\x00", "---\n- a\n---\n",
		"---\ncreated: not-a-time\nfacts: {a: 1}\n---\n",
		"---\nversion: 2\nstatus: ok\nconclusion: c\nusage: {requests: 2, prompt_tokens: 10, cached_tokens: 0, completion_tokens: 3, cost_usd: 0.01}\n---\n",
		"---\nstatus: ok\nusage: {requests: x, cost_usd: -1}\n---\n", "---\nusage: [1]\n---\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		h := ParseHandoff(data)
		if h == nil {
			t.Fatal("ParseHandoff returned nil")
		}
		if !h.Status.Valid() {
			t.Fatalf("ParseHandoff status %q not in the vocabulary", h.Status)
		}
		_ = h.Render(50)
		_ = h.Full()
		_ = h.Created.Before(time.Now())
	})
}
