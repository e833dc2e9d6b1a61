package sleep

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/yagent/yagent/internal/brief"
	"github.com/yagent/yagent/internal/statedb"
)

// Store is the curation's tables in the state database.
type Store struct {
	DB  *statedb.DB
	Now func() time.Time
}

// TurnRecord is one finished turn's usage.
type TurnRecord struct {
	Turn     int
	Messages int
	Calls    map[string]int // tool → calls in the turn
}

// RecordTurn stores a turn's statistics (after the turn, off the hot path).
func (s *Store) RecordTurn(ctx context.Context, chatID string, r TurnRecord) error {
	now := s.Now().UTC()
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("record turn stats: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO turn_stats(chat_id, turn, at, day, messages) VALUES (?, ?, ?, ?, ?)`,
		chatID, r.Turn, now.UnixMilli(), now.Format(time.DateOnly), r.Messages); err != nil {
		return fmt.Errorf("record turn stats: %w", err)
	}
	for tool, n := range r.Calls {
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO tool_stats(chat_id, turn, tool, calls) VALUES (?, ?, ?, ?)`, chatID, r.Turn, tool, n); err != nil {
			return fmt.Errorf("record tool stats: %w", err)
		}
	}
	return tx.Commit()
}

// RecordLoad counts a hidden tool fetched back with tool_load.
func (s *Store) RecordLoad(ctx context.Context, chatID, tool string) error {
	_, err := s.DB.ExecContext(ctx, `INSERT INTO tool_loads(chat_id, tool, at) VALUES (?, ?, ?)`, chatID, tool, s.Now().UTC().UnixMilli())
	return err
}

// Profile is what a session sees by default.
type Profile struct {
	// Visible is the stored decision: tool names, family:NAME entries and
	// set:NAME toolsets. Empty with Curated false means "not curated yet".
	Visible []string `json:"visible"`
	// Pinned tools are never hidden by a sleep.
	Pinned      []string  `json:"pinned"`
	Curated     bool      `json:"curated"`
	LastCurated time.Time `json:"last_curated"`
}

// Profile reads a session's profile (the zero profile when there is none).
func (s *Store) Profile(ctx context.Context, chatID string) (Profile, error) {
	var visible, pinned string
	var p Profile
	var last int64
	err := s.DB.QueryRowContext(ctx, `SELECT visible, pinned, curated, last_curated FROM tool_profiles WHERE chat_id = ?`, chatID).Scan(&visible, &pinned, &p.Curated, &last)
	if errors.Is(err, sql.ErrNoRows) {
		return Profile{Visible: []string{}, Pinned: []string{}}, nil
	}
	if err != nil {
		return p, fmt.Errorf("tool profile of %s: %w", chatID, err)
	}
	if err := errors.Join(json.Unmarshal([]byte(visible), &p.Visible), json.Unmarshal([]byte(pinned), &p.Pinned)); err != nil {
		return Profile{}, fmt.Errorf("tool profile of %s: %w (yagent tools reset rewrites it): %w", chatID, errDamagedProfile, err)
	}
	if p.Visible == nil {
		p.Visible = []string{}
	}
	if p.Pinned == nil {
		p.Pinned = []string{}
	}
	if last > 0 {
		p.LastCurated = time.UnixMilli(last).UTC()
	}
	return p, nil
}

// SaveProfile stores a profile.
func (s *Store) SaveProfile(ctx context.Context, chatID string, p Profile) error {
	v, _ := json.Marshal(nonNil(p.Visible))
	pin, _ := json.Marshal(nonNil(p.Pinned))
	var last int64
	if !p.LastCurated.IsZero() {
		last = p.LastCurated.UnixMilli()
	}
	_, err := s.DB.ExecContext(ctx, `INSERT INTO tool_profiles(chat_id, visible, pinned, curated, last_curated, updated) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT(chat_id) DO UPDATE SET visible = excluded.visible, pinned = excluded.pinned, curated = excluded.curated,
		last_curated = excluded.last_curated, updated = excluded.updated`,
		chatID, string(v), string(pin), p.Curated, last, s.Now().UTC().UnixMilli())
	if err != nil {
		return fmt.Errorf("save the tool profile of %s: %w", chatID, err)
	}
	return nil
}

// errDamagedProfile marks a stored profile that does not decode.
var errDamagedProfile = errors.New("damaged")

// ResetProfile removes curation (pins are kept; a damaged profile is
// replaced whole).
func (s *Store) ResetProfile(ctx context.Context, chatID string) error {
	p, err := s.Profile(ctx, chatID)
	if err != nil && !errors.Is(err, errDamagedProfile) {
		return err
	}
	return s.SaveProfile(ctx, chatID, Profile{Visible: []string{}, Pinned: p.Pinned})
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Env is the environment snapshot of a session's last turn: the access
// (an explicit toolset or whitelist, "" = none), the gates OR-accumulated
// over the curation cycle, the model and its window.
type Env struct {
	Access string `json:"access"`
	Gates  int    `json:"gates"`
	Model  string `json:"model"`
	Window int    `json:"window"`
}

// LoadEnv reads the snapshot; ok is false when the session never ran a
// turn since curation existed (the stage is then skipped).
func (s *Store) LoadEnv(ctx context.Context, chatID string) (Env, bool, error) {
	var e Env
	err := s.DB.QueryRowContext(ctx, `SELECT access, gates, model, window FROM chat_turn_env WHERE chat_id = ?`, chatID).Scan(&e.Access, &e.Gates, &e.Model, &e.Window)
	if errors.Is(err, sql.ErrNoRows) {
		return e, false, nil
	}
	return e, err == nil, err
}

// SaveEnv writes the snapshot (callers write only when something changed).
func (s *Store) SaveEnv(ctx context.Context, chatID string, e Env) error {
	_, err := s.DB.ExecContext(ctx, `INSERT INTO chat_turn_env(chat_id, access, gates, model, window, updated) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT(chat_id) DO UPDATE SET access = excluded.access, gates = excluded.gates, model = excluded.model, window = excluded.window, updated = excluded.updated`,
		chatID, e.Access, e.Gates, e.Model, e.Window, s.Now().UTC().UnixMilli())
	return err
}

// Run is one entry of the sleep journal.
type Run struct {
	ID       int64     `json:"id"`
	ChatID   string    `json:"chat_id"`
	Started  time.Time `json:"started"`
	Finished time.Time `json:"finished"`
	Status   string    `json:"status"` // ok, skipped, failed, dropped, cancelled
	Reason   string    `json:"reason"`
	DryRun   bool      `json:"dry_run"`
	Added    []string  `json:"added"`
	Removed  []string  `json:"removed"`
	Plan     string    `json:"plan"`
}

// Summary is the one-line "+2/−7 tools".
func (r Run) Summary() string {
	return fmt.Sprintf("+%d/−%d tools", len(r.Added), len(r.Removed))
}

func (s *Store) journal(ctx context.Context, r Run) error {
	a, _ := json.Marshal(nonNil(r.Added))
	rm, _ := json.Marshal(nonNil(r.Removed))
	_, err := s.DB.ExecContext(ctx, `INSERT INTO sleep_runs(chat_id, started, finished, status, reason, dry_run, added, removed, plan) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.ChatID, r.Started.UnixMilli(), r.Finished.UnixMilli(), r.Status, r.Reason, r.DryRun, string(a), string(rm), r.Plan)
	return err
}

