package memory

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/yagent/yagent/internal/statedb"
	"github.com/yagent/yagent/llm"
)

// Session kinds.
const (
	KindInteractive = "interactive"
	KindRun         = "run"
	KindBatch       = "batch"
	KindSubagent    = "subagent"
	KindCron        = "cron"
)

// Errors of a session reference given by a person (an id, an id prefix or
// a name); the CLI maps them to exit code 2.
var (
	// ErrNoSession reports an id or name that names no session.
	ErrNoSession = errors.New("no such session")
	// ErrAmbiguousSession reports an id prefix that names several.
	ErrAmbiguousSession = errors.New("ambiguous session")
)

// Info is a session's row in the state database.
type Info struct {
	ID              string    `json:"id"`
	Kind            string    `json:"kind"`
	Title           string    `json:"title"`
	Name            string    `json:"name"`
	Cwd             string    `json:"cwd"`
	Model           string    `json:"model"`
	ParentID        string    `json:"parent_id"`
	Rollout         string    `json:"rollout"`
	Created         time.Time `json:"created"`
	Updated         time.Time `json:"updated"`
	BoardID         string    `json:"board_id"`
	Turns           int       `json:"turns"`
	SummaryUpto     int       `json:"summary_upto"`
	NotesMode       string    `json:"notes_mode"`
	NotesNudgedUpto int       `json:"notes_nudged_upto"`
	WrapNudgedUpto  int       `json:"wrap_nudged_upto"`
	// NextSleepAt is when the session's tool curation is due (nil: never
	// scheduled).
	NextSleepAt *time.Time `json:"next_sleep_at"`
	// LastReason is how its last turn ended (agents.Outcome.Reason; ""
	// before the first): Status reads it.
	LastReason string `json:"-"`
	// Status is ok, failed or cancelled, from its last turn ("" before
	// the first); filled by the store's reads.
	Status string `json:"status,omitempty"`
	// CostUSD is what the session's model calls cost at each model's
	// price, summed by the budget ledger (budget_spend) across its
	// processes; nil when it recorded none.
	CostUSD *float64 `json:"cost_usd,omitempty"`
}

// Store keeps sessions: rows in the state database, rollouts under home.
type Store struct {
	DB   *statedb.DB
	Home string
	Now  func() time.Time
}

// NewStore returns a store over an open state database.
func NewStore(db *statedb.DB, home string) *Store {
	return &Store{DB: db, Home: home, Now: time.Now}
}

// CountRollouts counts the session rollouts under home (what a fresh state
// database would lose track of); unreadable directories count as empty.
func CountRollouts(home string) int {
	n := 0
	_ = filepath.WalkDir(filepath.Join(home, "sessions"), func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && strings.HasPrefix(d.Name(), "rollout-") && strings.HasSuffix(d.Name(), ".jsonl") {
			n++
		}
		return nil
	})
	return n
}

// NewID returns a sortable, unique session id.
func NewID(now time.Time) string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return now.UTC().Format("20060102T150405") + "-" + hex.EncodeToString(b[:])
}

// StatusOf is a session's status from how its last turn ended: cancelled,
// failed (an error) or ok (an answer, even one cut at a limit); "" before
// its first turn.
func StatusOf(reason string) string {
	switch reason {
	case "":
		return ""
	case "cancelled":
		return "cancelled"
	case "error":
		return "failed"
	}
	return "ok"
}

const infoColumns = `id, kind, title, COALESCE(name, ''), cwd, model, COALESCE(parent_id, ''), rollout, created, updated,
	board_id, turns, summary_upto, notes_mode, notes_nudged_upto, wrap_nudged_upto, next_sleep_at, last_reason,
	(SELECT sum(cost) FROM budget_spend WHERE scope IN ('session:' || chats.id, 'batch:' || chats.id))`

func scanInfo(row interface{ Scan(...any) error }) (Info, error) {
	var in Info
	var created, updated int64
	var next sql.NullInt64
	var cost sql.NullFloat64
	err := row.Scan(&in.ID, &in.Kind, &in.Title, &in.Name, &in.Cwd, &in.Model, &in.ParentID, &in.Rollout, &created, &updated,
		&in.BoardID, &in.Turns, &in.SummaryUpto, &in.NotesMode, &in.NotesNudgedUpto, &in.WrapNudgedUpto, &next, &in.LastReason, &cost)
	if cost.Valid {
		in.CostUSD = &cost.Float64
	}
	in.Status = StatusOf(in.LastReason)
	in.Created, in.Updated = time.UnixMilli(created).UTC(), time.UnixMilli(updated).UTC()
	if next.Valid {
		t := time.UnixMilli(next.Int64).UTC()
		in.NextSleepAt = &t
	}
	return in, err
}

