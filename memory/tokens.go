package memory

import (
	"github.com/yagent/yagent/event"
	"github.com/yagent/yagent/llm"
)

// Accountant measures how many tokens the next request will carry. The
// anchor is the provider's prompt_tokens of the last response (what the
// provider really counted for the prefix, the history and the tail then);
// only how the history differs from the one that request carried is
// estimated. Compaction (between turns and mid-turn), the pressure line and
// budgets all use this one measure. The anchor is recorded in the rollout
// (an anchor event), so a resumed session measures as the process that
// wrote it would have; a compaction or /clear voids it.
type Accountant struct {
	anchor int // provider's prompt_tokens of the last response
	sent   int // HistoryTokens of the history that request carried
	valid  bool

	// pending is HistoryTokens of the history about to be sent (Sending),
	// paired with the next response's count.
	pending    int
	hasPending bool
}

// HistoryTokens estimates the tokens of msgs, message by message, so that
// the estimate of a history is the sum of its parts (llm.EstimateTokens
// rounds per call).
func HistoryTokens(msgs []llm.Message) int {
	n := 0
	for i := range msgs {
		n += llm.EstimateTokens(msgs[i:i+1], nil)
	}
	return n
}

// Sending tells the measure what history the next request carries, as it
// is sent (older tool outputs squeezed, older rounds compacted): the next
// provider count is paired with it. Without it, the count is paired with
// History().
func (s *Session) Sending(history []llm.Message) {
	n := HistoryTokens(history)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mem.acct.pending, s.mem.acct.hasPending = n, true
}

// Observe takes the provider's prompt_tokens of a response as the anchor
// and records it in the rollout. A response without a count changes
// nothing.
func (s *Session) Observe(resp llm.Response) error {
	if resp.Usage.PromptTokens <= 0 {
		return nil
	}
	s.mu.Lock()
	a := &s.mem.acct
	sent := a.pending
	if !a.hasPending {
		sent = HistoryTokens(s.mem.History(s.interrupted))
	}
	*a = Accountant{anchor: resp.Usage.PromptTokens, sent: sent, valid: true}
	s.mu.Unlock()
	return s.w.Write(event.Event{Type: event.Anchor, Anchor: &event.AnchorEvent{PromptTokens: resp.Usage.PromptTokens, HistoryTokens: sent}}, false)
}

// Measure returns the tokens of the next request if it carries History():
// see MeasureHistory.
func (s *Session) Measure(prefix func() int) int {
	s.mu.Lock()
	history := s.mem.History(s.interrupted)
	s.mu.Unlock()
	return s.MeasureHistory(history, prefix)
}

// MeasureHistory returns the tokens of a request carrying history: the
// anchor plus the estimated difference between history and the history
// the anchored request carried, or — with no anchor (a new or
// just-compacted session) — prefix() (the caller's estimate of the system
// prompt and tool declarations, asked for only then) plus an estimate of
// history.
func (s *Session) MeasureHistory(history []llm.Message, prefix func() int) int {
	s.mu.Lock()
	a := s.mem.acct
	s.mu.Unlock()
	if a.valid {
		return max(a.anchor-a.sent+HistoryTokens(history), 0)
	}
	return prefix() + HistoryTokens(history)
}
