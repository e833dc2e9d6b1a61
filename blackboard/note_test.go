package blackboard

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestWriteReadRoundTrip(t *testing.T) {
	s := newTestStore(t)
	body := "# Report\n\nEvery line of the deliverable, in full.\n"
	m, err := s.WriteNote("b", NewNote{
		Handoff: Handoff{Status: StatusPartial, Agent: "Explorer", Task: "map the repo", Conclusion: "mapped half", Reason: "step budget", Facts: []string{"f1", "f2"}},
		Body:    body,
	})
	if err != nil {
		t.Fatal(err)
	}
	if m.Agent != "explorer" || !strings.HasPrefix(m.Ref, "explorer/") || m.BodySize != len(body) {
		t.Fatalf("meta = %+v", m)
	}
	n, err := s.ReadNote("b", m.Ref)
	if err != nil {
		t.Fatal(err)
	}
	if n.Body != body {
		t.Errorf("body = %q; want %q", n.Body, body)
	}
	want := Handoff{Version: 2, Status: StatusPartial, Agent: "explorer", Task: "map the repo", Conclusion: "mapped half", Reason: "step budget",
		Facts: []string{"f1", "f2"}, Artifacts: []string{}, Created: t0.Add(time.Second)}
	if diff := cmp.Diff(want, *n.Handoff); diff != "" {
		t.Errorf("handoff mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(m, n.Meta); diff != "" {
		t.Errorf("meta of write and read differ (-write +read):\n%s", diff)
	}
}

// TestWriteNoteArtifactIDsWinOverHandoffArtifacts pins constraint 5: the
// artifacts the system observed replace the ones the model reported.
func TestWriteNoteArtifactIDsWinOverHandoffArtifacts(t *testing.T) {
	s := newTestStore(t)
	tests := []struct {
		name            string
		model, observed []string
		want            []string
	}{
		{"observed wins", []string{"claimed.go", "imagined.txt"}, []string{"internal/real.go"}, []string{"internal/real.go"}},
		{"nothing observed keeps the model's", []string{"claimed.go"}, nil, []string{"claimed.go"}},
		{"neither", nil, nil, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := s.WriteNote("b", NewNote{Handoff: Handoff{Status: StatusOK, Agent: "worker", Artifacts: tt.model}, Body: "x", ObservedArtifacts: tt.observed})
			if err != nil {
				t.Fatal(err)
			}
			n, err := s.ReadNote("b", m.Ref)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(n.Handoff.Artifacts, tt.want) {
				t.Errorf("artifacts on disk = %q; want %q", n.Handoff.Artifacts, tt.want)
			}
		})
	}
}

