package kb

import (
	"cmp"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"slices"
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

// liveTitleOwner returns the live note titled title in folder of domain,
// or 0: titles are unique per folder.
func liveTitleOwner(ctx context.Context, q querier, domain int64, folder, title string) (int64, error) {
	var id int64
	err := q.QueryRowContext(ctx, "SELECT id FROM notes WHERE domain_id = ? AND title_key = ? AND folder = ? AND deleted_at IS NULL",
		domain, titleKey(title), folder).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return id, err
}

// titleTaken is the error for a title another live note of the folder has,
// naming that note and where it came from.
func titleTaken(ctx context.Context, q querier, owner int64, title, folder, hint string) error {
	where := "in " + folderName(folder)
	from := ""
	var source sql.NullString
	if err := q.QueryRowContext(ctx, "SELECT source FROM notes WHERE id = ?", owner).Scan(&source); err == nil && source.Valid {
		from = ", imported from " + source.String
	}
	return conflictf("a note titled %q already exists %s (%s%s); %s", title, where, noteRef(owner), from, hint)
}

// folderName names a folder in a message.
func folderName(folder string) string {
	if folder == "" {
		return "the project root"
	}
	return "folder " + folder
}

// notePath is how a note is named with its folder: "Folder/Title".
func notePath(folder, title string) string {
	if folder == "" {
		return title
	}
	return folder + "/" + title
}

// refCandidate is a live note a reference may mean.
type refCandidate struct {
	id                    int64
	folder, title, source string
	via                   string // "" (its title), or the alias kind: file, alias, former
	at                    int64  // when the alias was recorded
}

// refCandidates lists the live notes of domain whose title, or one of
// whose aliases, is key.
func refCandidates(ctx context.Context, q querier, domain int64, key string) ([]refCandidate, error) {
	rows, err := q.QueryContext(ctx, `
		SELECT id, folder, title, coalesce(source, ''), '', 0 FROM notes
		WHERE domain_id = ?1 AND title_key = ?2 AND deleted_at IS NULL
		UNION ALL
		SELECT n.id, n.folder, n.title, coalesce(n.source, ''), a.kind, a.created_at
		FROM title_aliases a JOIN notes n ON n.id = a.note_id
		WHERE a.domain_id = ?1 AND a.title_key = ?2 AND n.deleted_at IS NULL`, domain, key)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []refCandidate
	for rows.Next() {
		var c refCandidate
		if err := rows.Scan(&c.id, &c.folder, &c.title, &c.source, &c.via, &c.at); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// matchesPath reports whether a path-qualified reference ("Folder/Note",
// "Sub/Note", "docs/guide/intro") names c: its folder and title, or the
// file it was imported from, end with the reference (at a '/').
func (c refCandidate) matchesPath(refKey string) bool {
	for _, p := range []string{notePath(c.folder, c.title), sourceStem(c.source)} {
		if p == "" {
			continue
		}
		k := titleKey(p)
		if k == refKey || strings.HasSuffix(k, "/"+refKey) {
			return true
		}
	}
	return false
}

// sourceStem is an imported file's path without its extension.
func sourceStem(source string) string {
	if source == "" {
		return ""
	}
	return strings.TrimSuffix(source, path.Ext(source))
}

// viaRank orders how a candidate matched: its title first, then its file
// name, an alias from front matter, a former title.
func viaRank(via string) int {
	return map[string]int{"": 0, "file": 1, "alias": 2, "former": 3}[via]
}

// resolveRef finds the live note a [[reference]] means in domain, as seen
// from a note in folder from: "Title", "Folder/Title" or an imported file's
// path, each optionally with "#heading". Among several notes of one title
// it takes the one in from's folder, else the one nearest the root (as
// Obsidian does); via is "" or the kind of alias that matched.
func resolveRef(ctx context.Context, q querier, domain int64, ref, from string) (id int64, via string, err error) {
	cands, err := resolveCandidates(ctx, q, domain, ref)
	if err != nil || len(cands) == 0 {
		return 0, "", err
	}
	best := nearest(cands, from)
	return best.id, best.via, nil
}

// resolveCandidates lists the notes ref may mean, best match kind first
// (all with the same kind: title matches hide alias matches).
func resolveCandidates(ctx context.Context, q querier, domain int64, ref string) ([]refCandidate, error) {
	for _, t := range titleCandidates(ref) {
		key := titleKey(t)
		cands, err := refCandidates(ctx, q, domain, key)
		if err != nil {
			return nil, err
		}
		if i := strings.LastIndexByte(key, '/'); i > 0 && i < len(key)-1 {
			byBase, err := refCandidates(ctx, q, domain, strings.TrimSpace(key[i+1:]))
			if err != nil {
				return nil, err
			}
			for _, c := range byBase {
				if c.matchesPath(key) {
					cands = append(cands, c)
				}
			}
		}
		if len(cands) == 0 {
			continue
		}
		best := viaRank(cands[0].via)
		for _, c := range cands {
			best = min(best, viaRank(c.via))
		}
		var out []refCandidate
		seen := map[int64]bool{}
		for _, c := range cands {
			if viaRank(c.via) == best && !seen[c.id] {
				seen[c.id] = true
				out = append(out, c)
			}
		}
		return out, nil
	}
	return nil, nil
}

// nearest picks from several candidates: the one in folder from, else the
// fewest folders deep, else the first folder by name, else the newest alias.
func nearest(cands []refCandidate, from string) refCandidate {
	return slices.MinFunc(cands, func(a, b refCandidate) int {
		if (a.folder == from) != (b.folder == from) {
			if a.folder == from {
				return -1
			}
			return 1
		}
		if d := cmp.Compare(folderDepth(a.folder), folderDepth(b.folder)); d != 0 {
			return d
		}
		if d := strings.Compare(a.folder, b.folder); d != 0 {
			return d
		}
		if d := cmp.Compare(b.at, a.at); d != 0 {
			return d
		}
		return cmp.Compare(a.id, b.id)
	})
}

func folderDepth(f string) int {
	if f == "" {
		return 0
	}
	return strings.Count(f, "/") + 1
}

// titleCandidates are the readings of a reference: as written, then
// without its "#heading" part.
func titleCandidates(title string) []string {
	out := []string{title}
	if i := strings.IndexByte(title, '#'); i > 0 {
		out = append(out, strings.TrimSpace(title[:i]))
	}
	return out
}

// refKeys are the keys a [[reference]] to n can be written with: its title
// and its path suffixes ("c/title", "b/c/title", …), and the same for the
// file it was imported from.
func refKeys(n noteRow) []string {
	var out []string
	add := func(segs []string) {
		for i := len(segs) - 1; i >= 0; i-- {
			if k := titleKey(strings.Join(segs[i:], "/")); k != "" && !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
	}
	var segs []string
	if n.Folder != "" {
		segs = strings.Split(n.Folder, "/")
	}
	add(append(segs, n.Title))
	if n.Source != "" {
		add(strings.Split(sourceStem(n.Source), "/"))
	}
	return out
}
