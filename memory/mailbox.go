package memory

import "github.com/yagent/yagent/event"

// The mailbox (issue 30 item 4): messages are notes on the board, but
// which of them a session's agent has been shown is the session's,
// recorded in its rollout (message_read), as delegation_seen is for
// background delegations: a resumed session shows only what no board
// index of it has shown yet.

func (m *Memory) markRead(ref string) {
	if ref == "" {
		return
	}
	if m.read == nil {
		m.read = map[string]bool{}
	}
	m.read[ref] = true
}

// Read reports whether a board index of this session has shown the
// message ref.
func (s *Session) Read(ref string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mem.read[ref]
}

// MarkRead records that the session's agent was shown these messages
// (one message_read line each, not synced: a crash before the next sync
// shows them once more, never loses one).
func (s *Session) MarkRead(refs ...string) error {
	for _, ref := range refs {
		if err := s.w.Write(event.Event{Type: event.MessageRead, Text: ref}, false); err != nil {
			return err
		}
		s.mu.Lock()
		s.mem.markRead(ref)
		s.mu.Unlock()
	}
	return nil
}
