package blackboard

import (
	"strings"
	"testing"
)

// A stem reserved before the work (a writing delegation's branch and
// worktree are named after it) is the note's name when it is written,
// never replaced by another note and never given again.
func TestReservedStem(t *testing.T) {
	s := newTestStore(t)
	stem := s.NewStem()
	if !IsNoteStem(stem) {
		t.Fatalf("NewStem() = %q; not a stem", stem)
	}
	m, err := s.WriteNote("b", NewNote{Handoff: Handoff{Status: StatusOK, Agent: "worker", Conclusion: "done"}, Stem: stem})
	if err != nil || m.Stem != stem {
		t.Fatalf("WriteNote with stem %s = %+v, %v", stem, m, err)
	}
	if _, err := s.WriteNote("b", NewNote{Handoff: Handoff{Status: StatusOK, Agent: "worker", Conclusion: "again"}, Stem: stem}); err == nil {
		t.Error("a second note took a reserved stem that was written")
	}
	other, err := s.WriteNote("b", NewNote{Handoff: Handoff{Status: StatusOK, Agent: "worker", Conclusion: "next"}})
	if err != nil || other.Stem == stem {
		t.Errorf("the next note: %+v, %v; want a stem of its own", other, err)
	}
	if _, err := s.WriteNote("b", NewNote{Handoff: Handoff{Status: StatusOK, Agent: "worker"}, Stem: "../x"}); err == nil || !strings.Contains(err.Error(), "no note stem") {
		t.Errorf("a stem of the wrong shape: %v", err)
	}
}
