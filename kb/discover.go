package kb

import (
	"context"
	"encoding/base64"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// ListNotesInput is the input of list_notes.
type ListNotesInput struct {
	Project string `json:"project" jsonschema:"project handle from get_my_projects, verbatim"`
	Path    string `json:"path,omitempty" jsonschema:"folder to list, verbatim from an earlier answer; default the project root"`
	Tag     string `json:"tag,omitempty" jsonschema:"only notes with this tag"`
	Cursor  string `json:"cursor,omitempty" jsonschema:"nextCursor from the previous page"`
	Limit   int    `json:"limit,omitempty" jsonschema:"notes per page, 1 to 200; default 50"`
}

// ListNotesOutput is the output of list_notes.
type ListNotesOutput struct {
	Project    string        `json:"project"`
	Path       string        `json:"path"`
	Folders    []FolderCount `json:"folders" jsonschema:"subfolders with the number of notes at or below them (first page only)"`
	Notes      []NoteEntry   `json:"notes" jsonschema:"notes directly in this folder, by title"`
	NextCursor string        `json:"nextCursor,omitempty" jsonschema:"pass as cursor for the next page; absent on the last page"`
}

// NoteEntry is a note in a listing.
type NoteEntry struct {
	ID        string    `json:"id"`
	Title     string    `json:"title"`
	Path      string    `json:"path"`
	Type      string    `json:"type,omitempty"`
	Tags      []string  `json:"tags,omitempty"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// ListAllNotes is every page of ListNotes in one output (NextCursor
// empty): what a person's listing shows.
func (s *Store) ListAllNotes(ctx context.Context, c Caller, in ListNotesInput) (ListNotesOutput, error) {
	var all ListNotesOutput
	for {
		page, err := s.ListNotes(ctx, c, in)
		if err != nil {
			return ListNotesOutput{}, err
		}
		if all.Project == "" {
			all = page
		} else {
			all.Notes = append(all.Notes, page.Notes...)
		}
		if page.NextCursor == "" {
			break
		}
		in.Cursor = page.NextCursor
	}
	all.NextCursor = ""
	return all, nil
}

// ListNotes lists a folder of a project. See tooldesc/list_notes.md.
func (s *Store) ListNotes(ctx context.Context, c Caller, in ListNotesInput) (ListNotesOutput, error) {
	if err := c.check(); err != nil {
		return ListNotesOutput{}, err
	}
	p, err := resolveProject(ctx, s.db, c, in.Project)
	if err != nil {
		return ListNotesOutput{}, err
	}
	dir, err := normalizeFolder(in.Path)
	if err != nil {
		return ListNotesOutput{}, err
	}
	limit, err := clampLimit(in.Limit, 50, 200)
	if err != nil {
		return ListNotesOutput{}, err
	}
	tag := ""
	if in.Tag != "" {
		tags, err := normalizeTags([]string{in.Tag})
		if err != nil || len(tags) != 1 {
			return ListNotesOutput{}, invalidf("tag %q is not a tag", in.Tag)
		}
		tag = tags[0]
	}
	out := ListNotesOutput{Project: p.Handle, Path: dir, Folders: []FolderCount{}, Notes: []NoteEntry{}}
	afterKey, afterID := "", int64(0)
	if in.Cursor != "" {
		if afterKey, afterID, err = decodeCursor(in.Cursor); err != nil {
			return ListNotesOutput{}, err
		}
	} else if out.Folders, err = subfolders(ctx, s, p, dir, tag); err != nil {
		return ListNotesOutput{}, err
	}
	tagCond, args := "", []any{p.DomainID, dir, afterKey, afterID}
	if tag != "" {
		tagCond = " AND EXISTS (SELECT 1 FROM note_tags t WHERE t.note_id = n.id AND t.tag = ?)"
		args = append(args, tag)
	}
	rows, err := s.db.QueryContext(ctx, noteSelect+` WHERE n.domain_id = ? AND n.folder = ? AND n.deleted_at IS NULL
		AND n.title_key >= ?3 AND (n.title_key > ?3 OR n.id > ?4)`+tagCond+` ORDER BY n.title_key, n.id LIMIT `+strconv.Itoa(limit+1), args...)
	if err != nil {
		return ListNotesOutput{}, fmt.Errorf("list_notes: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		n, err := scanNote(rows)
		if err != nil {
			return ListNotesOutput{}, fmt.Errorf("list_notes: %w", err)
		}
		if len(out.Notes) == limit {
			last := out.Notes[limit-1]
			id, _ := parseNoteRef(last.ID)
			out.NextCursor = encodeCursor(titleKey(last.Title), id)
			break
		}
		out.Notes = append(out.Notes, NoteEntry{ID: noteRef(n.ID), Title: n.Title, Path: n.Folder, Type: n.Type,
			Tags: n.Tags, UpdatedAt: fromMicro(n.UpdatedAt)})
	}
	if err := rows.Err(); err != nil {
		return ListNotesOutput{}, fmt.Errorf("list_notes: %w", err)
	}
	if dir != "" && in.Cursor == "" && len(out.Notes) == 0 && len(out.Folders) == 0 && tag == "" {
		return ListNotesOutput{}, withCLI(notFoundf("no folder %q in project %s; call list_notes without path to see the top folders", dir, p.Handle),
			"no folder %q in project %s: yagent kb ls --project %s lists its top folders", dir, p.Handle, p.Handle)
	}
	return out, nil
}

// subfolders counts the notes below each direct child folder of dir.
func subfolders(ctx context.Context, s *Store, p project, dir, tag string) ([]FolderCount, error) {
	tagCond, args := "", []any{p.DomainID, dir}
	if tag != "" {
		tagCond = " AND EXISTS (SELECT 1 FROM note_tags t WHERE t.note_id = notes.id AND t.tag = ?)"
		args = append(args, tag)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT folder, count(*) FROM notes WHERE domain_id = ? AND deleted_at IS NULL
		AND folder <> ?2 AND (?2 = '' OR substr(folder, 1, length(?2) + 1) = ?2 || '/')`+tagCond+` GROUP BY folder`, args...)
	if err != nil {
		return nil, fmt.Errorf("list folders: %w", err)
	}
	defer rows.Close()
	counts := map[string]int{}
	for rows.Next() {
		var folder string
		var n int
		if err := rows.Scan(&folder, &n); err != nil {
			return nil, fmt.Errorf("list folders: %w", err)
		}
		rest := strings.TrimPrefix(folder, dir)
		rest = strings.TrimPrefix(rest, "/")
		child, _, _ := strings.Cut(rest, "/")
		if dir != "" {
			child = dir + "/" + child
		}
		counts[child] += n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list folders: %w", err)
	}
	out := make([]FolderCount, 0, len(counts))
	for path, n := range counts {
		out = append(out, FolderCount{Path: path, Notes: n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

func encodeCursor(key string, id int64) string {
	return base64.RawURLEncoding.EncodeToString([]byte(key + "\x00" + strconv.FormatInt(id, 10)))
}

func decodeCursor(cur string) (string, int64, error) {
	b, err := base64.RawURLEncoding.DecodeString(cur)
	if err == nil {
		if key, id, ok := strings.Cut(string(b), "\x00"); ok {
			if n, err := strconv.ParseInt(id, 10, 64); err == nil {
				return key, n, nil
			}
		}
	}
	return "", 0, invalidf("cursor %q is not one list_notes returned; start again without cursor", cur)
}

// RecentActivityInput is the input of recent_activity.
type RecentActivityInput struct {
	Project string `json:"project,omitempty" jsonschema:"project handle; omit for every project you can reach"`
	Limit   int    `json:"limit,omitempty" jsonschema:"number of notes, 1 to 100; default 20"`
}

// RecentActivityOutput is the output of recent_activity.
type RecentActivityOutput struct {
	Notes []ActivityEntry `json:"notes" jsonschema:"most recently changed first"`
}

// ActivityEntry is a recently changed note and its last change.
type ActivityEntry struct {
	ID      string     `json:"id"`
	Title   string     `json:"title"`
	Project string     `json:"project"`
	Path    string     `json:"path"`
	Action  string     `json:"action" jsonschema:"the last change: create, edit, move, rename, restore, import"`
	Changed Provenance `json:"changed" jsonschema:"who (person or agent), how (tool), where (client, session) and when"`
}

// RecentActivity lists the most recently changed notes. See
// tooldesc/recent_activity.md.
func (s *Store) RecentActivity(ctx context.Context, c Caller, in RecentActivityInput) (RecentActivityOutput, error) {
	if err := c.check(); err != nil {
		return RecentActivityOutput{}, err
	}
	limit, err := clampLimit(in.Limit, 20, 100)
	if err != nil {
		return RecentActivityOutput{}, err
	}
	sc, err := readScope(ctx, s.db, c, in.Project)
	if err != nil {
		return RecentActivityOutput{}, err
	}
	where, args := sc.filter()
	rows, err := s.db.QueryContext(ctx, `SELECT n.id, n.title, coalesce(d.project_id, 0), n.folder, r.action, `+provenanceCols+`
		FROM notes n JOIN domains d ON d.id = n.domain_id JOIN revisions r ON r.note_id = n.id AND r.version = n.version`+provenanceJoins+`
		WHERE `+where+` AND n.class = 'user-doc' ORDER BY n.updated_at DESC, n.id DESC LIMIT `+strconv.Itoa(limit), args...)
	if err != nil {
		return RecentActivityOutput{}, fmt.Errorf("recent_activity: %w", err)
	}
	defer rows.Close()
	out := RecentActivityOutput{Notes: []ActivityEntry{}}
	names := projectNames{}
	for rows.Next() {
		var e ActivityEntry
		var id, project, at int64
		dest := append([]any{&id, &e.Title, &project, &e.Path, &e.Action}, e.Changed.scanDest(&at)...)
		if err := rows.Scan(dest...); err != nil {
			return RecentActivityOutput{}, fmt.Errorf("recent_activity: %w", err)
		}
		e.ID, e.Changed.At = noteRef(id), fromMicro(at)
		if e.Project, err = names.handle(ctx, s.db, project); err != nil {
			return RecentActivityOutput{}, err
		}
		out.Notes = append(out.Notes, e)
	}
	return out, rows.Err()
}
