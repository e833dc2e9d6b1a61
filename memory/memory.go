package memory

import (
	"github.com/yagent/yagent/llm"
)

// SummaryHeader starts the message that stands in for compacted history.
const SummaryHeader = "[Summary of the earlier conversation, written at compaction. The messages it replaces are gone; the board and the notebook still hold what was saved there.]"

// TaskHeader introduces, in the summary message, the request a compaction
// in the middle of a turn cut into, verbatim.
const TaskHeader = "[The request the summarised part was working on, verbatim:]"

// Memory is the live conversation of a session: the latest compaction
// summary and the messages after it.
type Memory struct {
	Summary string
	// Task is the request of the turn a mid-turn compaction cut into
	// (CompactedItem.Task), shown verbatim after the summary.
	Task string
	// Base is the global index (over every message the session recorded)
	// of Messages[0].
	Base     int
	Messages []llm.Message

	acct Accountant // the token measure's anchor (tokens.go)
}

// Total is the number of messages the session has recorded.
func (m *Memory) Total() int { return m.Base + len(m.Messages) }

// History is what the next request carries: the summary (if any) and the
// messages after it. Tool calls left without a result (the process died
// during them) get one saying so, so the history stays valid for the API.
func (m *Memory) History(interrupted map[string]string) []llm.Message {
	out := make([]llm.Message, 0, len(m.Messages)+1)
	if m.Summary != "" {
		text := SummaryHeader + "\n\n" + m.Summary
		if m.Task != "" {
			text += "\n\n" + TaskHeader + "\n" + m.Task
		}
		out = append(out, llm.Message{Role: llm.RoleUser, Content: text})
	}
	return append(out, repair(m.Messages, interrupted)...)
}

// repair adds a result for every tool call that has none: the results of a
// call follow its assistant message, and missing ones are appended after
// the present ones.
func repair(msgs []llm.Message, interrupted map[string]string) []llm.Message {
	out := make([]llm.Message, 0, len(msgs))
	for i := 0; i < len(msgs); {
		m := msgs[i]
		out = append(out, m)
		i++
		if m.Role != llm.RoleAssistant || len(m.ToolCalls) == 0 {
			continue
		}
		got := map[string]bool{}
		for i < len(msgs) && msgs[i].Role == llm.RoleTool {
			got[msgs[i].ToolCallID] = true
			out = append(out, msgs[i])
			i++
		}
		for _, c := range m.ToolCalls {
			if got[c.ID] {
				continue
			}
			text := interrupted[c.ID]
			if text == "" {
				text = "error: interrupted — yagent stopped before this call finished; its effects, if any, are unknown"
			}
			out = append(out, llm.Message{Role: llm.RoleTool, ToolCallID: c.ID, Content: text})
		}
	}
	return out
}

// PendingDelegation is a delegation that started and never finished: the
// process died while it ran.
type PendingDelegation struct {
	DelegationItem
	Turn int
}

// Rebuild replays a rollout's items into memory: messages, the latest
// compaction or clear, and the token anchor recorded since. It also returns
// the delegations left in flight.
func Rebuild(items []Item) (*Memory, []PendingDelegation) {
	m := &Memory{}
	started := map[string]PendingDelegation{}
	var order []string
	turn := 0
	for _, it := range items {
		switch it.Type {
		case ItemMessage:
			if it.Message != nil {
				m.Messages = append(m.Messages, *it.Message)
			}
		case ItemTurnStarted:
			turn = it.Turn
		case ItemCompacted:
			if c := it.Compacted; c != nil {
				m.compactTo(c.Summary, c.Task, c.Upto)
			}
		case ItemCleared:
			m.compactTo("", "", it.Upto)
		case ItemAnchor:
			if a := it.Anchor; a != nil && a.PromptTokens > 0 {
				m.acct = Accountant{anchor: a.PromptTokens, sent: a.HistoryTokens, valid: true}
			}
		case ItemDelegationStarted:
			if d := it.Delegation; d != nil {
				if _, ok := started[d.CallID]; !ok {
					order = append(order, d.CallID)
				}
				started[d.CallID] = PendingDelegation{DelegationItem: *d, Turn: turn}
			}
		case ItemDelegationFinished:
			if d := it.Delegation; d != nil {
				delete(started, d.CallID)
			}
		}
	}
	var pending []PendingDelegation
	for _, id := range order {
		if p, ok := started[id]; ok {
			pending = append(pending, p)
		}
	}
	return m, pending
}

// compactTo drops messages before global index upto, sets the summary and
// voids the token anchor (it counted the history that is gone).
func (m *Memory) compactTo(summary, task string, upto int) {
	drop := min(max(upto-m.Base, 0), len(m.Messages))
	m.Messages = append([]llm.Message(nil), m.Messages[drop:]...)
	m.Base += drop
	m.Summary, m.Task = summary, task
	m.acct = Accountant{}
}
