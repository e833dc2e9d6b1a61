package kb

import (
	"context"
	"fmt"
	"strings"
)

// Edit modes of edit_note.
const (
	ModeAppend         = "append"
	ModePrepend        = "prepend"
	ModeReplace        = "replace"
	ModeReplaceSection = "replaceSection"
	ModeFindReplace    = "findReplace"
)

// EditNoteInput is the input of edit_note.
type EditNoteInput struct {
	ID           string `json:"id" jsonschema:"note id, e.g. n42"`
	VersionToken string `json:"versionToken" jsonschema:"the versionToken from your latest get_note of this note (or from your last write to it)"`
	Mode         string `json:"mode" jsonschema:"append, prepend, replace (the whole body), replaceSection (the content under one heading) or findReplace (one unique snippet)"`
	Content      string `json:"content" jsonschema:"the new Markdown; for findReplace an empty content deletes the snippet"`
	Section      string `json:"section,omitempty" jsonschema:"replaceSection only: words of the heading whose content is replaced (the heading stays)"`
	Find         string `json:"find,omitempty" jsonschema:"findReplace only: a snippet copied verbatim from the body that occurs exactly once"`
}

// EditNoteOutput is the output of edit_note.
type EditNoteOutput struct {
	ID           string `json:"id"`
	VersionToken string `json:"versionToken" jsonschema:"the note's new versionToken, for your next edit"`
	Changed      bool   `json:"changed" jsonschema:"false when the edit left the body as it was"`
}

// applyEdit computes the new body of a note titled title. It addresses text
// by words (headings, snippets), never by positions.
func applyEdit(title, body string, in EditNoteInput) (string, error) {
	if in.Mode != ModeReplaceSection && in.Section != "" {
		return "", invalidf("section is used by mode replaceSection only; mode is %q", in.Mode)
	}
	if in.Mode != ModeFindReplace && in.Find != "" {
		return "", invalidf("find is used by mode findReplace only; mode is %q", in.Mode)
	}
	switch in.Mode {
	case ModeAppend, ModePrepend:
		content := strings.Trim(in.Content, "\n")
		if strings.TrimSpace(content) == "" {
			return "", invalidf("content is empty: there is nothing to %s", in.Mode)
		}
		rest := strings.Trim(body, "\n")
		switch {
		case rest == "":
			return content + "\n", nil
		case in.Mode == ModeAppend:
			return rest + "\n\n" + content + "\n", nil
		default:
			return content + "\n\n" + rest + "\n", nil
		}
	case ModeReplace:
		content := in.Content
		if t, rest, ok := splitTitle(content); ok {
			if titleKey(t) != titleKey(title) {
				return "", invalidf("the new body starts with '# %s' but the note is titled %q; change titles with rename_note, and send the body without its '# Title' line", t, title)
			}
			content = rest
		}
		return content, nil
	case ModeReplaceSection:
		sec, err := findSection(body, in.Section)
		if err != nil {
			return "", err
		}
		return replaceSectionContent(body, sec, in.Content), nil
	case ModeFindReplace:
		if in.Find == "" {
			return "", invalidf("find is empty: pass a snippet copied from the body")
		}
		switch n := strings.Count(body, in.Find); n {
		case 0:
			return "", invalidf("the snippet in find does not occur in the body; copy it verbatim from get_note (whitespace counts)")
		case 1:
			return strings.Replace(body, in.Find, in.Content, 1), nil
		default:
			return "", invalidf("the snippet in find occurs %d times; include more of the surrounding words so it occurs once", n)
		}
	}
	return "", invalidf("unknown mode %q; use append, prepend, replace, replaceSection or findReplace", in.Mode)
}

// EditNote changes a note's body under compare-and-swap. See
// tooldesc/edit_note.md.
func (s *Store) EditNote(ctx context.Context, c Caller, in EditNoteInput) (EditNoteOutput, error) {
	var out EditNoteOutput
	err := s.write(ctx, c, "edit_note", func(w *wtx) error {
		n, err := loadNote(ctx, w, c, in.ID)
		if err != nil {
			return err
		}
		if strings.TrimSpace(in.VersionToken) == "" {
			return invalidf("versionToken is required: call get_note on %s and pass its versionToken", in.ID)
		}
		if err := n.checkVersion(in.VersionToken); err != nil {
			return err
		}
		body, err := applyEdit(n.Title, n.Body, in)
		if err != nil {
			return err
		}
		if err := validateBody(body); err != nil {
			return err
		}
		out = EditNoteOutput{ID: noteRef(n.ID), VersionToken: n.versionToken()}
		if body == n.Body {
			return nil
		}
		after := n
		after.Body = body
		if err := w.saveNote(n, &after, "edit"); err != nil {
			return err
		}
		out.VersionToken, out.Changed = after.versionToken(), true
		return nil
	})
	if err != nil {
		return EditNoteOutput{}, fmt.Errorf("edit_note: %w", err)
	}
	return out, nil
}
