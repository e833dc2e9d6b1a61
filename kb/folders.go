package kb

import (
	"context"
	"fmt"
	"path"
	"strings"
)

// MoveFolderInput is the input of move_folder.
type MoveFolderInput struct {
	Project   string `json:"project" jsonschema:"project handle from get_my_projects, verbatim"`
	Path      string `json:"path" jsonschema:"the folder to move, as list_notes shows it, e.g. guides/deploy"`
	NewParent string `json:"newParent" jsonschema:"the folder to move it under; empty string for the project root"`
}

// RenameFolderInput is the input of rename_folder.
type RenameFolderInput struct {
	Project string `json:"project" jsonschema:"project handle from get_my_projects, verbatim"`
	Path    string `json:"path" jsonschema:"the folder to rename, as list_notes shows it, e.g. guides/deploy"`
	NewName string `json:"newName" jsonschema:"the folder's new name (one segment, no '/')"`
}

// FolderChange is the output of move_folder and rename_folder.
type FolderChange struct {
	Project string        `json:"project"`
	OldPath string        `json:"oldPath"`
	Path    string        `json:"path" jsonschema:"the folder's path now"`
	Notes   []NoteVersion `json:"notes" jsonschema:"the moved notes with their new versionTokens"`
}

// NoteVersion is a note's place and current versionToken after a write.
type NoteVersion struct {
	ID           string `json:"id"`
	Path         string `json:"path"`
	VersionToken string `json:"versionToken"`
}

// MoveFolder moves a folder with everything in it under another parent.
// See tooldesc/move_folder.md.
func (s *Store) MoveFolder(ctx context.Context, c Caller, in MoveFolderInput) (FolderChange, error) {
	var out FolderChange
	err := s.write(ctx, c, "move_folder", func(w *wtx) error {
		from, err := normalizeFolder(in.Path)
		if err != nil {
			return err
		}
		parent, err := normalizeFolder(in.NewParent)
		if err != nil {
			return err
		}
		out, err = w.moveFolder(in.Project, from, path.Join(parent, path.Base(from)))
		return err
	})
	if err != nil {
		return FolderChange{}, fmt.Errorf("move_folder: %w", err)
	}
	return out, nil
}

// RenameFolder renames a folder in place. See tooldesc/rename_folder.md.
func (s *Store) RenameFolder(ctx context.Context, c Caller, in RenameFolderInput) (FolderChange, error) {
	var out FolderChange
	err := s.write(ctx, c, "rename_folder", func(w *wtx) error {
		from, err := normalizeFolder(in.Path)
		if err != nil {
			return err
		}
		name := strings.TrimSpace(in.NewName)
		if name == "" || strings.Contains(name, "/") {
			return invalidf("newName %q must be one folder name without '/'; to move the folder use move_folder", in.NewName)
		}
		if _, err := normalizeFolder(name); err != nil {
			return err
		}
		to := name
		if dir := path.Dir(from); dir != "." {
			to = dir + "/" + name
		}
		out, err = w.moveFolder(in.Project, from, to)
		return err
	})
	if err != nil {
		return FolderChange{}, fmt.Errorf("rename_folder: %w", err)
	}
	return out, nil
}

// moveFolder moves the live notes at or under from to the same places under to.
func (w *wtx) moveFolder(handle, from, to string) (FolderChange, error) {
	p, err := resolveProject(w.ctx, w, w.c, handle)
	if err != nil {
		return FolderChange{}, err
	}
	if from == "" {
		return FolderChange{}, invalidf("the project root is not a folder you can move or rename; to rename the project use rename_project")
	}
	out := FolderChange{Project: p.Handle, OldPath: from, Path: to, Notes: []NoteVersion{}}
	notes, err := folderNotes(w.ctx, w, p.DomainID, from)
	if err != nil {
		return FolderChange{}, err
	}
	if len(notes) == 0 {
		return FolderChange{}, withCLI(notFoundf("no folder %q in project %s; call list_notes to see its folders", from, p.Handle),
			"no folder %q in project %s: yagent kb ls --project %s lists its folders", from, p.Handle, p.Handle)
	}
	if to == from {
		return out, nil
	}
	if inFolder(to, from) {
		return FolderChange{}, invalidf("cannot move folder %q into itself (%q)", from, to)
	}
	if existing, err := folderNotes(w.ctx, w, p.DomainID, to); err != nil {
		return FolderChange{}, err
	} else if len(existing) > 0 {
		return FolderChange{}, conflictf("folder %q already exists in %s; pick another name, or move notes one by one with move_note", to, p.Handle)
	}
	for _, n := range notes {
		after := n
		after.Folder = to + strings.TrimPrefix(n.Folder, from)
		if err := w.saveNote(n, &after, "move"); err != nil {
			return FolderChange{}, err
		}
		out.Notes = append(out.Notes, NoteVersion{ID: noteRef(n.ID), Path: after.Folder, VersionToken: after.versionToken()})
	}
	return out, w.activity(p.DomainID, 0, "move_folder", from+" -> "+to)
}

// folderNotes lists the live notes at or below dir, by path and title.
func folderNotes(ctx context.Context, q querier, domain int64, dir string) ([]noteRow, error) {
	rows, err := q.QueryContext(ctx, noteSelect+` WHERE n.domain_id = ? AND n.deleted_at IS NULL
		AND (n.folder = ?2 OR substr(n.folder, 1, length(?2) + 1) = ?2 || '/') ORDER BY n.folder, n.title_key`, domain, dir)
	if err != nil {
		return nil, fmt.Errorf("notes in folder %q: %w", dir, err)
	}
	defer rows.Close()
	var out []noteRow
	for rows.Next() {
		n, err := scanNote(rows)
		if err != nil {
			return nil, fmt.Errorf("notes in folder %q: %w", dir, err)
		}
		out = append(out, n)
	}
	return out, rows.Err()
}
