package memory

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/yagent/yagent/event"
)

// RolloutVersion is written into every session_meta. Version 2 records
// the events of package event, one per line; version 1 recorded items of
// its own (read through convert.go, never rewritten). A resumed version 1
// rollout goes on in version 2 lines after its old ones.
const RolloutVersion = 2

// Item is one event of a rollout read back, after session_meta.
type Item struct {
	event.Event
	// Line and Cut are set by LoadRolloutBounded: the event's line in the
	// file (1 is session_meta), and the strings it cut short.
	Line int         `json:"-"`
	Cut  []CutString `json:"-"`
}

// RolloutPath is where a session's rollout lives:
// home/sessions/YYYY/MM/DD/rollout-<ts>-<id>.jsonl.
func RolloutPath(home string, created time.Time, id string) string {
	c := created.UTC()
	return filepath.Join(home, "sessions", c.Format("2006"), c.Format("01"), c.Format("02"),
		fmt.Sprintf("rollout-%s-%s.jsonl", c.Format("20060102T150405"), id))
}

// RolloutWriter appends events to a rollout. It is safe for concurrent use
// (parallel delegations record their start and finish at once).
type RolloutWriter struct {
	mu   sync.Mutex
	f    *os.File
	path string
	now  func() time.Time
}

// CreateRollout creates a new rollout file and writes its session_meta.
func CreateRollout(path string, meta event.SessionEvent, now func() time.Time) (*RolloutWriter, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("create rollout %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("create rollout %s: %w", path, err)
	}
	w := &RolloutWriter{f: f, path: path, now: now}
	meta.Version = RolloutVersion
	if err := w.Write(event.Event{Type: event.SessionMeta, Session: &meta}, true); err != nil {
		f.Close()
		return nil, err
	}
	return w, nil
}

// AppendRollout opens an existing rollout to add events.
func AppendRollout(path string, now func() time.Time) (*RolloutWriter, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open rollout %s: %w", path, err)
	}
	w := &RolloutWriter{f: f, path: path, now: now}
	// A torn last line from a crash must not glue onto the next item.
	if err := w.terminateTornLine(); err != nil {
		f.Close()
		return nil, err
	}
	return w, nil
}

func (w *RolloutWriter) terminateTornLine() error {
	r, err := os.Open(w.path)
	if err != nil {
		return err
	}
	defer r.Close()
	fi, err := r.Stat()
	if err != nil || fi.Size() == 0 {
		return err
	}
	last := make([]byte, 1)
	if _, err := r.ReadAt(last, fi.Size()-1); err != nil {
		return err
	}
	if last[0] != '\n' {
		_, err = w.f.Write([]byte("\n"))
	}
	return err
}

// errReadOnly is what recording into a session opened read-only returns.
var errReadOnly = errors.New("the session is open read-only: nothing can be recorded")

// Write appends one event as one line (a single write), and syncs the file
// when sync is true. A nil writer (a session opened read-only) refuses.
func (w *RolloutWriter) Write(it event.Event, sync bool) error {
	if w == nil {
		return errReadOnly
	}
	if it.Time.IsZero() {
		it.Time = w.now().UTC()
	}
	line, err := json.Marshal(it)
	if err != nil {
		return fmt.Errorf("encode rollout event %s: %w", it.Type, err)
	}
	line = append(line, '\n')
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return fmt.Errorf("rollout %s is closed", w.path)
	}
	if _, err := w.f.Write(line); err != nil {
		return fmt.Errorf("append to rollout %s: %w", w.path, err)
	}
	if sync {
		if err := w.f.Sync(); err != nil {
			return fmt.Errorf("sync rollout %s: %w", w.path, err)
		}
	}
	return nil
}

// Close syncs and closes the file.
func (w *RolloutWriter) Close() error {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return nil
	}
	err := w.f.Sync()
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	w.f = nil
	return err
}
