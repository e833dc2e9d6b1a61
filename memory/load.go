package memory

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
)

// Rollout is a rollout read back.
type Rollout struct {
	Meta  SessionMeta
	Items []Item // after session_meta
	// Warnings say what was skipped (a torn last line, a damaged line).
	Warnings []string
}

// LoadRollout reads a rollout. A torn last line (a crash mid-write) and
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
		var it Item
		if err := json.Unmarshal(line, &it); err != nil || it.Type == "" {
			if torn {
				r.Warnings = append(r.Warnings, fmt.Sprintf("%s: skipped a torn last line (the process stopped mid-write)", name))
			} else {
				r.Warnings = append(r.Warnings, fmt.Sprintf("%s:%d: skipped a damaged line", name, lineNo))
			}
			continue
		}
		if lineNo == 1 || r.Meta.ID == "" && it.Type == ItemSessionMeta {
			if it.Type != ItemSessionMeta || it.Meta == nil {
				return nil, fmt.Errorf("%s is not a yagent rollout: its first line is not a session_meta", name)
			}
			r.Meta = *it.Meta
			continue
		}
		r.Items = append(r.Items, it)
	}
	if r.Meta.ID == "" {
		return nil, fmt.Errorf("%s is not a yagent rollout: no session_meta", name)
	}
	if r.Meta.Version > RolloutVersion {
		r.Warnings = append(r.Warnings, fmt.Sprintf("%s: written by a newer yagent (rollout version %d); reading what this one understands", name, r.Meta.Version))
	}
	return r, nil
}
