package blackboard

import (
	"fmt"
	"strings"
	"testing"
)

// TestResolveRefsMaxLimit pins constraint 8's limit: at most 10 refs are
// resolved. The fixtures are twelve distinct notes — identical refs would
// let deduplication make the test pass vacuously.
func TestResolveRefsMaxLimit(t *testing.T) {
	s := newTestStore(t)
	var refs []string
	for i := range 12 {
		refs = append(refs, put(t, s, "b", fmt.Sprintf("agent%02d", i), fmt.Sprintf("finding %d", i)).Ref)
	}
	seen := map[string]bool{}
	for _, r := range refs {
		seen[r] = true
	}
	if len(seen) != 12 {
		t.Fatalf("fixtures are not distinct: %d unique of 12", len(seen))
	}
	pack, err := s.ResolveRefs("b", refs, PackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(pack.Resolved) != MaxContextRefs || len(pack.Dropped) != 2 || len(pack.Unresolved) != 0 {
		t.Fatalf("resolved %d, dropped %d, unresolved %d; want 10, 2, 0", len(pack.Resolved), len(pack.Dropped), len(pack.Unresolved))
	}
	for i, m := range pack.Resolved {
		if m.Ref != refs[i] {
			t.Errorf("resolved[%d] = %s; want %s (order kept)", i, m.Ref, refs[i])
		}
	}
	if !strings.Contains(pack.Text, refs[11]) || !strings.Contains(pack.Text, "over the limit of 10") {
		t.Errorf("pack header does not report the dropped refs:\n%.300s", pack.Text)
	}
}

// TestResolveRefsAgentRefMissingReportsUnresolved pins constraint 8: a ref
// that names nothing is counted in Unresolved and shown in the header, and
// an agent ref in either spelling resolves to that agent's newest note.
func TestResolveRefsAgentRefMissingReportsUnresolved(t *testing.T) {
	s := newTestStore(t)
	put(t, s, "b", "explorer:yagent", "older")
	newest := put(t, s, "b", "explorer:yagent", "newest")
	pack, err := s.ResolveRefs("b", []string{"yagent_explorer", "reviewer", "ghost/20261129T100001Z_abcd-1-000001", "explorer:yagent"}, PackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(pack.Resolved) != 1 || pack.Resolved[0].Ref != newest.Ref {
		t.Errorf("resolved = %+v; want only the newest explorer note (both spellings, inlined once)", pack.Resolved)
	}
	want := []string{"reviewer", "ghost/20261129T100001Z_abcd-1-000001"}
	if strings.Join(pack.Unresolved, ",") != strings.Join(want, ",") {
		t.Errorf("unresolved = %q; want %q", pack.Unresolved, want)
	}
	header, _, _ := strings.Cut(pack.Text, "\n")
	if !strings.Contains(header, "unresolved: 2 (reviewer, ghost/") {
		t.Errorf("header %q does not report the unresolved refs", header)
	}
}

// TestContextPackBudgetTruncationKeepsExcerpt pins constraint 8's budget
// rule: over budget every note keeps an excerpt rather than being dropped.
func TestContextPackBudgetTruncationKeepsExcerpt(t *testing.T) {
	s := newTestStore(t)
	var refs []string
	for i := range 3 {
		body := fmt.Sprintf("START-%d\n", i) + strings.Repeat(fmt.Sprintf("line of note %d\n", i), 400)
		m, err := s.WriteNote("b", NewNote{Handoff: Handoff{Status: StatusOK, Agent: "explorer", Conclusion: fmt.Sprintf("c%d", i)}, Body: body})
		if err != nil {
			t.Fatal(err)
		}
		refs = append(refs, m.Ref)
	}
	small := put(t, s, "b", "reviewer", "short one")
	refs = append(refs, small.Ref)
	pack, err := s.ResolveRefs("b", refs, PackOptions{Budget: 3000})
	if err != nil {
		t.Fatal(err)
	}
	if !pack.Truncated {
		t.Fatal("pack over budget not marked truncated")
	}
	for i := range 3 {
		if !strings.Contains(pack.Text, fmt.Sprintf("START-%d", i)) {
			t.Errorf("note %d lost its excerpt", i)
		}
		if !strings.Contains(pack.Text, "read_note "+refs[i]+" for the rest") {
			t.Errorf("note %d excerpt does not say how to read the rest", i)
		}
	}
	if !strings.Contains(pack.Text, "Full text from reviewer: short one") {
		t.Error("the short note was cut although it fits")
	}
	if n := len([]rune(pack.Text)); n > 3000+3*300 {
		t.Errorf("pack is %d runes for a 3000 budget", n)
	}
	full, _ := s.ResolveRefs("b", refs, PackOptions{})
	if full.Truncated || strings.Contains(full.Text, "[excerpt") {
		t.Error("an unlimited pack was truncated")
	}
}

func TestResolveRefsArtifactInfo(t *testing.T) {
	s := newTestStore(t)
	m, _ := s.WriteNote("b", NewNote{Handoff: Handoff{Status: StatusOK, Agent: "worker"}, Body: "b", ObservedArtifacts: []string{"a.go", "gone.go"}})
	info := func(id string) (string, bool) {
		if id == "a.go" {
			return "120 bytes", true
		}
		return "", false
	}
	pack, _ := s.ResolveRefs("b", []string{m.Ref}, PackOptions{ArtifactInfo: info})
	if !strings.Contains(pack.Text, "a.go (120 bytes)") || !strings.Contains(pack.Text, "gone.go (missing)") {
		t.Errorf("artifacts not annotated:\n%s", pack.Text)
	}
}
