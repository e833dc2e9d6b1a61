package notebook

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/internal/statedb"
)

// Hard limits of the seed: they are part of the prompt's contract.
const (
	MaxNameChars        = 48
	MaxDescriptionChars = 120
)

var nameRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9_-]+$`) })

// Note is one note of a session's notebook.
type Note struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Body        string `json:"body"`
	PrevBody    string `json:"prev_body"`
	Pinned      bool   `json:"pinned"`
	// PinnedAt is when the pin was admitted by the budget check (zero when
	// not pinned). Over the budget, pins keep their place in this order:
	// one that arrived without the check (restored, rewritten by a
	// rebuild, or past a ceiling lowered since) is the one named instead
	// of quoted, never an older one.
	PinnedAt time.Time `json:"pinned_at,omitzero"`
	Created  time.Time `json:"created"`
	Updated  time.Time `json:"updated"`
	// New is true when the note changed since the person last looked.
	New bool `json:"new"`
}

// ErrOff is returned when the configuration switches the notebook off.
var ErrOff = errors.New("the notebook is off (notes.enabled: false)")

// Refusal is an error the model (or person) can fix: a limit, a missing
// note, a blind overwrite. Tools return it as a tool result.
type Refusal struct{ Msg string }

func (r *Refusal) Error() string { return r.Msg }

func refuse(format string, args ...any) error { return &Refusal{Msg: fmt.Sprintf(format, args...)} }

// IsRefusal reports whether err is a Refusal.
func IsRefusal(err error) bool {
	var r *Refusal
	return errors.As(err, &r)
}

// Book is one session's notebook.
type Book struct {
	db     *statedb.DB
	chatID string
	cfg    config.Notes
	now    func() time.Time

	mu   sync.Mutex
	mode Mode            // fixed for the running turn
	read map[string]bool // notes read in the running turn

	// wmu serialises Save, Delete and Pin: each reads the notebook,
	// checks it (a name taken, the pin budget) and writes, and the loop
	// runs an answer's calls in parallel — two saves of one new name would
	// otherwise both insert, and parallel pins overrun the budget.
	wmu sync.Mutex
}

// Open returns the notebook of a session.
func Open(db *statedb.DB, chatID string, cfg config.Notes) *Book {
	return &Book{db: db, chatID: chatID, cfg: cfg, now: time.Now}
}

// pinnedBudget is pinned_chars, never below max_note_chars: otherwise a
// note of legal size could never be pinned.
func (b *Book) pinnedBudget() int { return max(b.cfg.PinnedChars, b.cfg.MaxNoteChars) }

// PinLimits are the budget of pinned notes shown verbatim: pinned_chars
// (never below max_note_chars) and pinned_max.
func (b *Book) PinLimits() PinLimits { return PinLimits{Chars: b.pinnedBudget(), Max: b.cfg.PinnedMax} }

// List returns the notes, pinned first, then by name; New marks notes that
// changed since the visit mark.
func (b *Book) List(ctx context.Context) ([]Note, error) {
	var seen int64
	if err := b.db.QueryRowContext(ctx, `SELECT notes_seen_at FROM chats WHERE id = ?`, b.chatID).Scan(&seen); err != nil {
		return nil, fmt.Errorf("notebook of %s: %w", b.chatID, err)
	}
	rows, err := b.db.QueryContext(ctx, `SELECT name, description, body, prev_body, pinned, created, updated FROM chat_notes
		WHERE chat_id = ? ORDER BY pinned != 0 DESC, name`, b.chatID)
	if err != nil {
		return nil, fmt.Errorf("notebook of %s: %w", b.chatID, err)
	}
	defer rows.Close()
	var out []Note
	for rows.Next() {
		var n Note
		var pinned, created, updated int64
		if err := rows.Scan(&n.Name, &n.Description, &n.Body, &n.PrevBody, &pinned, &created, &updated); err != nil {
			return nil, err
		}
		n.Pinned = pinned != 0
		if n.Pinned {
			n.PinnedAt = time.UnixMilli(pinned).UTC()
		}
		n.Created, n.Updated = time.UnixMilli(created).UTC(), time.UnixMilli(updated).UTC()
		n.New = updated > seen
		out = append(out, n)
	}
	return out, rows.Err()
}

// Get returns one note.
func (b *Book) Get(ctx context.Context, name string) (Note, error) {
	notes, err := b.List(ctx)
	if err != nil {
		return Note{}, err
	}
	for _, n := range notes {
		if n.Name == name {
			return n, nil
		}
	}
	return Note{}, refuse("there is no note %q%s", name, nameHint(notes))
}

func nameHint(notes []Note) string {
	if len(notes) == 0 {
		return " (the notebook is empty)"
	}
	names := make([]string, len(notes))
	for i, n := range notes {
		names[i] = n.Name
	}
	return "; the notes are: " + strings.Join(names, ", ")
}

// checkLimits refuses a note over a limit — never cuts it silently.
func (b *Book) checkLimits(name, description, body string) error {
	switch {
	case name == "" || utf8.RuneCountInString(name) > MaxNameChars || !nameRe().MatchString(name):
		return refuse("note name %q: use at most %d characters of a-z, 0-9, '-' and '_'", name, MaxNameChars)
	case strings.TrimSpace(description) == "":
		return refuse("note %s needs a description (one line, at most %d characters): it is what index mode shows", name, MaxDescriptionChars)
	case utf8.RuneCountInString(description) > MaxDescriptionChars:
		return refuse("the description of %s is %d characters, over %d: shorten it (it lives in the prompt)", name, utf8.RuneCountInString(description), MaxDescriptionChars)
	case strings.TrimSpace(body) == "":
		return refuse("note %s has an empty body: to remove a note use chat_note_delete", name)
	case utf8.RuneCountInString(body) > b.cfg.MaxNoteChars:
		return refuse("the body of %s is %d characters, over the limit of %d: split it into two notes", name, utf8.RuneCountInString(body), b.cfg.MaxNoteChars)
	}
	return nil
}

// SaveResult says what a save did, for the visible line.
type SaveResult struct {
	Note    Note
	Created bool
}

// Save creates or overwrites a note. Limits are checked, never cut; a
// pinned note must still fit the pin budget.
func (b *Book) Save(ctx context.Context, name, description, body string) (SaveResult, error) {
	b.wmu.Lock()
	defer b.wmu.Unlock()
	name, description = strings.TrimSpace(name), strings.TrimSpace(strings.ReplaceAll(description, "\n", " "))
	if err := b.checkLimits(name, description, body); err != nil {
		return SaveResult{}, err
	}
	notes, err := b.List(ctx)
	if err != nil {
		return SaveResult{}, err
	}
	i := slices.IndexFunc(notes, func(n Note) bool { return n.Name == name })
	now := b.now().UTC()
	if i < 0 {
		_, err := b.db.ExecContext(ctx, `INSERT INTO chat_notes(chat_id, name, description, body, prev_body, pinned, created, updated) VALUES (?, ?, ?, ?, '', 0, ?, ?)`,
			b.chatID, name, description, body, now.UnixMilli(), now.UnixMilli())
		if err != nil {
			return SaveResult{}, fmt.Errorf("save note %s: %w", name, err)
		}
		return SaveResult{Note: Note{Name: name, Description: description, Body: body, Created: now, Updated: now, New: true}, Created: true}, nil
	}
	old := notes[i]
	if old.Pinned {
		if err := b.checkPinBudget(notes, name, body); err != nil {
			return SaveResult{}, err
		}
	}
	_, err = b.db.ExecContext(ctx, `UPDATE chat_notes SET description = ?, body = ?, prev_body = ?, updated = ? WHERE chat_id = ? AND name = ?`,
		description, body, old.Body, now.UnixMilli(), b.chatID, name)
	if err != nil {
		return SaveResult{}, fmt.Errorf("save note %s: %w", name, err)
	}
	n := old
	n.Description, n.PrevBody, n.Body, n.Updated, n.New = description, old.Body, body, now, true
	return SaveResult{Note: n}, nil
}

// Delete removes a note.
func (b *Book) Delete(ctx context.Context, name string) (Note, error) {
	b.wmu.Lock()
	defer b.wmu.Unlock()
	n, err := b.Get(ctx, name)
	if err != nil {
		return Note{}, err
	}
	if _, err := b.db.ExecContext(ctx, `DELETE FROM chat_notes WHERE chat_id = ? AND name = ?`, b.chatID, name); err != nil {
		return Note{}, fmt.Errorf("delete note %s: %w", name, err)
	}
	return n, nil
}

// checkPinBudget refuses when the pinned notes, with name at body, would
// not fit: the refusal says what to fix.
func (b *Book) checkPinBudget(notes []Note, name, body string) error {
	budget := b.pinnedBudget()
	size := utf8.RuneCountInString(body)
	if size > budget {
		return refuse("note %s is %d characters, over the pin budget of %d: cut it before pinning", name, size, budget)
	}
	var holders []string
	total, count := size, 1
	for _, n := range notes {
		if n.Pinned && n.Name != name {
			count++
			s := utf8.RuneCountInString(n.Body)
			total += s
			holders = append(holders, fmt.Sprintf("%s (%d)", n.Name, s))
		}
	}
	if count > b.cfg.PinnedMax {
		return refuse("at most %d notes can be pinned and these are: %s — unpin one first", b.cfg.PinnedMax, strings.Join(holders, ", "))
	}
	if total > budget {
		return refuse("pinning %s (%d characters) would need %d of the %d-character pin budget; these pinned notes hold it: %s — unpin or shorten one", name, size, total, budget, strings.Join(holders, ", "))
	}
	return nil
}

// Pin pins or unpins a note. A new pin passes the budget check and is
// stamped with the time it was admitted (chat_notes.pinned holds it, 0 =
// not pinned); pinning a pinned note again keeps its place.
func (b *Book) Pin(ctx context.Context, name string, pinned bool) (Note, error) {
	b.wmu.Lock()
	defer b.wmu.Unlock()
	notes, err := b.List(ctx)
	if err != nil {
		return Note{}, err
	}
	i := slices.IndexFunc(notes, func(n Note) bool { return n.Name == name })
	if i < 0 {
		return Note{}, refuse("there is no note %q%s", name, nameHint(notes))
	}
	n := notes[i]
	now := b.now().UTC()
	switch {
	case pinned && !n.Pinned:
		if err := b.checkPinBudget(notes, name, n.Body); err != nil {
			return Note{}, err
		}
		n.PinnedAt = now.Truncate(time.Millisecond)
	case !pinned:
		n.PinnedAt = time.Time{}
	}
	n.Pinned = pinned
	if _, err := b.db.ExecContext(ctx, `UPDATE chat_notes SET pinned = ?, updated = ? WHERE chat_id = ? AND name = ?`,
		pinStamp(n), now.UnixMilli(), b.chatID, name); err != nil {
		return Note{}, fmt.Errorf("pin note %s: %w", name, err)
	}
	return n, nil
}

// pinStamp is a note's chat_notes.pinned value: 0 when not pinned, else
// the admission time in milliseconds (1 for a pin whose time is unknown —
// an archive written before pins were stamped — so it ranks first, as it
// was there before any stamped one).
func pinStamp(n Note) int64 {
	switch {
	case !n.Pinned:
		return 0
	case n.PinnedAt.IsZero() || n.PinnedAt.UnixMilli() < 1:
		return 1
	}
	return n.PinnedAt.UnixMilli()
}

// MarkSeen advances the person's visit mark: notes changed before now are
// no longer new.
func (b *Book) MarkSeen(ctx context.Context) error {
	_, err := b.db.ExecContext(ctx, `UPDATE chats SET notes_seen_at = ? WHERE id = ?`, b.now().UTC().UnixMilli(), b.chatID)
	return err
}

// Count returns the number of notes.
func (b *Book) Count(ctx context.Context) (int, error) {
	var n int
	err := b.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM chat_notes WHERE chat_id = ?`, b.chatID).Scan(&n)
	return n, err
}

