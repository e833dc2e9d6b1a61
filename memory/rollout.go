package memory

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/yagent/yagent/llm"
)

// RolloutVersion is written into every session_meta.
const RolloutVersion = 1

// Item types of a rollout.
const (
	ItemSessionMeta        = "session_meta"
	ItemMessage            = "message"
	ItemTurnStarted        = "turn_started"
	ItemTurnFinished       = "turn_finished"
	ItemDelegationStarted  = "delegation_started"
	ItemDelegationFinished = "delegation_finished"
	ItemCompacted          = "compacted"
	ItemCleared            = "cleared"
	ItemUsage              = "usage"
	ItemAnchor             = "anchor"
)

// SessionMeta is the first line of every rollout.
type SessionMeta struct {
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

// DelegationItem records a delegation starting or finishing.
type DelegationItem struct {
	CallID     string `json:"call_id"`
	Agent      string `json:"agent,omitempty"`
	Task       string `json:"task,omitempty"`
	SubSession string `json:"sub_session,omitempty"`
	Ref        string `json:"ref,omitempty"`
	Status     string `json:"status,omitempty"`
	Recovered  bool   `json:"recovered,omitempty"`
}

// CompactedItem records a compaction: messages [0, Upto) are replaced by
// Summary. Upto counts every message the session ever recorded. A
// compaction in the middle of a turn keeps the request that turn works on
// verbatim in Task.
type CompactedItem struct {
	Summary string `json:"summary"`
	Upto    int    `json:"upto"`
	Task    string `json:"task,omitempty"`
}

// AnchorItem records the provider's prompt_tokens of a response and the
// estimate (HistoryTokens) of the history that request carried: the anchor
// of the token measure, so a resumed session measures as its last process
// did.
type AnchorItem struct {
	PromptTokens  int `json:"prompt_tokens"`
	HistoryTokens int `json:"history_tokens"`
}

// UsageItem records the tokens of one model response under the label its
// spend is booked to.
type UsageItem struct {
	Label string `json:"label"`
	llm.Usage
}

// Item is one line of a rollout.
type Item struct {
	Type       string          `json:"type"`
	Time       time.Time       `json:"ts"`
	Meta       *SessionMeta    `json:"meta,omitempty"`
	Message    *llm.Message    `json:"message,omitempty"`
	Turn       int             `json:"turn,omitempty"`
	Reason     string          `json:"reason,omitempty"`
	Delegation *DelegationItem `json:"delegation,omitempty"`
	Compacted  *CompactedItem  `json:"compacted,omitempty"`
	Usage      *UsageItem      `json:"usage,omitempty"`
	Anchor     *AnchorItem     `json:"anchor,omitempty"`
	// Upto is the message count a cleared item drops.
	Upto int `json:"upto,omitempty"`

	// Line and Cut are set by LoadRolloutBounded: the item's line in the
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

// RolloutWriter appends items to a rollout. It is safe for concurrent use
// (parallel delegations record their start and finish at once).
type RolloutWriter struct {
	mu   sync.Mutex
	f    *os.File
	path string
	now  func() time.Time
}

// CreateRollout creates a new rollout file and writes its session_meta.
func CreateRollout(path string, meta SessionMeta, now func() time.Time) (*RolloutWriter, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("create rollout %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("create rollout %s: %w", path, err)
	}
	w := &RolloutWriter{f: f, path: path, now: now}
	meta.Version = RolloutVersion
	if err := w.Write(Item{Type: ItemSessionMeta, Meta: &meta}, true); err != nil {
		f.Close()
		return nil, err
	}
	return w, nil
}

// AppendRollout opens an existing rollout to add items.
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

// Write appends one item as one line (a single write), and syncs the file
// when sync is true. A nil writer (a session opened read-only) refuses.
func (w *RolloutWriter) Write(it Item, sync bool) error {
	if w == nil {
		return errReadOnly
	}
	if it.Time.IsZero() {
		it.Time = w.now().UTC()
	}
	line, err := json.Marshal(it)
	if err != nil {
		return fmt.Errorf("encode rollout item: %w", err)
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
