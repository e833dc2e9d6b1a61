package memory

import (
	"fmt"
	"strings"

	"github.com/yagent/yagent/event"
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
	// (the compaction event's Task), shown verbatim after the summary.
	Task string
	// Base is the global index (over every message the session recorded)
	// of Messages[0].
	Base     int
	Messages []llm.Message

	acct Accountant // the token measure's anchor (tokens.go)
	// unseen are background delegations that finished and that no board
	// index has shown the lead yet (background.go).
	unseen []event.DelegationEvent
	// read are the mailbox messages a board index has shown the
	// session's agent (mailbox.go).
	read map[string]bool
}

// Total is the number of messages the session has recorded.
func (m *Memory) Total() int { return m.Base + len(m.Messages) }

// History is what the next request carries: the summary (if any) and the
// messages after it, repaired so the API accepts them (see repair). Tool
// calls left without a result (the process died during them) get one
// saying so; interrupted holds the text for some of them.
func (m *Memory) History(interrupted map[string]string) []llm.Message {
	out := make([]llm.Message, 0, len(m.Messages)+1)
	if m.Summary != "" {
		text := SummaryHeader + "\n\n" + m.Summary
		if m.Task != "" {
			text += "\n\n" + TaskHeader + "\n" + m.Task
		}
		out = append(out, llm.Message{Role: llm.RoleUser, Content: text})
	}
	msgs, _ := repair(m.Messages, interrupted)
	return append(out, msgs...)
}

// Check reports what History repairs in the recorded messages. The
// messages themselves are never changed: their count is the index
// compaction records refer to.
func (m *Memory) Check() Repairs {
	_, rep := repair(m.Messages, nil)
	return rep
}

// Repairs counts what repair changed.
type Repairs struct {
	// Missing are tool calls without a result (answered as interrupted).
	Missing int
	// Orphans are tool results that answer no call before them (a
	// compaction cut or an interleaved write left them); dropped.
	Orphans int
	// Duplicates are second results for one call; dropped.
	Duplicates int
	// Moved are results found after other messages, moved up to follow
	// their call.
	Moved int
	// Empty are assistant messages with neither text nor tool calls;
	// dropped (providers refuse them).
	Empty int
}

// Damaged reports repairs beyond answering interrupted calls, which a
// crash alone never needs: the rollout was damaged or written by two
// processes at once.
func (r Repairs) Damaged() bool { return r.Orphans+r.Duplicates+r.Moved+r.Empty > 0 }

func (r Repairs) String() string {
	var parts []string
	add := func(n int, one, many string) {
		switch {
		case n == 1:
			parts = append(parts, "1 "+one)
		case n > 1:
			parts = append(parts, fmt.Sprintf("%d %s", n, many))
		}
	}
	add(r.Orphans, "tool result that answers no call dropped", "tool results that answer no call dropped")
	add(r.Duplicates, "second result of a call dropped", "second results of calls dropped")
	add(r.Moved, "tool result moved up to its call", "tool results moved up to their calls")
	add(r.Empty, "empty answer dropped", "empty answers dropped")
	add(r.Missing, "tool call without a result answered as interrupted", "tool calls without a result answered as interrupted")
	if len(parts) == 0 {
		return "nothing to repair"
	}
	return strings.Join(parts, ", ")
}

// interruptedResult answers a call the process died during.
const interruptedResult = "error: interrupted — yagent stopped before this call finished; its effects, if any, are unknown"

// repair returns msgs as a conversation every provider accepts: each
// assistant message's tool calls are answered right after it, once each,
// in the order recorded (a result recorded later, after other messages, is
// moved up; a missing one is added, saying the call was interrupted); a
// tool result that answers no call before it is dropped, and so is an
// assistant message with neither text nor tool calls. A result is looked
// for up to the next assistant message that makes a call with one of the
// same ids, so ids reused across turns never pair the wrong result.
func repair(msgs []llm.Message, interrupted map[string]string) ([]llm.Message, Repairs) {
	var rep Repairs
	out := make([]llm.Message, 0, len(msgs))
	var used []bool // results taken out of order; allocated when needed
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		switch {
		case used != nil && used[i]:
			continue
		case m.Role == llm.RoleTool:
			rep.Orphans++
			continue
		case m.Role == llm.RoleAssistant && m.Content == "" && len(m.ToolCalls) == 0:
			rep.Empty++
			continue
		}
		out = append(out, m)
		if m.Role != llm.RoleAssistant || len(m.ToolCalls) == 0 {
			continue
		}
		answered := make([]bool, len(m.ToolCalls))
		block := true // still in the results right after the call
		j := i + 1
	scan:
		for ; j < len(msgs); j++ {
			r := msgs[j]
			if r.Role != llm.RoleTool {
				block = false
				if r.Role == llm.RoleAssistant {
					for _, c := range r.ToolCalls {
						if callIndex(m.ToolCalls, c.ID) >= 0 {
							break scan // that call claims the id from here on
						}
					}
				}
				continue
			}
			if used != nil && used[j] {
				continue
			}
			k := callIndex(m.ToolCalls, r.ToolCallID)
			switch {
			case k < 0:
				if block {
					rep.Orphans++
					i = j // skip it where it stands
				}
				continue
			case answered[k]:
				rep.Duplicates++
			default:
				answered[k] = true
				out = append(out, r)
				if !block {
					rep.Moved++
				}
			}
			if block {
				i = j
			} else {
				if used == nil {
					used = make([]bool, len(msgs))
				}
				used[j] = true
			}
		}
		for k, c := range m.ToolCalls {
			if answered[k] {
				continue
			}
			rep.Missing++
			text := interrupted[c.ID]
			if text == "" {
				text = interruptedResult
			}
			out = append(out, llm.Message{Role: llm.RoleTool, ToolCallID: c.ID, Content: text})
		}
	}
	return out, rep
}

