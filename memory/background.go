package memory

import (
	"slices"

	"github.com/yagent/yagent/event"
)

// Background delegations (issue 30): the lead does not wait for them, so
// their ends are reported in its next board index — "finished since your
// last call". What it has been shown is the session's, recorded in its
// rollout (delegation_seen), never on the board: a resumed session reports
// only what no call of it has shown yet.

// finished records the end of a background delegation (its note's ref,
// status and conclusion) as not shown yet; a second end of the same ref
// (a recovery after a cut-short record) replaces the first.
func (m *Memory) finished(d event.DelegationEvent) {
	if d.Ref == "" {
		return
	}
	m.unseen = slices.DeleteFunc(m.unseen, func(u event.DelegationEvent) bool { return u.Ref == d.Ref })
	m.unseen = append(m.unseen, d)
}

// seen drops ref from what has not been shown.
func (m *Memory) seen(ref string) {
	m.unseen = slices.DeleteFunc(m.unseen, func(u event.DelegationEvent) bool { return u.Ref == ref })
}

// Unseen returns the background delegations that finished and that no
// board index of the lead has shown yet (MarkSeen), oldest first.
func (s *Session) Unseen() []event.DelegationEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.mem.unseen)
}

// MarkSeen records that the lead was shown the ends of these background
// delegations (one delegation_seen line each, not synced: a crash before
// the next sync reports them once more, never loses one).
func (s *Session) MarkSeen(refs ...string) error {
	for _, ref := range refs {
		if err := s.w.Write(event.Event{Type: event.DelegationSeen, Delegation: &event.DelegationEvent{Ref: ref, Background: true}}, false); err != nil {
			return err
		}
		s.mu.Lock()
		s.mem.seen(ref)
		s.mu.Unlock()
	}
	return nil
}
