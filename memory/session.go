package memory

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/yagent/yagent/event"
	"github.com/yagent/yagent/internal/statedb"
	"github.com/yagent/yagent/llm"
)

// Session is a live conversation: its row, its rollout and its memory.
// Methods are safe for concurrent use (parallel delegations record at once).
type Session struct {
	st *Store
	w  *RolloutWriter // nil: opened read-only
	// lock is this process's hold on the session (nil: read-only).
	lock *sessionLock

	mu   sync.Mutex
	info Info
	mem  *Memory
	turn int
	// turnStart is the global index of the running turn's first message
	// (set by BeginTurn; 0 for a sub-agent session, one turn long).
	turnStart int
	// interrupted holds tool results for calls cut off by a crash (set on
	// resume, used when the history is rebuilt).
	interrupted map[string]string
	// Warnings from reading the rollout on resume.
	Warnings []string
	// Pending are delegations that started and never finished before the
	// process died (found on resume).
	Pending []PendingDelegation
}

// CreateOptions describe a new session.
type CreateOptions struct {
	ID       string // default: a new id
	Kind     string
	Cwd      string
	Model    string
	BoardID  string // default: the session id (board scope = session)
	ParentID string
	Title    string
}

// Create starts a new session: its rollout (session_meta first, synced) and
// its row. The session is held by this process until Close.
func (st *Store) Create(ctx context.Context, o CreateOptions) (*Session, error) {
	now := st.Now().UTC()
	if o.ID == "" {
		o.ID = NewID(now)
	}
	if o.BoardID == "" {
		o.BoardID = o.ID
	}
	in := Info{ID: o.ID, Kind: o.Kind, Title: o.Title, Cwd: o.Cwd, Model: o.Model, ParentID: o.ParentID,
		Rollout: RolloutPath(st.Home, now, o.ID), Created: now, Updated: now, BoardID: o.BoardID, NotesMode: "inline", WrapNudgedUpto: -1}
	if err := os.MkdirAll(filepath.Dir(in.Rollout), 0o755); err != nil {
		return nil, fmt.Errorf("create rollout %s: %w", in.Rollout, readOnly(filepath.Dir(in.Rollout), err))
	}
	lock, err := lockSession(ctx, in.ID, in.Rollout, st.Now, LockOptions{})
	if err != nil {
		return nil, err
	}
	w, err := CreateRollout(in.Rollout, event.SessionEvent{ID: in.ID, Kind: in.Kind, Created: now, Cwd: in.Cwd, Model: in.Model, BoardID: in.BoardID, ParentID: in.ParentID}, st.Now)
	if err != nil {
		lock.release()
		return nil, err
	}
	if err := st.insert(ctx, in); err != nil {
		w.Close()
		lock.release()
		return nil, err
	}
	return &Session{st: st, w: w, lock: lock, info: in, mem: &Memory{}}, nil
}

// readOnly returns err, or — when the nearest existing directory of path
// cannot be written — an error that says it is read-only.
func readOnly(path string, err error) error {
	for dir := path; ; dir = filepath.Dir(dir) {
		if _, serr := os.Stat(dir); serr == nil {
			if ro := statedb.CheckWritable(dir); ro != nil {
				return ro
			}
			return err
		}
		if dir == filepath.Dir(dir) {
			return err
		}
	}
}

// ResumeOptions say how Resume takes a session.
type ResumeOptions struct {
	// LockOptions apply when another process holds the session.
	LockOptions
	// ReadOnly opens the session to look at it: no lock is taken and
	// nothing can be recorded (every write fails).
	ReadOnly bool
}

// Resume reopens a session for this process alone; a session another
// process holds is a *BusyError. See ResumeWith.
func (st *Store) Resume(ctx context.Context, ref string) (*Session, error) {
	return st.ResumeWith(ctx, ref, ResumeOptions{})
}

