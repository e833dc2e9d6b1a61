package kb

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// TrashedNote is a note in the trash.
type TrashedNote struct {
	ID        string     `json:"id"`
	Title     string     `json:"title"`
	Project   string     `json:"project,omitempty"`
	Path      string     `json:"path"`
	Class     string     `json:"class"`
	DeletedAt time.Time  `json:"deletedAt"`
	DeletedBy Provenance `json:"deletedBy"`
}

// trashScope is what a person's trash operations reach: their projects
// and personal domain.
func trashScope(ctx context.Context, q querier, person Caller) (scope, error) {
	return readScope(ctx, q, person, "")
}

// TrashListProject is TrashList narrowed to one of the person's projects
// by handle ("" = everything TrashList shows); a handle that is not one of
// theirs is not found.
func (s *Store) TrashListProject(ctx context.Context, person Caller, project string) ([]TrashedNote, error) {
	notes, err := s.TrashList(ctx, person)
	if err != nil || project == "" {
		return notes, err
	}
	mine, err := s.GetMyProjects(ctx, person, GetMyProjectsInput{})
	if err != nil {
		return nil, err
	}
	if !slices.ContainsFunc(mine.Projects, func(p ProjectRef) bool { return p.Handle == project }) {
		return nil, notFoundf("no project %q among yours: yagent kb projects lists them", project)
	}
	kept := notes[:0]
	for _, n := range notes {
		if n.Project == project {
			kept = append(kept, n)
		}
	}
	return kept, nil
}

// TrashList lists the trashed notes the person can reach, newest first.
// Only a person may see, restore or empty the trash.
func (s *Store) TrashList(ctx context.Context, person Caller) ([]TrashedNote, error) {
	if err := person.requirePerson("the trash"); err != nil {
		return nil, err
	}
	sc, err := trashScope(ctx, s.db, person)
	if err != nil {
		return nil, err
	}
	where, args := sc.where("n.domain_id", "n.about_project", false)
	rows, err := s.db.QueryContext(ctx, `SELECT n.id, n.title, coalesce(d.project_id, 0), n.folder, n.class, `+provenanceCols+`
		FROM notes n JOIN domains d ON d.id = n.domain_id JOIN revisions r ON r.note_id = n.id AND r.version = n.version`+provenanceJoins+`
		WHERE n.deleted_at IS NOT NULL AND `+where+` ORDER BY n.deleted_at DESC, n.id DESC`, args...)
	if err != nil {
		return nil, fmt.Errorf("list trash: %w", err)
	}
	defer rows.Close()
	out := []TrashedNote{}
	names := projectNames{}
	for rows.Next() {
		var t TrashedNote
		var id, project, at int64
		dest := append([]any{&id, &t.Title, &project, &t.Path, &t.Class}, t.DeletedBy.scanDest(&at)...)
		if err := rows.Scan(dest...); err != nil {
			return nil, fmt.Errorf("list trash: %w", err)
		}
		t.ID, t.DeletedAt, t.DeletedBy.At = noteRef(id), fromMicro(at), fromMicro(at)
		if t.Project, err = names.handle(ctx, s.db, project); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// TrashRestore brings a trashed note back where it was. It fails if a live
// note has taken its title meanwhile.
func (s *Store) TrashRestore(ctx context.Context, person Caller, id string) (NoteVersion, error) {
	if err := person.requirePerson("restoring from the trash"); err != nil {
		return NoteVersion{}, err
	}
	var out NoteVersion
	err := s.write(ctx, person, "trash_restore", func(w *wtx) error {
		n, err := loadNoteOrTrashed(ctx, w, person, id)
		if err != nil {
			return err
		}
		if n.DeletedAt == 0 {
			return invalidf("note %s is not in the trash", id)
		}
		if owner, err := liveTitleOwner(ctx, w, n.DomainID, n.Folder, n.Title); err != nil {
			return err
		} else if owner != 0 {
			return conflictf("note %s cannot come back: %s has its title %q in %s now; rename or move one of them first",
				id, noteRef(owner), n.Title, folderName(n.Folder))
		}
		if err := w.setTrashed(n, false); err != nil {
			return err
		}
		cur, _, err := getNoteRow(ctx, w, n.ID)
		out = NoteVersion{ID: noteRef(cur.ID), Path: cur.Folder, VersionToken: cur.versionToken()}
		return err
	})
	if err != nil {
		return NoteVersion{}, fmt.Errorf("restore %s: %w", id, err)
	}
	return out, nil
}

// TrashEmpty deletes for good the trashed notes the person can reach, in
// one project (handle) or everywhere (""), with their revisions and links,
// and reports how many.
func (s *Store) TrashEmpty(ctx context.Context, person Caller, handle string) (int, error) {
	if err := person.requirePerson("emptying the trash"); err != nil {
		return 0, err
	}
	var purged int
	err := s.inTx(ctx, func(tx *txn) error {
		sc, err := trashScope(ctx, tx, person)
		if err != nil {
			return err
		}
		if strings.TrimSpace(handle) != "" {
			if sc, err = readScope(ctx, tx, person, handle); err != nil {
				return err
			}
			sc.domains = sc.domains[:1]
		}
		where, args := sc.where("n.domain_id", "n.about_project", false)
		res, err := tx.ExecContext(ctx, "DELETE FROM notes WHERE id IN (SELECT n.id FROM notes n WHERE n.deleted_at IS NOT NULL AND "+where+")", args...)
		if err != nil {
			return err
		}
		n, _ := res.RowsAffected()
		purged = int(n)
		w := &wtx{txn: tx, ctx: ctx, c: person, tool: "trash_empty", at: s.nowMicro()}
		return w.activity(0, 0, "trash_empty", fmt.Sprintf("%d notes", purged))
	})
	if err != nil {
		return 0, fmt.Errorf("empty trash: %w", err)
	}
	return purged, nil
}
