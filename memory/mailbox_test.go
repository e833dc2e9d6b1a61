package memory

import "testing"

// TestMessagesReadSurviveResume: which mailbox messages a session was
// shown is recorded in its rollout, so a resumed session does not show
// them again; the others stay unread.
func TestMessagesReadSurviveResume(t *testing.T) {
	st := newStore(t)
	s, err := st.Create(t.Context(), CreateOptions{Kind: KindSubagent, Cwd: "/w", BoardID: "b"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.MarkRead("mail/a", "mail/b"); err != nil {
		t.Fatal(err)
	}
	if !s.Read("mail/a") || s.Read("mail/c") {
		t.Errorf("Read(a) = %v, Read(c) = %v; want true, false", s.Read("mail/a"), s.Read("mail/c"))
	}
	s.Close()
	r, err := st.Resume(t.Context(), s.ID())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for ref, want := range map[string]bool{"mail/a": true, "mail/b": true, "mail/c": false} {
		if got := r.Read(ref); got != want {
			t.Errorf("resumed Read(%s) = %v; want %v", ref, got, want)
		}
	}
}
