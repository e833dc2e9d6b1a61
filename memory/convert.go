package memory

import (
	"encoding/json"
	"time"

	"github.com/yagent/yagent/event"
)

// line is what one rollout line can hold: an event (version 2), or an
// item of version 1, whose few differences from an event are the fields
// below. Each line is read by its own shape, not by the file's version: a
// version 1 rollout resumed since goes on in version 2 lines.
type line struct {
	event.Event
	// Version 1: the time was "ts", session_meta's fields were "meta" and
	// a cleared item's message count was a top-level "upto".
	TS   time.Time           `json:"ts"`
	Meta *event.SessionEvent `json:"meta"`
	Upto int                 `json:"upto"`
}

// decodeLine reads one rollout line as an event, converting a version 1
// item (never rewriting it): a line whose type is empty is damaged.
func decodeLine(data []byte) (event.Event, error) {
	var l line
	if err := json.Unmarshal(data, &l); err != nil {
		return event.Event{}, err
	}
	// What a version 1 item holds differently; an event has none of it.
	e := l.Event
	if e.Time.IsZero() {
		e.Time = l.TS
	}
	if e.Session == nil {
		e.Session = l.Meta
	}
	if e.Type == event.Cleared && e.Compaction == nil {
		e.Compaction = &event.CompactionEvent{Upto: l.Upto}
	}
	if e.Type == event.Usage && e.Usage != nil && e.Usage.Requests == 0 {
		e.Usage.Requests = 1 // a rollout records one usage per response
	}
	return e, nil
}