// Get finds a live session by id, id prefix (unique) or name.
func (st *Store) Get(ctx context.Context, ref string) (Info, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return Info{}, fmt.Errorf("%w: empty id", ErrNoSession)
	}
	rows, err := st.DB.QueryContext(ctx, `SELECT `+infoColumns+` FROM chats WHERE deleted = 0 AND (id = ? OR name = ? OR id LIKE ? ESCAPE '\') ORDER BY (id = ?) DESC, (name = ?) DESC LIMIT 3`,
		ref, ref, likePrefix(ref), ref, ref)
	if err != nil {
		return Info{}, fmt.Errorf("find session %s: %w", ref, err)
	}
	defer rows.Close()
	var found []Info
	for rows.Next() {
		in, err := scanInfo(rows)
		if err != nil {
			return Info{}, fmt.Errorf("find session %s: %w", ref, err)
		}
		found = append(found, in)
	}
	switch {
	case len(found) == 0:
		return Info{}, fmt.Errorf("%w %q: `yagent sessions ls --all` lists them", ErrNoSession, ref)
	case found[0].ID == ref || found[0].Name == ref || len(found) == 1:
		return found[0], nil
	}
	return Info{}, fmt.Errorf("%w %q (%s, %s, …): give more of the id", ErrAmbiguousSession, ref, found[0].ID, found[1].ID)
}

func likePrefix(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return r.Replace(s) + "%"
}

// ListOptions narrow List.
type ListOptions struct {
	// Cwd is the directory listed; All lists every directory (otherwise
	// only Cwd's), newest first — with HereFirst, Cwd's sessions before
	// the others (shell completion offers this directory's first).
	Cwd       string
	All       bool
	HereFirst bool
	// Kinds limits to these kinds; nil means every kind except subagent.
	Kinds []string
	Limit int
}

// List returns sessions, most recently updated first.
func (st *Store) List(ctx context.Context, opts ListOptions) ([]Info, error) {
	q := `SELECT ` + infoColumns + ` FROM chats WHERE deleted = 0`
	var args []any
	if len(opts.Kinds) == 0 {
		q += ` AND kind != 'subagent'`
	} else {
		q += ` AND kind IN (` + strings.TrimSuffix(strings.Repeat("?,", len(opts.Kinds)), ",") + `)`
		for _, k := range opts.Kinds {
			args = append(args, k)
		}
	}
	if !opts.All && opts.Cwd != "" {
		q += ` AND cwd = ?`
		args = append(args, opts.Cwd)
	}
	// Newest first; with All, whatever the directory (sessions ls --all)
	// unless HereFirst.
	q += ` ORDER BY `
	if opts.All && opts.HereFirst {
		q += `(cwd = ?) DESC, `
		args = append(args, opts.Cwd)
	}
	q += `updated DESC`
	if opts.Limit > 0 {
		q += fmt.Sprintf(` LIMIT %d`, opts.Limit)
	}
	rows, err := st.DB.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	defer rows.Close()
	var out []Info
	for rows.Next() {
		in, err := scanInfo(rows)
		if err != nil {
			return nil, fmt.Errorf("list sessions: %w", err)
		}
		out = append(out, in)
	}
	return out, rows.Err()
}

// Last returns the most recently updated session of cwd (any directory
// when cwd is empty).
func (st *Store) Last(ctx context.Context, cwd string) (Info, error) {
	list, err := st.List(ctx, ListOptions{Cwd: cwd, All: cwd == "", Limit: 1})
	if err != nil {
		return Info{}, err
	}
	if len(list) == 0 {
		return Info{}, fmt.Errorf("%w in %s yet: start one with yagent or yagent run", ErrNoSession, cwd)
	}
	return list[0], nil
}

// Rename gives a session a unique name it can be resumed by.
func (st *Store) Rename(ctx context.Context, id, name string) error {
	name = strings.TrimSpace(name)
	if name == "" || strings.ContainsAny(name, " \t\n") {
		return fmt.Errorf("session name %q: use one word", name)
	}
	_, err := st.DB.ExecContext(ctx, `UPDATE chats SET name = ? WHERE id = ?`, name, id)
	if err != nil && strings.Contains(err.Error(), "UNIQUE") {
		return fmt.Errorf("another session is already named %q", name)
	}
	return err
}

