// Package event is yagent's one vocabulary of what happens in a run: the
// Event that `--json` prints, that every view (the plain and batch
// printers, the TUI, the web view) renders, and that a rollout records,
// one per line (as codex-rs's protocol EventMsg and adk-go's
// session.Event). The stream's own events (deltas, tool calls and
// results, usage, delegations, the result) and what a rollout needs to
// rebuild a conversation (the session meta, whole messages with tool
// output, reasoning and provider extras, turns, compactions and the token
// anchor) are one type. It imports only llm.
package event

import (
	"encoding/json"
	"math"
	"time"

	"github.com/yagent/yagent/llm"
)

// Type names an event. The names and fields of the --json stream are
// documented in README.md and stable; so are those a rollout records.
type Type string

// The --json stream.
const (
	TurnStarted Type = "turn_started"
	TextDelta   Type = "text_delta"
	// ReasoningDelta carries the model's reasoning as it streams: never
	// part of the answer.
	ReasoningDelta     Type = "reasoning_delta"
	ToolCall           Type = "tool_call"
	ToolResult         Type = "tool_result"
	Usage              Type = "usage"
	TurnFinished       Type = "turn_finished"
	Error              Type = "error"
	Retry              Type = "retry"
	Notice             Type = "notice"
	DelegationStarted  Type = "delegation_started"
	DelegationFinished Type = "delegation_finished"
	NoteSaved          Type = "note_saved"
	// Batch plans (yagent batch).
	BatchStarted      Type = "batch_started"
	DelegationSkipped Type = "delegation_skipped"
	BatchFinished     Type = "batch_finished"
	// Result ends every --json stream of yagent run, resume and batch:
	// what a script reads when it does not follow the stream.
	Result Type = "result"
)

// What a rollout records besides turn_started, turn_finished, usage,
// delegation_started and delegation_finished.
const (
	// SessionMeta is a rollout's first line (Session).
	SessionMeta Type = "session_meta"
	// Message is a whole message as it joined the history (Message): the
	// user's request, an assistant's answer with its tool calls, reasoning
	// and provider extras, a tool's output.
	Message Type = "message"
	// Compacted replaces the messages before Compaction.Upto by
	// Compaction.Summary.
	Compacted Type = "compacted"
	// Cleared drops the messages before Compaction.Upto (/clear).
	Cleared Type = "cleared"
	// Rewound takes the conversation back to where it was before turn
	// Turn started (yagent rewind, /rewind); Compaction.Upto is the count
	// of messages recorded when it happened, which stays the count.
	Rewound Type = "rewound"
	// Anchor is the token measure's anchor (Anchor).
	Anchor Type = "anchor"
	// DelegationSeen marks a finished background delegation
	// (Delegation.Ref) as shown to the lead in a board index ("finished
	// since your last call"), so a resumed session does not report it
	// again.
	DelegationSeen Type = "delegation_seen"
	// MessageRead marks a mailbox message (Text: its ref, mail/{stem}) as
	// shown to the session's agent in a board index (issue 30 item 4), so
	// the next index, and a resumed session, do not show it again.
	MessageRead Type = "message_read"
)

// Event is one thing that happened in a run.
type Event struct {
	Type  Type      `json:"type"`
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
	Step int `json:"step,omitempty"`
	// Turn numbers a session's turns, from 1 (turn_started and
	// turn_finished in a rollout).
	Turn       int              `json:"turn,omitempty"`
	Tool       *ToolEvent       `json:"tool,omitempty"`
	Usage      *UsageEvent      `json:"usage,omitempty"`
	Delegation *DelegationEvent `json:"delegation,omitempty"`
	Note       *NoteEvent       `json:"note,omitempty"`
	Batch      *BatchEvent      `json:"batch,omitempty"`
	Result     *ResultEvent     `json:"result,omitempty"`
	Session    *SessionEvent    `json:"session,omitempty"`
	Message    *llm.Message     `json:"message,omitempty"`
	Compaction *CompactionEvent `json:"compacted,omitempty"`
	Anchor     *AnchorEvent     `json:"anchor,omitempty"`
	// Reason says why a turn finished: answer, agent_exit, max_steps,
	// cancelled, error.
	Reason string `json:"reason,omitempty"`
	Error  string `json:"error,omitempty"`
}

// ToolEvent describes a tool call or its result. A result shows what
// changed: Diff is a write's or an edit's unified diff (at most
// linediff.MaxUnifiedLines lines of hunks); Output is a command's output,
// its first and last lines, and ExitCode its exit code.
type ToolEvent struct {
	CallID   string          `json:"call_id"`
	Name     string          `json:"name"`
	Args     json.RawMessage `json:"args,omitempty"`
	Summary  string          `json:"summary,omitempty"`
	IsError  bool            `json:"is_error,omitempty"`
	Bytes    int             `json:"bytes,omitempty"`
	Quiet    bool            `json:"quiet,omitempty"`
	Diff     string          `json:"diff,omitempty"`
	Output   string          `json:"output,omitempty"`
	ExitCode *int            `json:"exit_code,omitempty"`
}