// TestReadV1NoteSynthesizesHandoff pins constraint 5's second half: a v1
// note reads with a handoff synthesised from its summary, marked v1, and
// the file is never rewritten.
func TestReadV1NoteSynthesizesHandoff(t *testing.T) {
	s := newTestStore(t)
	stem := "20251001T120000Z_abcd-99-000001"
	raw := "---\nsummary: Legacy finding about the parser.\nagent: explorer\n---\nThe old body.\n"
	writeRaw(t, s, "b", "explorer", stem, raw)
	path := filepath.Join(AgentDir(s.root, "b", "explorer"), stem+".md")
	before, _ := os.Stat(path)

	n, err := s.ReadNote("b", "explorer/"+stem)
	if err != nil {
		t.Fatal(err)
	}
	if n.Handoff.Degraded != DegradedV1 || n.Handoff.Conclusion != "Legacy finding about the parser." || n.Handoff.Version != 1 {
		t.Errorf("handoff = %+v; want v1, conclusion from summary", n.Handoff)
	}
	if n.Body != "The old body.\n" {
		t.Errorf("body = %q", n.Body)
	}
	if _, err := s.ListNotes("b", ListOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.BuildIndex("b", testIndex); err != nil {
		t.Fatal(err)
	}
	after, _ := os.Stat(path)
	data, _ := os.ReadFile(path)
	if string(data) != raw || !after.ModTime().Equal(before.ModTime()) {
		t.Error("reading a v1 note rewrote it")
	}
}

// TestListNotes pins constraint 12: NoteMeta carries no body, only its
// size, and listing is newest first with the agent filter.
func TestListNotes(t *testing.T) {
	if _, ok := reflect.TypeFor[NoteMeta]().FieldByName("Body"); ok {
		t.Fatal("NoteMeta has a Body field; listing must stay cheap (constraint 12)")
	}
	s := newTestStore(t)
	a := put(t, s, "b", "explorer", "first")
	b := put(t, s, "b", "reviewer", "second")
	c := put(t, s, "b", "explorer", "third")
	res, err := s.ListNotes("b", ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var refs []string
	for _, m := range res.Notes {
		refs = append(refs, m.Ref)
	}
	if want := []string{c.Ref, b.Ref, a.Ref}; !slices.Equal(refs, want) {
		t.Errorf("ListNotes = %q; want newest first %q", refs, want)
	}
	if res.Notes[0].BodySize == 0 || res.Notes[0].Conclusion != "third" {
		t.Errorf("meta = %+v", res.Notes[0])
	}
	res, _ = s.ListNotes("b", ListOptions{Agent: "explorer", Limit: 1})
	if len(res.Notes) != 1 || res.Notes[0].Ref != c.Ref {
		t.Errorf("agent+limit filter = %+v", res.Notes)
	}
	if res, _ := s.ListNotes("missing", ListOptions{}); len(res.Notes) != 0 {
		t.Errorf("missing board listed %d notes", len(res.Notes))
	}
}

// TestListNotesByAgentNormalises pins constraint 8: both spellings of a
// repo-qualified agent reach the same notes.
func TestListNotesByAgentNormalises(t *testing.T) {
	s := newTestStore(t)
	m := put(t, s, "b", "explorer:yagent", "qualified")
	for _, spelling := range []string{"explorer:yagent", "yagent_explorer", "YAGENT_Explorer"} {
		res, err := s.ListNotesByAgent("b", spelling)
		if err != nil || len(res.Notes) != 1 || res.Notes[0].Ref != m.Ref {
			t.Errorf("ListNotesByAgent(%q) = %+v, %v; want %s", spelling, res.Notes, err, m.Ref)
		}
	}
}

func TestReadNoteErrors(t *testing.T) {
	s := newTestStore(t)
	put(t, s, "b", "explorer", "x")
	for _, ref := range []string{"explorer/20261129T100001Z_ffff-1-000001", "../../etc/passwd", "explorer", "a/b/c"} {
		if _, err := s.ReadNote("b", ref); err == nil || !strings.Contains(err.Error(), ref) {
			t.Errorf("ReadNote(%q) = %v; want an error naming the ref", ref, err)
		}
	}
	if _, err := s.ReadNote("", "explorer/20261129T100001Z_e9fb-4242-000001"); err == nil {
		t.Error("ReadNote with an empty board succeeded")
	}
}

func TestEmptyBodyFallsBackToRenderedHandoff(t *testing.T) {
	s := newTestStore(t)
	m, err := s.WriteNote("b", NewNote{Handoff: Handoff{Status: StatusError, Agent: "w", Task: "t", Reason: "boom"}})
	if err != nil {
		t.Fatal(err)
	}
	n, _ := s.ReadNote("b", m.Ref)
	if !strings.Contains(n.Body, "reason: boom") {
		t.Errorf("body of a note written without one = %q; want the rendered handoff", n.Body)
	}
}

// TestKillSwitch pins constraint 2's last rule: YAGENT_BLACKBOARD=0 stops
// write, read, index and GC through the one predicate Enabled, decided when
// the store is opened (OpenEnv) — the process environment is not read
// afterwards.
func TestKillSwitch(t *testing.T) {
	root := filepath.Join(t.TempDir(), "notes")
	env := map[string]string{"YAGENT_NOTES_ROOT": root}
	on := OpenEnv(func(k string) string { return env[k] })
	if !on.Enabled() || on.Root() != root {
		t.Fatalf("OpenEnv without the switch: Enabled() = %v, Root() = %q; want true, %q", on.Enabled(), on.Root(), root)
	}
	m := put(t, on, "b", "explorer", "x")
	env[KillSwitch] = "0"
	s := OpenEnv(func(k string) string { return env[k] })
	if s.Enabled() {
		t.Fatal("Enabled() of a store opened with YAGENT_BLACKBOARD=0")
	}
	// The environment is read when the store is opened, never later.
	t.Setenv(KillSwitch, "0")
	if !on.Enabled() {
		t.Error("a store opened on was switched off by the process environment")
	}
	if _, err := on.ListNotes("b", ListOptions{}); err != nil {
		t.Errorf("ListNotes on the store opened on = %v", err)
	}
	if _, err := s.WriteNote("b", NewNote{Handoff: Handoff{Status: StatusOK}}); err != ErrDisabled {
		t.Errorf("WriteNote = %v; want ErrDisabled", err)
	}
	if _, err := s.ReadNote("b", m.Ref); err != ErrDisabled {
		t.Errorf("ReadNote = %v; want ErrDisabled", err)
	}
	if idx, _ := s.BuildIndex("b", testIndex); idx.Text != "" {
		t.Errorf("BuildIndex = %q; want nothing", idx.Text)
	}
	if _, err := s.GC(GCOptions{MaxNotesPerBoard: 1}, t0); err != ErrDisabled {
		t.Errorf("GC = %v; want ErrDisabled", err)
	}
	if _, err := s.ListNotes("b", ListOptions{}); err != ErrDisabled {
		t.Errorf("ListNotes = %v; want ErrDisabled", err)
	}
	if _, err := s.Boards(); err != ErrDisabled {
		t.Errorf("Boards = %v; want ErrDisabled", err)
	}
	if _, err := s.ResolveRefs("b", []string{m.Ref}, PackOptions{}); err != ErrDisabled {
		t.Errorf("ResolveRefs = %v; want ErrDisabled", err)
	}
}

// TestHandoffKeyRoundTrips pins the optional key a writer gives its note to
// find it again (batch plans' --resume): it survives write and read, also
// through the salvage tier, and a note without one has no key line at all.
func TestHandoffKeyRoundTrips(t *testing.T) {
	s := newTestStore(t)
	m, err := s.WriteNote("b", NewNote{Handoff: Handoff{Status: StatusOK, Agent: "explorer", Key: "batch:scan"}, Body: "x"})
	if err != nil {
		t.Fatal(err)
	}
	n, err := s.ReadNote("b", m.Ref)
	if err != nil {
		t.Fatal(err)
	}
	if n.Handoff.Key != "batch:scan" || n.Handoff.Degraded != DegradedNone {
		t.Errorf("read back key %q (degraded %q); want %q from the strict tier", n.Handoff.Key, n.Handoff.Degraded, "batch:scan")
	}
	plain, err := s.WriteNote("b", NewNote{Handoff: Handoff{Status: StatusOK, Agent: "explorer"}, Body: "x"})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(s.BoardDir("b"), filepath.FromSlash(plain.Ref)+".md"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "key:") {
		t.Errorf("a note without a key has a key line:\n%s", data)
	}
	salvaged := ParseHandoff([]byte("---\nversion: 2\nstatus: ok\nfacts: one\nkey: batch:x\n---\nbody\n"))
	if salvaged.Degraded != DegradedPartial || salvaged.Key != "batch:x" {
		t.Errorf("salvage tier: degraded %q key %q; want partial and batch:x", salvaged.Degraded, salvaged.Key)
	}
}

// TestHandoffFollowUpFields pins a follow-up's two fields (issue 30): the
// sub-agent session a note's history is in (`session:`) and the note a
// follow-up replaces (`supersedes:`) survive write and read, the salvage
// tier too; they are the handoff's own keys (never a person's), render
// (supersedes for a model, session for a person only), a note without
// them has neither line, and the index marks a note a newer one
// supersedes.
func TestHandoffFollowUpFields(t *testing.T) {
	s := newTestStore(t)
	m, err := s.WriteNote("b", NewNote{Handoff: Handoff{Status: StatusOK, Agent: "explorer", Conclusion: "again",
		Session: "20261201T101500-3f2a1c", Supersedes: "explorer/20261201T101500Z_ab12-4242-000001"}, Body: "x"})
	if err != nil {
		t.Fatal(err)
	}
	n, err := s.ReadNote("b", m.Ref)
	if err != nil {
		t.Fatal(err)
	}
	h := n.Handoff
	if h.Session != "20261201T101500-3f2a1c" || h.Supersedes != "explorer/20261201T101500Z_ab12-4242-000001" || h.Degraded != DegradedNone || h.Extra.Len() != 0 {
		t.Errorf("read back session %q supersedes %q (degraded %q, extra %v); want both from the strict tier", h.Session, h.Supersedes, h.Degraded, h.Extra.Keys())
	}
	if r := h.Render(0); !strings.Contains(r, "\nsupersedes: explorer/20261201T101500Z_ab12-4242-000001") || strings.Contains(r, "session:") {
		t.Errorf("Render = %q; want the supersedes line and no session line", r)
	}
	if full := h.Shown(func(s string) string { return s }).Full(); !strings.Contains(full, "\nsession: 20261201T101500-3f2a1c") || !strings.Contains(full, "\nsupersedes: ") {
		t.Errorf("Full = %q; want the session and supersedes lines", full)
	}
	plain, err := s.WriteNote("b", NewNote{Handoff: Handoff{Status: StatusOK, Agent: "explorer"}, Body: "x"})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(s.BoardDir("b"), filepath.FromSlash(plain.Ref)+".md"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "session:") || strings.Contains(string(data), "supersedes:") {
		t.Errorf("a note without a follow-up's fields has their lines:\n%s", data)
	}
	// The index marks a listed note a newer listed note supersedes.
	next, err := s.WriteNote("b", NewNote{Handoff: Handoff{Status: StatusOK, Agent: "explorer", Conclusion: "further", Supersedes: m.Ref}, Body: "y"})
	if err != nil {
		t.Fatal(err)
	}
	idx, err := s.BuildIndex("b", testIndex)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(idx.Text, "- "+m.Ref+" [ok, superseded] again") || !strings.Contains(idx.Text, "- "+next.Ref+" [ok] further") {
		t.Errorf("index:\n%s\nwant %s marked superseded, %s not", idx.Text, m.Ref, next.Ref)
	}
	salvaged := ParseHandoff([]byte("---\nversion: 2\nstatus: ok\nfacts: one\nsession: s1\nsupersedes: a/b\n---\nbody\n"))
	if salvaged.Degraded != DegradedPartial || salvaged.Session != "s1" || salvaged.Supersedes != "a/b" {
		t.Errorf("salvage tier: degraded %q session %q supersedes %q; want partial, s1 and a/b", salvaged.Degraded, salvaged.Session, salvaged.Supersedes)
	}
}
