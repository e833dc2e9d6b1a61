package kb

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Note classes. A project holds user-doc notes only; a personal domain holds
// the user profile and the agents' memory.
const (
	ClassUserDoc     = "user-doc"
	ClassAgentMemory = "agent-memory"
	ClassUserProfile = "user-profile"
)

// noteRow is a note as stored, with its domain's owner.
type noteRow struct {
	ID           int64
	DomainID     int64
	ProjectID    int64 // 0 in a personal domain
	OwnerID      int64 // 0 in a project
	Class        string
	AboutProject int64
	Folder       string
	Title        string
	Body         string
	Type         string
	Tags         []string
	Frontmatter  string
	Version      int64
	ContentHash  string
	CreatedAt    int64
	UpdatedAt    int64
	DeletedAt    int64
	Source       string
	SourceHash   string
}

const noteSelect = `SELECT n.id, n.domain_id, coalesce(d.project_id, 0), coalesce(d.owner_id, 0), n.class,
	coalesce(n.about_project, 0), n.folder, n.title, n.body, n.type, n.tags, n.frontmatter, n.version,
	n.content_hash, n.created_at, n.updated_at, coalesce(n.deleted_at, 0), coalesce(n.source, ''),
	coalesce(n.source_hash, '')
	FROM notes n JOIN domains d ON d.id = n.domain_id`

type scanner interface{ Scan(dest ...any) error }

func scanNote(r scanner) (noteRow, error) {
	var n noteRow
	var tags string
	err := r.Scan(&n.ID, &n.DomainID, &n.ProjectID, &n.OwnerID, &n.Class, &n.AboutProject, &n.Folder,
		&n.Title, &n.Body, &n.Type, &tags, &n.Frontmatter, &n.Version, &n.ContentHash, &n.CreatedAt,
		&n.UpdatedAt, &n.DeletedAt, &n.Source, &n.SourceHash)
	n.Tags = strings.Fields(tags)
	return n, err
}

// noteRef is a note's public id.
func noteRef(id int64) string { return "n" + strconv.FormatInt(id, 10) }

// parseNoteRef accepts "n42" (and tolerates surrounding spaces).
func parseNoteRef(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	if len(s) < 2 || s[0] != 'n' {
		return 0, false
	}
	id, err := strconv.ParseInt(s[1:], 10, 64)
	return id, err == nil && id > 0
}

func contentHash(title, body, typ string, tags []string, fm string) string {
	h := sha256.New()
	for _, part := range []string{title, body, typ, strings.Join(tags, " "), fm} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// versionToken is the opaque CAS token of a note's current version.
func (n noteRow) versionToken() string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("%d:%d:%s:%s", n.ID, n.Version, n.ContentHash, n.Folder)))
	return fmt.Sprintf("v%d.%s", n.Version, hex.EncodeToString(sum[:])[:8])
}

// checkVersion is the CAS test: an empty token skips it (tools where it is
// optional), a stale one fails with *ConflictError.
func (n noteRow) checkVersion(token string) error {
	if token == "" || token == n.versionToken() {
		return nil
	}
	return &ConflictError{NoteID: noteRef(n.ID), CurrentToken: n.versionToken()}
}

// getNoteRow loads a note without checking access.
func getNoteRow(ctx context.Context, q querier, id int64) (noteRow, bool, error) {
	n, err := scanNote(q.QueryRowContext(ctx, noteSelect+" WHERE n.id = ?", id))
	if errors.Is(err, sql.ErrNoRows) {
		return noteRow{}, false, nil
	}
	if err != nil {
		return noteRow{}, false, fmt.Errorf("load note %s: %w", noteRef(id), err)
	}
	return n, true, nil
}

// canSee reports whether c may read n: project notes need access to the
// project, personal ones belong to c's principal (and memory about a
// project also needs access to that project).
func canSee(ctx context.Context, q querier, c Caller, n noteRow) (bool, error) {
	if n.ProjectID != 0 {
		p, err := projectByID(ctx, q, n.ProjectID)
		if err != nil {
			return false, err
		}
		return canAccess(ctx, q, c, p)
	}
	if n.OwnerID != c.PrincipalID {
		return false, nil
	}
	if n.AboutProject != 0 {
		p, err := projectByID(ctx, q, n.AboutProject)
		if err != nil {
			return false, err
		}
		return canAccess(ctx, q, c, p)
	}
	return true, nil
}

// loadNote resolves a note id from a tool argument into a live note c may
// use. Missing, foreign and trashed notes are clear, fixable errors.
func loadNote(ctx context.Context, q querier, c Caller, ref string) (noteRow, error) {
	n, err := loadNoteOrTrashed(ctx, q, c, ref)
	if err == nil && n.DeletedAt != 0 {
		return noteRow{}, notFoundf("note %s is in the trash; only a person can restore it", ref)
	}
	return n, err
}

// loadNoteOrTrashed is loadNote that also returns a trashed note.
func loadNoteOrTrashed(ctx context.Context, q querier, c Caller, ref string) (noteRow, error) {
	id, ok := parseNoteRef(ref)
	if !ok {
		return noteRow{}, invalidf("note id %q is not an id like \"n42\"; take ids from search, list_notes or get_note", ref)
	}
	n, found, err := getNoteRow(ctx, q, id)
	if err != nil {
		return noteRow{}, err
	}
	if found {
		if found, err = canSee(ctx, q, c, n); err != nil {
			return noteRow{}, err
		}
	}
	if !found {
		return noteRow{}, notFoundf("no note %s among the notes you can reach; find ids with search or list_notes", ref)
	}
	return n, nil
}

// titleKey is how titles compare: case-folded, spaces collapsed.
func titleKey(title string) string {
	return strings.ToLower(strings.Join(strings.Fields(title), " "))
}

// liveTitleOwner returns the live note titled title in domain, or 0.
func liveTitleOwner(ctx context.Context, q querier, domain int64, title string) (int64, error) {
	var id int64
	err := q.QueryRowContext(ctx, "SELECT id FROM notes WHERE domain_id = ? AND title_key = ? AND deleted_at IS NULL",
		domain, titleKey(title)).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return id, err
}

// resolveTitle finds the live note a [[title]] means in domain: its current
// title first, then a former title (alias), then the part before '#'.
func resolveTitle(ctx context.Context, q querier, domain int64, title string) (id int64, viaAlias bool, err error) {
	for _, t := range titleCandidates(title) {
		if id, err = liveTitleOwner(ctx, q, domain, t); err != nil || id != 0 {
			return id, false, err
		}
		err = q.QueryRowContext(ctx, `SELECT a.note_id FROM title_aliases a JOIN notes n ON n.id = a.note_id
			WHERE a.domain_id = ? AND a.title_key = ? AND n.deleted_at IS NULL`, domain, titleKey(t)).Scan(&id)
		if err == nil {
			return id, true, nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return 0, false, err
		}
	}
	return 0, false, nil
}

func titleCandidates(title string) []string {
	out := []string{title}
	if i := strings.IndexByte(title, '#'); i > 0 {
		out = append(out, strings.TrimSpace(title[:i]))
	}
	return out
}
