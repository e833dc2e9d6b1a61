package memory

import "github.com/yagent/yagent/llm"

// Accountant measures how many tokens the next request will carry. The
// anchor is the provider's prompt_tokens of the last response (what the
// provider really counted for the prefix and the history then); only what
// was added since is estimated. Compaction, the pressure line and budgets
// all use this one measure.
type Accountant struct {
	anchor      int // provider's prompt_tokens of the last response
	anchorCount int // history messages that request carried
	valid       bool
}

func (a *Accountant) reset() { *a = Accountant{} }

// Observe records the provider's count for a request that carried
// historyLen messages of history.
func (s *Session) Observe(resp llm.Response) {
	if resp.Usage.PromptTokens <= 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.acct = Accountant{anchor: resp.Usage.PromptTokens, anchorCount: len(s.mem.Messages), valid: true}
}

// Measure returns the tokens of the next request: the anchor plus an
// estimate of the messages added since, or — with no anchor yet (a new or
// just-compacted session) — prefix() (the caller's estimate of the system
// prompt and tool declarations, asked for only then) plus an estimate of
// the whole history.
func (s *Session) Measure(prefix func() int) int {
	s.mu.Lock()
	if s.acct.valid && s.acct.anchorCount <= len(s.mem.Messages) {
		defer s.mu.Unlock()
		return s.acct.anchor + llm.EstimateTokens(s.mem.Messages[s.acct.anchorCount:], nil)
	}
	history := s.mem.History(s.interrupted)
	s.mu.Unlock()
	return prefix() + llm.EstimateTokens(history, nil)
}
