package kb

import (
	"context"
	"fmt"
	"strings"
)

// DeleteNoteInput is the input of delete_note.
type DeleteNoteInput struct {
	ID           string `json:"id" jsonschema:"note id, e.g. n42"`
	VersionToken string `json:"versionToken,omitempty" jsonschema:"optional: refuse if the note changed since this versionToken"`
}

// DeleteNoteOutput is the output of delete_note.
type DeleteNoteOutput struct {
	ID             string `json:"id"`
	Trashed        bool   `json:"trashed" jsonschema:"the note is now in the trash"`
	AlreadyTrashed bool   `json:"alreadyTrashed,omitempty" jsonschema:"it was in the trash before this call; nothing changed"`
	VersionToken   string `json:"versionToken" jsonschema:"the note's version in the trash (a person restores it)"`
}

// MoveNoteInput is the input of move_note.
type MoveNoteInput struct {
	ID           string `json:"id" jsonschema:"note id, e.g. n42"`
	Path         string `json:"path" jsonschema:"destination folder, e.g. guides/deploy; empty string for the project root"`
	VersionToken string `json:"versionToken,omitempty" jsonschema:"optional: refuse if the note changed since this versionToken"`
}

// RenameNoteInput is the input of rename_note.
type RenameNoteInput struct {
	ID           string `json:"id" jsonschema:"note id, e.g. n42"`
	Title        string `json:"title" jsonschema:"the new title"`
	VersionToken string `json:"versionToken,omitempty" jsonschema:"optional: refuse if the note changed since this versionToken"`
}

// NoteChange is the output of move_note and rename_note.
type NoteChange struct {
	ID           string `json:"id"`
	Title        string `json:"title"`
	OldTitle     string `json:"oldTitle,omitempty" jsonschema:"rename_note: the former title, which keeps resolving"`
	Path         string `json:"path" jsonschema:"the note's folder"`
	VersionToken string `json:"versionToken" jsonschema:"the note's new versionToken"`
	Changed      bool   `json:"changed" jsonschema:"false when the note already was so; nothing changed"`
}

// DeleteNote moves a note to the trash. See tooldesc/delete_note.md.
func (s *Store) DeleteNote(ctx context.Context, c Caller, in DeleteNoteInput) (DeleteNoteOutput, error) {
	var out DeleteNoteOutput
	err := s.write(ctx, c, "delete_note", func(w *wtx) error {
		n, err := loadNoteOrTrashed(ctx, w, c, in.ID)
		if err != nil {
			return err
		}
		out = DeleteNoteOutput{ID: noteRef(n.ID), Trashed: true, VersionToken: n.versionToken()}
		if n.DeletedAt != 0 {
			out.AlreadyTrashed = true
			return nil
		}
		if err := n.checkVersion(in.VersionToken); err != nil {
			return err
		}
		if err := w.setTrashed(n, true); err != nil {
			return err
		}
		cur, _, err := getNoteRow(ctx, w, n.ID)
		out.VersionToken = cur.versionToken()
		return err
	})
	if err != nil {
		return DeleteNoteOutput{}, fmt.Errorf("delete_note: %w", err)
	}
	return out, nil
}

// setTrashed moves n into the trash or out of it as a new version.
func (w *wtx) setTrashed(n noteRow, trashed bool) error {
	deletedAt, deletedBy, action := any(nil), any(nil), "restore"
	if trashed {
		deletedAt, deletedBy, action = w.at, w.c.PrincipalID, "delete"
	}
	res, err := w.ExecContext(w.ctx, `UPDATE notes SET deleted_at = ?, deleted_by = ?, version = version + 1,
		updated_at = ? WHERE id = ? AND version = ?`, deletedAt, deletedBy, w.at, n.ID, n.Version)
	if err != nil {
		return fmt.Errorf("%s %s: %w", action, noteRef(n.ID), err)
	}
	if k, _ := res.RowsAffected(); k == 0 {
		cur, _, err := getNoteRow(w.ctx, w, n.ID)
		if err != nil {
			return err
		}
		return &ConflictError{NoteID: noteRef(n.ID), CurrentToken: cur.versionToken()}
	}
	if trashed {
		if err := w.dropVector(n.ID); err != nil {
			return err
		}
	} else {
		if err := w.resolveForward(n); err != nil {
			return err
		}
		w.embed = append(w.embed, n.ID)
	}
	if err := w.revision(n.ID, action); err != nil {
		return err
	}
	return w.activity(n.DomainID, n.ID, action, n.Title)
}

// MoveNote moves a note to another folder of its project. See
// tooldesc/move_note.md.
func (s *Store) MoveNote(ctx context.Context, c Caller, in MoveNoteInput) (NoteChange, error) {
	var out NoteChange
	err := s.write(ctx, c, "move_note", func(w *wtx) error {
		n, err := loadNote(ctx, w, c, in.ID)
		if err != nil {
			return err
		}
		if err := n.checkVersion(in.VersionToken); err != nil {
			return err
		}
		folder, err := normalizeFolder(in.Path)
		if err != nil {
			return err
		}
		out = NoteChange{ID: noteRef(n.ID), Title: n.Title, Path: n.Folder, VersionToken: n.versionToken()}
		if folder == n.Folder {
			return nil
		}
		after := n
		after.Folder = folder
		if err := w.saveNote(n, &after, "move"); err != nil {
			return err
		}
		out.Path, out.VersionToken, out.Changed = after.Folder, after.versionToken(), true
		return nil
	})
	if err != nil {
		return NoteChange{}, fmt.Errorf("move_note: %w", err)
	}
	return out, nil
}

// RenameNote changes a note's title; the old one stays as an alias. See
// tooldesc/rename_note.md.
func (s *Store) RenameNote(ctx context.Context, c Caller, in RenameNoteInput) (NoteChange, error) {
	var out NoteChange
	err := s.write(ctx, c, "rename_note", func(w *wtx) error {
		n, err := loadNote(ctx, w, c, in.ID)
		if err != nil {
			return err
		}
		if err := n.checkVersion(in.VersionToken); err != nil {
			return err
		}
		title := strings.Join(strings.Fields(in.Title), " ")
		if err := validateTitle(title); err != nil {
			return err
		}
		out = NoteChange{ID: noteRef(n.ID), Title: n.Title, Path: n.Folder, VersionToken: n.versionToken()}
		if title == n.Title {
			return nil
		}
		after := n
		after.Title = title
		if err := w.saveNote(n, &after, "rename"); err != nil {
			return err
		}
		out.Title, out.OldTitle, out.VersionToken, out.Changed = title, n.Title, after.versionToken(), true
		return nil
	})
	if err != nil {
		return NoteChange{}, fmt.Errorf("rename_note: %w", err)
	}
	return out, nil
}
