package memory

import (
	"bytes"
	"fmt"
	"os"

	"github.com/yagent/yagent/event"
)

// Rollout is a rollout read back.
type Rollout struct {
	Meta  event.SessionEvent
	Items []Item // the events after session_meta
	// Warnings say what was skipped (a torn last line, a damaged line).
	Warnings []string
}

// LoadRollout reads a rollout as events, whichever version wrote its
// lines (convert.go). A torn last line (a crash mid-write) and
// damaged lines are skipped with a warning; only a file that does not start
// with a session_meta is an error.
func LoadRollout(path string) (*Rollout, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read rollout %s: %w", path, err)
	}
	return ParseRollout(path, data)
}

// ParseRollout parses rollout bytes; name is used in messages.
func ParseRollout(name string, data []byte) (*Rollout, error) {
	r := &Rollout{}
	lineNo := 0
	for len(data) > 0 {
		lineNo++
		var line []byte
		nl := bytes.IndexByte(data, '\n')
		torn := nl < 0
		if torn {
			line, data = data, nil
		} else {
			line, data = data[:nl], data[nl+1:]
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		e, err := decodeLine(line)
		if err != nil || e.Type == "" {
			if torn {
				r.Warnings = append(r.Warnings, fmt.Sprintf("%s: skipped a torn last line (the process stopped mid-write)", name))
			} else {
				r.Warnings = append(r.Warnings, fmt.Sprintf("%s:%d: skipped a damaged line", name, lineNo))
			}
			continue
		}
		if lineNo == 1 || r.Meta.ID == "" && e.Type == event.SessionMeta {
			if e.Type != event.SessionMeta || e.Session == nil {
				return nil, fmt.Errorf("%s is not a yagent rollout: its first line is not a session_meta", name)
			}
			r.Meta = *e.Session
			continue
		}
		r.Items = append(r.Items, Item{Event: e})
	}
	if r.Meta.ID == "" {
		return nil, fmt.Errorf("%s is not a yagent rollout: no session_meta", name)
	}
	if r.Meta.Version > RolloutVersion {
		r.Warnings = append(r.Warnings, fmt.Sprintf("%s: written by a newer yagent (rollout version %d); reading what this one understands", name, r.Meta.Version))
	}
	return r, nil
}