// UsageEvent reports tokens of one request, or totals at turn end: how
// many requests, their tokens (llm.Usage, embedded: its JSON fields are
// this event's, between requests and elapsed_ms) and how long. In a
// rollout, Label is what the request's spend is booked to. CostUSD is
// what the tokens cost at the price of the model each request ran on
// (models.<name>.price, the budget ledger's figure), absent when no
// request was priced.
type UsageEvent struct {
	Requests int    `json:"requests"`
	Label    string `json:"label,omitempty"`
	llm.Usage
	ElapsedMS int64    `json:"elapsed_ms,omitempty"`
	CostUSD   *float64 `json:"cost_usd,omitempty"`
}

// Add accumulates u's requests, tokens and cost (priced when either is).
func (t *UsageEvent) Add(u UsageEvent) {
	t.Requests += u.Requests
	t.Usage.Add(u.Usage)
	if u.CostUSD != nil {
		c := *u.CostUSD
		if t.CostUSD != nil {
			c = RoundCost(c + *t.CostUSD)
		}
		t.CostUSD = &c
	}
}

// RoundCost rounds a sum of US dollars to a billionth, so that sums of
// prices read as written ($0.021, not $0.020999999999999998).
func RoundCost(usd float64) float64 { return math.Round(usd*1e9) / 1e9 }

// DelegationEvent describes a delegation starting or finishing. In a
// batch plan it is also a row of the report: ID (= CallID) is the plan's
// id, Status may be skipped, abandoned or not_started, Resumed marks a note
// reused from an earlier run. In a rollout SubSession is the sub-agent's
// session and Recovered marks a finish recorded on resume for a
// delegation the process died during.
type DelegationEvent struct {
	ID         string      `json:"id,omitempty"`
	CallID     string      `json:"call_id"`
	Agent      string      `json:"agent"`
	Task       string      `json:"task,omitempty"`
	SubSession string      `json:"sub_session,omitempty"`
	Status     string      `json:"status,omitempty"`
	Ref        string      `json:"ref,omitempty"`
	Conclusion string      `json:"conclusion,omitempty"`
	Usage      *UsageEvent `json:"usage,omitempty"`
	ElapsedMS  int64       `json:"elapsed_ms,omitempty"`
	Reason     string      `json:"reason,omitempty"`
	Resumed    bool        `json:"resumed,omitempty"`
	Recovered  bool        `json:"recovered,omitempty"`
	// Background marks a delegation the lead did not wait for (issue 30):
	// its ref is known when it starts (Ref), and its end is reported in
	// the lead's next board index.
	Background bool `json:"background,omitempty"`
	// Change is the diffstat of the change an isolated delegation left
	// pending (issue 28); nil when it changed nothing or was not isolated.
	Change *ChangeStat `json:"change,omitempty"`
}

// ChangeStat is a change's diffstat.
type ChangeStat struct {
	Files      int `json:"files"`
	Insertions int `json:"insertions"`
	Deletions  int `json:"deletions"`
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
	// ResultCheckFailed is a goal loop (run --until) whose check still
	// failed when its rounds were spent.
	ResultCheckFailed = "check_failed"
)

// ResultEvent is how a run ended, the last event of a --json stream (as
// claude -p's result): the session to resume, the answer, the status, the
// tokens of every request the run made (sub-agents included), its cost
// when the model's price is configured, and the wall time.
type ResultEvent struct {
	Session string `json:"session"`
	// Status is ok, error, cancelled, max_steps, truncated or
	// check_failed; a batch is
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

// SessionEvent describes a session, the first line of its rollout.
// Version is the rollout format's (see memory.RolloutVersion).
type SessionEvent struct {
	ID       string    `json:"id"`
	Kind     string    `json:"kind"`
	Created  time.Time `json:"created"`
	Cwd      string    `json:"cwd"`
	Model    string    `json:"model"`
	BoardID  string    `json:"board_id"`
	ParentID string    `json:"parent_id,omitempty"`
	TaskID   string    `json:"task_id,omitempty"`
	Version  int       `json:"version"`
}

// CompactionEvent records a compaction or a clear: messages [0, Upto) are
// replaced by Summary (none for a clear). Upto counts every message the
// session ever recorded. A compaction in the middle of a turn keeps the
// request that turn works on verbatim in Task.
type CompactionEvent struct {
	Summary string `json:"summary,omitempty"`
	Upto    int    `json:"upto"`
	Task    string `json:"task,omitempty"`
}

// AnchorEvent records the provider's prompt_tokens of a response and the
// estimate of the history that request carried: the anchor of the token
// measure, so a resumed session measures as its last process did.
type AnchorEvent struct {
	PromptTokens  int `json:"prompt_tokens"`
	HistoryTokens int `json:"history_tokens"`
}