// Runs returns the journal, newest first (one session's when chatID is set).
func (s *Store) Runs(ctx context.Context, chatID string, limit int) ([]Run, error) {
	q := `SELECT id, chat_id, started, finished, status, reason, dry_run, added, removed, plan FROM sleep_runs`
	var args []any
	if chatID != "" {
		q += ` WHERE chat_id = ?`
		args = append(args, chatID)
	}
	q += fmt.Sprintf(` ORDER BY id DESC LIMIT %d`, max(limit, 1))
	rows, err := s.DB.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("sleep journal: %w", err)
	}
	defer rows.Close()
	var out []Run
	for rows.Next() {
		var r Run
		var started, finished int64
		var added, removed string
		if err := rows.Scan(&r.ID, &r.ChatID, &started, &finished, &r.Status, &r.Reason, &r.DryRun, &added, &removed, &r.Plan); err != nil {
			return nil, err
		}
		r.Started, r.Finished = time.UnixMilli(started).UTC(), time.UnixMilli(finished).UTC()
		if err := errors.Join(json.Unmarshal([]byte(added), &r.Added), json.Unmarshal([]byte(removed), &r.Removed)); err != nil {
			return nil, fmt.Errorf("sleep journal: run %d is damaged: %w", r.ID, err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// RunsText is `yagent sleep runs` for a person: a table, newest first.
func RunsText(runs []Run) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "STARTED\tSESSION\tSTATUS\tCHANGE\tREASON")
	for _, r := range runs {
		status := r.Status
		if r.DryRun {
			status += " (dry run)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Started.Local().Format(time.DateTime), r.ChatID, status, r.Summary(), brief.Line(r.Reason, 80))
	}
	tw.Flush()
	return b.String()
}

// RunsOf is the journal of the session ref names (resolve gives its id
// from what the person typed: an id, a prefix or a name) or, for "", of
// every session; newest first, at most limit runs.
func (s *Store) RunsOf(ctx context.Context, ref string, resolve func(context.Context, string) (string, error), limit int) ([]Run, error) {
	id := ""
	if ref != "" {
		var err error
		if id, err = resolve(ctx, ref); err != nil {
			return nil, err
		}
	}
	return s.Runs(ctx, id, limit)
}
