package agents

import (
	"sync"

	"github.com/yagent/yagent/event"
)

// The event types are the one vocabulary of package event: the --json
// stream, what every view renders and what a rollout records. agents
// names them as it always did.
type (
	EventType       = event.Type
	Event           = event.Event
	ToolEvent       = event.ToolEvent
	UsageEvent      = event.UsageEvent
	DelegationEvent = event.DelegationEvent
	BatchEvent      = event.BatchEvent
	ResultEvent     = event.ResultEvent
	NoteEvent       = event.NoteEvent
)

// The events of the --json stream.
const (
	EventTurnStarted        = event.TurnStarted
	EventTextDelta          = event.TextDelta
	EventReasoningDelta     = event.ReasoningDelta
	EventToolCall           = event.ToolCall
	EventToolResult         = event.ToolResult
	EventUsage              = event.Usage
	EventTurnFinished       = event.TurnFinished
	EventError              = event.Error
	EventRetry              = event.Retry
	EventNotice             = event.Notice
	EventDelegationStarted  = event.DelegationStarted
	EventDelegationFinished = event.DelegationFinished
	EventNoteSaved          = event.NoteSaved
	EventBatchStarted       = event.BatchStarted
	EventDelegationSkipped  = event.DelegationSkipped
	EventBatchFinished      = event.BatchFinished
	EventResult             = event.Result
)

// Result statuses: how a run ended.
const (
	ResultOK          = event.ResultOK
	ResultError       = event.ResultError
	ResultCancelled   = event.ResultCancelled
	ResultMaxSteps    = event.ResultMaxSteps
	ResultTruncated   = event.ResultTruncated
	ResultCheckFailed = event.ResultCheckFailed
)

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