// ResumeWith reopens a session: it takes the session's lock (one writing
// process per session), then rebuilds the history from its rollout (the
// latest compaction summary plus the messages after it) and takes the
// board from session_meta.board_id (the task id for rollouts without one).
// The rebuilt history is checked: what History will repair so the API
// accepts it (results that answer no call, duplicates, empty answers) is
// reported in Warnings.
func (st *Store) ResumeWith(ctx context.Context, ref string, o ResumeOptions) (_ *Session, err error) {
	in, err := st.Get(ctx, ref)
	if err != nil {
		return nil, err
	}
	var lock *sessionLock
	if !o.ReadOnly {
		if lock, err = lockSession(ctx, in.ID, in.Rollout, st.Now, o.LockOptions); err != nil {
			return nil, err
		}
		defer func() {
			if err != nil {
				lock.release()
			}
		}()
		// The process that held it may have changed the row meanwhile.
		if in, err = st.Get(ctx, in.ID); err != nil {
			return nil, err
		}
	}
	r, err := LoadRollout(in.Rollout)
	if err != nil {
		return nil, err
	}
	mem, pending := Rebuild(r.Items)
	if board := r.Meta.BoardID; board != "" {
		in.BoardID = board
	} else if r.Meta.TaskID != "" {
		in.BoardID = r.Meta.TaskID
	}
	warnings := r.Warnings
	if rep := mem.Check(); rep.Damaged() {
		warnings = append(warnings, fmt.Sprintf("%s: the history is repaired before it is sent: %s", in.Rollout, rep))
	}
	var w *RolloutWriter
	if !o.ReadOnly {
		if w, err = AppendRollout(in.Rollout, st.Now); err != nil {
			return nil, err
		}
	}
	s := &Session{st: st, w: w, lock: lock, info: in, mem: mem, Warnings: warnings, Pending: pending, interrupted: map[string]string{}}
	for _, it := range r.Items {
		if it.Type == event.TurnStarted && it.Turn > s.turn {
			s.turn = it.Turn
		}
	}
	return s, nil
}

// Info returns a copy of the session's row.
func (s *Session) Info() Info {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.info
}

// ID returns the session id.
func (s *Session) ID() string { return s.Info().ID }

// BoardID returns the session's board.
func (s *Session) BoardID() string { return s.Info().BoardID }

// Store returns the store the session lives in.
func (s *Session) Store() *Store { return s.st }

// History is the conversation the next request carries.
func (s *Session) History() []llm.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mem.History(s.interrupted)
}

// TurnStart returns the global index (over every message the session
// recorded) of the running turn's first message.
func (s *Session) TurnStart() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.turnStart
}

// LastTurn is the number of the latest turn started (0: none yet).
func (s *Session) LastTurn() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.turn
}

// Memory returns a snapshot of the memory's counters.
func (s *Session) Memory() (summary string, base, total int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mem.Summary, s.mem.Base, s.mem.Total()
}

// Append records a message as it joins the history (the loop's Append
// hook): one rollout line, written now.
func (s *Session) Append(m llm.Message) error {
	if err := s.w.Write(event.Event{Type: event.Message, Message: &m}, false); err != nil {
		return err
	}
	s.mu.Lock()
	s.mem.Messages = append(s.mem.Messages, m)
	s.mu.Unlock()
	return nil
}

// Interrupted sets the result shown for a tool call cut off by a crash.
func (s *Session) Interrupted(callID, text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.interrupted == nil {
		s.interrupted = map[string]string{}
	}
	s.interrupted[callID] = text
}

// BeginTurn records a turn's start (synced) and, for the first turn, takes
// the prompt as the session's title.
func (s *Session) BeginTurn(ctx context.Context, prompt string) (int, error) {
	s.mu.Lock()
	s.turn++
	turn := s.turn
	s.turnStart = s.mem.Total()
	title := s.info.Title
	s.mu.Unlock()
	if err := s.w.Write(event.Event{Type: event.TurnStarted, Turn: turn}, true); err != nil {
		return turn, err
	}
	if title == "" {
		title = oneLine(prompt, 80)
		s.mu.Lock()
		s.info.Title = title
		s.mu.Unlock()
		return turn, s.st.update(ctx, s.ID(), `title = ?`, title)
	}
	return turn, nil
}

// EndTurn records a turn's end (synced) and bumps the row.
func (s *Session) EndTurn(ctx context.Context, turn int, reason string) error {
	if err := s.w.Write(event.Event{Type: event.TurnFinished, Turn: turn, Reason: reason}, true); err != nil {
		return err
	}
	now := s.st.Now().UTC()
	s.mu.Lock()
	s.info.Turns++
	s.info.Updated = now
	s.info.LastReason, s.info.Status = reason, StatusOf(reason)
	s.mu.Unlock()
	return s.st.update(ctx, s.ID(), `turns = turns + 1, updated = ?, last_reason = ?`, now.UnixMilli(), reason)
}

// DelegationStarted records a delegation starting (synced), so a killed
// process leaves a rollout that says what was in flight.
func (s *Session) DelegationStarted(d event.DelegationEvent) error {
	return s.w.Write(event.Event{Type: event.DelegationStarted, Delegation: &d}, true)
}

// DelegationFinished records a delegation's end (synced); a background
// one's is then reported to the lead until MarkSeen.
func (s *Session) DelegationFinished(d event.DelegationEvent) error {
	if err := s.w.Write(event.Event{Type: event.DelegationFinished, Delegation: &d}, true); err != nil {
		return err
	}
	if d.Background {
		s.mu.Lock()
		s.mem.finished(d)
		s.mu.Unlock()
	}
	return nil
}