// Delete removes a session and what hangs on it: its rollout, its
// sub-agents' sessions and rollouts, its spend (and, by cascade, every
// table that references chats). The board is not touched.
func (st *Store) Delete(ctx context.Context, id string) ([]Info, error) {
	var removed []Info
	in, err := st.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	subs, err := st.List(ctx, ListOptions{All: true, Kinds: []string{KindSubagent}})
	if err != nil {
		return nil, err
	}
	for _, s := range subs {
		if s.ParentID == in.ID {
			removed = append(removed, s)
		}
	}
	removed = append(removed, in)
	// A session another process is working in is not pulled from under it.
	var locks []*sessionLock
	defer func() {
		for _, l := range locks {
			l.release()
		}
	}()
	for _, s := range removed {
		if _, err := os.Stat(filepath.Dir(s.Rollout)); err != nil {
			continue // no rollout directory: nothing to hold
		}
		l, err := lockSession(ctx, s.ID, s.Rollout, st.Now, LockOptions{})
		if err != nil {
			return nil, fmt.Errorf("delete session %s: %w", in.ID, err)
		}
		locks = append(locks, l)
	}
	for _, s := range removed {
		if _, err := st.DB.ExecContext(ctx, `DELETE FROM chats WHERE id = ?`, s.ID); err != nil {
			return nil, fmt.Errorf("delete session %s: %w", s.ID, err)
		}
		for _, p := range []string{s.Rollout, LockPath(s.Rollout)} {
			if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
				return nil, fmt.Errorf("delete session %s: %w", s.ID, err)
			}
		}
	}
	return removed, nil
}

// SpendRow is the tokens a session spent under one label: the sum of the
// llm.Usage of its requests, less the reasoning part (the spend table
// keeps none; a rollout's usage items do).
type SpendRow struct {
	Label            string `json:"label"`
	Requests         int    `json:"requests"`
	PromptTokens     int    `json:"prompt_tokens"`
	CachedTokens     int    `json:"cached_tokens"`
	CompletionTokens int    `json:"completion_tokens"`
}

// AddSpend adds one response's tokens to a session's spend under label
// (turn, subagent:<agent>, summary, notes, sleep): the one conversion from
// llm.Usage to the spend table.
func (st *Store) AddSpend(ctx context.Context, id, label string, u llm.Usage) error {
	r := SpendRow{Label: label, Requests: 1, PromptTokens: u.PromptTokens, CachedTokens: u.CachedTokens, CompletionTokens: u.CompletionTokens}
	_, err := st.DB.ExecContext(ctx, `INSERT INTO spend(chat_id, label, requests, prompt_tokens, cached_tokens, completion_tokens)
		VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT(chat_id, label) DO UPDATE SET requests = requests + excluded.requests,
			prompt_tokens = prompt_tokens + excluded.prompt_tokens, cached_tokens = cached_tokens + excluded.cached_tokens,
			completion_tokens = completion_tokens + excluded.completion_tokens`,
		id, r.Label, r.Requests, r.PromptTokens, r.CachedTokens, r.CompletionTokens)
	if err != nil {
		return fmt.Errorf("record spend of %s: %w", id, err)
	}
	return nil
}

// Spend returns a session's spend by label.
func (st *Store) Spend(ctx context.Context, id string) ([]SpendRow, error) {
	rows, err := st.DB.QueryContext(ctx, `SELECT label, requests, prompt_tokens, cached_tokens, completion_tokens FROM spend WHERE chat_id = ? ORDER BY label`, id)
	if err != nil {
		return nil, fmt.Errorf("spend of %s: %w", id, err)
	}
	defer rows.Close()
	var out []SpendRow
	for rows.Next() {
		var r SpendRow
		if err := rows.Scan(&r.Label, &r.Requests, &r.PromptTokens, &r.CachedTokens, &r.CompletionTokens); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

func (st *Store) insert(ctx context.Context, in Info) error {
	var parent any
	if in.ParentID != "" {
		parent = in.ParentID
	}
	_, err := st.DB.ExecContext(ctx, `INSERT INTO chats(id, kind, title, cwd, model, parent_id, rollout, created, updated, board_id)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		in.ID, in.Kind, in.Title, in.Cwd, in.Model, parent, in.Rollout, in.Created.UnixMilli(), in.Updated.UnixMilli(), in.BoardID)
	if err != nil {
		return fmt.Errorf("record session %s: %w", in.ID, err)
	}
	return nil
}

// update sets columns of a session row.
func (st *Store) update(ctx context.Context, id string, set string, args ...any) error {
	_, err := st.DB.ExecContext(ctx, `UPDATE chats SET `+set+` WHERE id = ?`, append(args, id)...)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("update session %s: %w", id, err)
	}
	return nil
}