// callIndex is the index of the call with id among calls, or -1.
func callIndex(calls []llm.ToolCall, id string) int {
	for i, c := range calls {
		if c.ID == id {
			return i
		}
	}
	return -1
}

// PendingDelegation is a delegation that started and never finished: the
// process died while it ran.
type PendingDelegation struct {
	event.DelegationEvent
	Turn int
}

// Rebuild replays a rollout's events into memory: messages, the latest
// compaction or clear, a rewind to before a turn, and the token anchor
// recorded since. It also returns the delegations left in flight.
func Rebuild(items []Item) (*Memory, []PendingDelegation) {
	m := &Memory{}
	started := map[string]PendingDelegation{}
	var order []string
	turn := 0
	// before holds the memory as each turn started, for a rewind.
	before := map[int]Memory{}
	for _, it := range items {
		switch it.Type {
		case event.Message:
			if it.Message != nil {
				m.Messages = append(m.Messages, *it.Message)
			}
		case event.TurnStarted:
			turn = it.Turn
			before[turn] = Memory{Summary: m.Summary, Task: m.Task, Messages: m.Messages[:len(m.Messages):len(m.Messages)]}
		case event.Rewound:
			if b, ok := before[it.Turn]; ok && it.Compaction != nil {
				m.rewindTo(b, it.Compaction.Upto)
			}
		case event.Compacted:
			if c := it.Compaction; c != nil {
				m.compactTo(c.Summary, c.Task, c.Upto)
			}
		case event.Cleared:
			if c := it.Compaction; c != nil {
				m.compactTo("", "", c.Upto)
			}
		case event.Anchor:
			if a := it.Anchor; a != nil && a.PromptTokens > 0 {
				m.acct = Accountant{anchor: a.PromptTokens, sent: a.HistoryTokens, valid: true}
			}
		case event.DelegationStarted:
			if d := it.Delegation; d != nil {
				if _, ok := started[d.CallID]; !ok {
					order = append(order, d.CallID)
				}
				started[d.CallID] = PendingDelegation{DelegationEvent: *d, Turn: turn}
			}
		case event.DelegationFinished:
			if d := it.Delegation; d != nil {
				delete(started, d.CallID)
				if d.Background {
					m.finished(*d)
				}
			}
		case event.DelegationSeen:
			if d := it.Delegation; d != nil {
				m.seen(d.Ref)
			}
		case event.MessageRead:
			m.markRead(it.Text)
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

// Live returns the items of a rollout a view shows as the conversation:
// a rewound event drops what came since the turn it names started (as
// Rebuild does; the event itself stays, marking the place), so the turns
// rewound are not shown. Usage and delegations outside the turns dropped
// are kept; totals of spend read every item instead.
func Live(items []Item) []Item {
	var out []Item
	before := map[int][]Item{}
	for _, it := range items {
		switch it.Type {
		case event.TurnStarted:
			before[it.Turn] = out[:len(out):len(out)]
		case event.Rewound:
			if b, ok := before[it.Turn]; ok {
				out = b
			}
		}
		out = append(out, it)
	}
	return out
}

// LiveTurns counts the turns a rollout's conversation still holds: the
// finished ones, less those a rewind took back.
func LiveTurns(items []Item) int {
	n := 0
	before := map[int]int{}
	for _, it := range items {
		switch it.Type {
		case event.TurnStarted:
			before[it.Turn] = n
		case event.TurnFinished:
			n++
		case event.Rewound:
			if b, ok := before[it.Turn]; ok {
				n = b
			}
		}
	}
	return n
}

// rewindTo makes the conversation b's (the memory as a turn started)
// again; the messages recorded stay counted (total), so global indices
// keep growing and compactions after the rewind still refer to the right
// messages.
func (m *Memory) rewindTo(b Memory, total int) {
	m.Summary, m.Task = b.Summary, b.Task
	m.Messages = append([]llm.Message(nil), b.Messages...)
	m.Base = max(total-len(m.Messages), 0)
	m.acct = Accountant{}
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
