package agents

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/yagent/yagent/llm"
)

// EventType names an event of the --json stream. The names and fields are
// documented in README.md and stable.
type EventType string

const (
	EventTurnStarted EventType = "turn_started"
	EventTextDelta   EventType = "text_delta"
	// EventReasoningDelta carries the model's reasoning as it streams:
	// never part of the answer.
	EventReasoningDelta     EventType = "reasoning_delta"
	EventToolCall           EventType = "tool_call"
	EventToolResult         EventType = "tool_result"
	EventUsage              EventType = "usage"
	EventTurnFinished       EventType = "turn_finished"
	EventError              EventType = "error"
	EventRetry              EventType = "retry"
	EventNotice             EventType = "notice"
	EventDelegationStarted  EventType = "delegation_started"
	EventDelegationFinished EventType = "delegation_finished"
	EventNoteSaved          EventType = "note_saved"
	// Batch plans (yagent batch).
	EventBatchStarted      EventType = "batch_started"
	EventDelegationSkipped EventType = "delegation_skipped"
	EventBatchFinished     EventType = "batch_finished"
	// EventResult ends every --json stream of yagent run, resume and
	// batch: what a script reads when it does not follow the stream.
	EventResult EventType = "result"
)

// Event is one thing that happened in a run, for printers and scripts.
type Event struct {
	Type  EventType `json:"type"`
	Time  time.Time `json:"time"`
	Agent string    `json:"agent"`
	// Depth is 0 for the lead, 1 for its sub-agents.
	Depth int `json:"depth"`
	// Parent is the call id of the delegation a sub-agent's event belongs
	// to (its delegation_started's call_id): parallel sub-agents of one
	// name are told apart by it.
	Parent string `json:"parent,omitempty"`
	Text   string `json:"text,omitempty"`
	// Step counts model calls within the turn, from 1.
	Step       int              `json:"step,omitempty"`
	Tool       *ToolEvent       `json:"tool,omitempty"`
	Usage      *UsageEvent      `json:"usage,omitempty"`
	Delegation *DelegationEvent `json:"delegation,omitempty"`
	Note       *NoteEvent       `json:"note,omitempty"`
	Batch      *BatchEvent      `json:"batch,omitempty"`
	Result     *ResultEvent     `json:"result,omitempty"`
	// Reason says why a turn finished: answer, agent_exit, max_steps,
	// cancelled, error.
	Reason string `json:"reason,omitempty"`
	Error  string `json:"error,omitempty"`
}

// ToolEvent describes a tool call or its result.
type ToolEvent struct {
	CallID  string          `json:"call_id"`
	Name    string          `json:"name"`
	Args    json.RawMessage `json:"args,omitempty"`
	Summary string          `json:"summary,omitempty"`
	IsError bool            `json:"is_error,omitempty"`
	Bytes   int             `json:"bytes,omitempty"`
	Quiet   bool            `json:"quiet,omitempty"`
}

// UsageEvent reports tokens of one request, or totals at turn end: how
// many requests, their tokens (llm.Usage, embedded: its JSON fields are
// this event's, between requests and elapsed_ms) and how long.
type UsageEvent struct {
	Requests int `json:"requests"`
	llm.Usage
	ElapsedMS int64 `json:"elapsed_ms,omitempty"`
}

// Add accumulates u's requests and tokens.
func (t *UsageEvent) Add(u UsageEvent) {
	t.Requests += u.Requests
	t.Usage.Add(u.Usage)
}

// DelegationEvent describes a delegation starting or finishing. In a
// batch plan it is also a row of the report: ID (= CallID) is the plan's
// id, Status may be skipped, abandoned or not_started, Resumed marks a note
// reused from an earlier run.
type DelegationEvent struct {
	ID         string      `json:"id,omitempty"`
	CallID     string      `json:"call_id"`
	Agent      string      `json:"agent"`
	Task       string      `json:"task,omitempty"`
	Status     string      `json:"status,omitempty"`
	Ref        string      `json:"ref,omitempty"`
	Conclusion string      `json:"conclusion,omitempty"`
	Usage      *UsageEvent `json:"usage,omitempty"`
	ElapsedMS  int64       `json:"elapsed_ms,omitempty"`
	Reason     string      `json:"reason,omitempty"`
	Resumed    bool        `json:"resumed,omitempty"`
}

// BatchEvent describes a batch plan's run: at batch_started the plan, at
// batch_finished also the report (one row per delegation, in plan order),
// the counts by status and the totals.
type BatchEvent struct {
	Plan        string            `json:"plan"`
	Board       string            `json:"board"`
	Delegations int               `json:"delegations"`
	Parallel    int               `json:"parallel"`
	Resume      bool              `json:"resume"`
	Rows        []DelegationEvent `json:"rows,omitempty"`
	Counts      map[string]int    `json:"counts,omitempty"`
	Usage       *UsageEvent       `json:"usage,omitempty"`
	ElapsedMS   int64             `json:"elapsed_ms,omitempty"`
	Cancelled   bool              `json:"cancelled,omitempty"`
}

// Result statuses: how a run ended.
const (
	ResultOK        = "ok"
	ResultError     = "error"
	ResultCancelled = "cancelled"
	// ResultMaxSteps is a turn stopped at its step budget.
	ResultMaxSteps = "max_steps"
	// ResultTruncated is an answer the model's output limit cut.
	ResultTruncated = "truncated"
)

// ResultEvent is how a run ended, the last event of a --json stream (as
// claude -p's result): the session to resume, the answer, the status, the
// tokens of every request the run made (sub-agents included), its cost
// when the model's price is configured, and the wall time.
type ResultEvent struct {
	Session string `json:"session"`
	// Status is ok, error, cancelled, max_steps or truncated; a batch is
	// ok when every delegation succeeded (ok or partial).
	Status string `json:"status"`
	// Answer is the director's final answer; for a batch, the counts by
	// status ("2 ok, 1 skipped").
	Answer string `json:"answer"`
	// Error says what went wrong when Status is not ok.
	Error string      `json:"error,omitempty"`
	Usage *UsageEvent `json:"usage"`
	// CostUSD is the tokens at models.<default>.price, absent when no
	// price is configured.
	CostUSD   *float64 `json:"cost_usd,omitempty"`
	ElapsedMS int64    `json:"elapsed_ms"`
}

// NoteEvent is a write to the lead's notebook, shown to the person.
type NoteEvent struct {
	Action      string `json:"action"` // created, saved, deleted, pinned, unpinned
	Name        string `json:"name"`
	Description string `json:"description"`
	Body        string `json:"body"`
	PrevBody    string `json:"prev_body"`
}

// Sink receives events. Implementations must be safe for concurrent use:
// parallel tools and sub-agents emit at once.
type Sink interface {
	Emit(Event)
}

// SinkFunc adapts a function to Sink.
type SinkFunc func(Event)

// Emit calls f.
func (f SinkFunc) Emit(e Event) { f(e) }

// Discard drops every event.
var Discard Sink = SinkFunc(func(Event) {})

// Recorder collects events in memory (for tests).
type Recorder struct {
	mu     sync.Mutex
	events []Event
}

// Emit records e.
func (r *Recorder) Emit(e Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

// Events returns a copy of what was recorded.
func (r *Recorder) Events() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Event(nil), r.events...)
}