// RecordUsage adds a response's tokens to the rollout and the spend table.
func (s *Session) RecordUsage(ctx context.Context, label string, u llm.Usage) error {
	if err := s.w.Write(event.Event{Type: event.Usage, Usage: &event.UsageEvent{Requests: 1, Label: label, Usage: u}}, false); err != nil {
		return err
	}
	return s.st.AddSpend(ctx, s.ID(), label, u)
}

// Compacted replaces messages before upto (a global index) by summary (and
// task, the request a mid-turn compaction cut into): recorded in the
// rollout first (synced), then applied.
func (s *Session) Compacted(ctx context.Context, summary, task string, upto int) error {
	if err := s.w.Write(event.Event{Type: event.Compacted, Compaction: &event.CompactionEvent{Summary: summary, Upto: upto, Task: task}}, true); err != nil {
		return err
	}
	s.mu.Lock()
	s.mem.compactTo(summary, task, upto)
	s.info.SummaryUpto = upto
	s.mu.Unlock()
	return s.st.update(ctx, s.ID(), `summary_upto = ?`, upto)
}

// Clear empties the history (the board and the notebook stay).
func (s *Session) Clear(ctx context.Context) error {
	s.mu.Lock()
	upto := s.mem.Total()
	s.mu.Unlock()
	if err := s.w.Write(event.Event{Type: event.Cleared, Compaction: &event.CompactionEvent{Upto: upto}}, true); err != nil {
		return err
	}
	s.mu.Lock()
	s.mem.compactTo("", "", upto)
	s.info.SummaryUpto = upto
	s.info.NotesNudgedUpto = upto // nothing was summarised: no "just compacted" nudge
	s.mu.Unlock()
	return s.st.update(ctx, s.ID(), `summary_upto = ?, notes_nudged_upto = ?`, upto, upto)
}

// ErrNoTurn: a rewind names a turn the session never started.
var ErrNoTurn = errors.New("no such turn")

// Rewind takes the conversation back to where it was before turn started
// (the next request carries only what came before it). It appends one
// rewound event to the rollout (synced) and nothing else: the rollout
// keeps every line it had, resume honours the marker, and a crash leaves
// either the marker whole or no rewind. Turn numbers keep growing.
func (s *Session) Rewind(ctx context.Context, turn int) error {
	if s.w == nil {
		return fmt.Errorf("rewind session %s: opened read-only", s.ID())
	}
	r, err := LoadRollout(s.Info().Rollout)
	if err != nil {
		return fmt.Errorf("rewind session %s: %w", s.ID(), err)
	}
	s.mu.Lock()
	total, last := s.mem.Total(), s.turn
	s.mu.Unlock()
	found := false
	for _, it := range r.Items {
		found = found || it.Type == event.TurnStarted && it.Turn == turn
	}
	if !found {
		return fmt.Errorf("rewind session %s to turn %d: %w (it has turns 1 to %d)", s.ID(), turn, ErrNoTurn, last)
	}
	e := event.Event{Type: event.Rewound, Turn: turn, Compaction: &event.CompactionEvent{Upto: total}}
	if err := s.w.Write(e, true); err != nil {
		return err
	}
	items := append(r.Items, Item{Event: e})
	mem, _ := Rebuild(items)
	turns := LiveTurns(items) // the row counts the turns still in the conversation
	s.mu.Lock()
	s.mem = mem
	s.info.SummaryUpto = mem.Base
	s.info.Turns = turns
	s.mu.Unlock()
	return s.st.update(ctx, s.ID(), `summary_upto = ?, turns = ?`, mem.Base, turns)
}

// SetNudged records that a one-time pressure nudge was shown for the
// current window: column is wrap_nudged_upto or notes_nudged_upto.
func (s *Session) SetNudged(ctx context.Context, column string, upto int) error {
	if column != "wrap_nudged_upto" && column != "notes_nudged_upto" {
		return fmt.Errorf("unknown nudge column %q", column)
	}
	s.mu.Lock()
	if column == "wrap_nudged_upto" {
		s.info.WrapNudgedUpto = upto
	} else {
		s.info.NotesNudgedUpto = upto
	}
	s.mu.Unlock()
	return s.st.update(ctx, s.ID(), column+` = ?`, upto)
}

// Close syncs and closes the rollout and lets the session go.
func (s *Session) Close() error {
	err := s.w.Close()
	if lerr := s.lock.release(); err == nil {
		err = lerr
	}
	return err
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > n {
		s = string([]rune(s)[:n-1]) + "…"
	}
	return s
}