// archive stores the whole notebook (full records, one row per session,
// overwritten) before a swap.
func (b *Book) archive(ctx context.Context, tx *sql.Tx, notes []Note) error {
	data, err := json.Marshal(notes)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO chat_notes_archive(chat_id, archived, notes) VALUES (?, ?, ?)
		ON CONFLICT(chat_id) DO UPDATE SET archived = excluded.archived, notes = excluded.notes`, b.chatID, b.now().UTC().UnixMilli(), string(data))
	return err
}

// Archived returns the archived notebook (the one the last rebuild or
// restore replaced) and when it was archived, without changing anything;
// ok is false when the session has none.
func (b *Book) Archived(ctx context.Context) (notes []Note, at time.Time, ok bool, err error) {
	var data string
	var archived int64
	err = b.db.QueryRowContext(ctx, `SELECT notes, archived FROM chat_notes_archive WHERE chat_id = ?`, b.chatID).Scan(&data, &archived)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, time.Time{}, false, nil
	}
	if err != nil {
		return nil, time.Time{}, false, fmt.Errorf("read the notebook archive of %s: %w", b.chatID, err)
	}
	if err := json.Unmarshal([]byte(data), &notes); err != nil {
		return nil, time.Time{}, false, fmt.Errorf("the notebook archive of %s is damaged: %w", b.chatID, err)
	}
	return notes, time.UnixMilli(archived).UTC(), true, nil
}

// replace swaps the notebook for notes in one transaction, archiving the
// current one first; the rebuild's backoff starts afresh (a new notebook).
func (b *Book) replace(ctx context.Context, current, next []Note) error {
	tx, err := b.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("notebook swap: %w", err)
	}
	defer tx.Rollback()
	if err := b.archive(ctx, tx, current); err != nil {
		return fmt.Errorf("archive the notebook: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM chat_notes WHERE chat_id = ?`, b.chatID); err != nil {
		return fmt.Errorf("notebook swap: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE chats SET notes_rebuild_failures = 0, notes_rebuild_after = 0 WHERE id = ?`, b.chatID); err != nil {
		return fmt.Errorf("notebook swap: %w", err)
	}
	for _, n := range next {
		if _, err := tx.ExecContext(ctx, `INSERT INTO chat_notes(chat_id, name, description, body, prev_body, pinned, created, updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			b.chatID, n.Name, n.Description, n.Body, n.PrevBody, pinStamp(n), n.Created.UnixMilli(), n.Updated.UnixMilli()); err != nil {
			return fmt.Errorf("notebook swap: note %s: %w", n.Name, err)
		}
	}
	return tx.Commit()
}

// Restore brings back the archived notebook as the same notes (names,
// pins and their order, creation dates); the current notebook takes its
// place in the archive, so a restore can itself be undone. A restored
// notebook past the compact thresholds (OverCompact) is rebuilt after the
// session's next turn — the backoff of earlier failures is reset — and
// that rebuild archives it in turn: the caller says so.
func (b *Book) Restore(ctx context.Context) ([]Note, error) {
	var data string
	err := b.db.QueryRowContext(ctx, `SELECT notes FROM chat_notes_archive WHERE chat_id = ?`, b.chatID).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, refuse("this session has no archived notebook (one is kept when a rebuild replaces the notebook)")
	}
	if err != nil {
		return nil, fmt.Errorf("read the notebook archive: %w", err)
	}
	var archived []Note
	if err := json.Unmarshal([]byte(data), &archived); err != nil {
		return nil, fmt.Errorf("the notebook archive of %s is damaged: %w", b.chatID, err)
	}
	current, err := b.List(ctx)
	if err != nil {
		return nil, err
	}
	if err := b.replace(ctx, current, archived); err != nil {
		return nil, err
	}
	return archived, nil
}

// Put saves a note as the person (`yagent notes put`) and pins it when
// pin is set.
func (b *Book) Put(ctx context.Context, name, description, body string, pin bool) (SaveResult, error) {
	res, err := b.Save(ctx, name, description, body)
	if err == nil && pin {
		res.Note, err = b.Pin(ctx, name, true)
	}
	return res, err
}

// Look lists the notes, each marked new when it changed since the person
// last looked, and marks them seen (`yagent notes ls`).
func (b *Book) Look(ctx context.Context) ([]Note, error) {
	notes, err := b.List(ctx)
	if err != nil {
		return nil, err
	}
	return notes, b.MarkSeen(ctx)
}

// WarnRestored is what `yagent notes restore` says on w when the notebook
// it brought back is over the compact thresholds (OverCompact).
func (b *Book) WarnRestored(w io.Writer, notes []Note) {
	if over := OverCompact(notes, b.cfg); over != "" {
		fmt.Fprintf(w, "note: the restored notebook is %s: the next turn of session %s rebuilds it, "+
			"archiving it in place of the notebook it replaced now (raise the threshold to keep it as it is)\n", over, b.chatID)
	}
}
