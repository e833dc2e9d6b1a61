package kb

import (
	"context"
	"fmt"
)

// LinkSpec is a typed edge given with a new note.
type LinkSpec struct {
	Type    string `json:"type,omitempty" jsonschema:"kind of relation, e.g. related, depends-on, part-of; default related"`
	To      string `json:"to,omitempty" jsonschema:"id of an existing note in the same project; give either to or toTitle"`
	ToTitle string `json:"toTitle,omitempty" jsonschema:"title of the target, which may not exist yet: the link resolves when a note with that title appears"`
}

// CreateNoteInput is the input of create_note.
type CreateNoteInput struct {
	Project string     `json:"project" jsonschema:"project handle from get_my_projects, verbatim"`
	Body    string     `json:"body" jsonschema:"Markdown whose first line is '# Title': that heading becomes the note's title"`
	Path    string     `json:"path,omitempty" jsonschema:"destination folder such as guides/deploy; default the project root"`
	Type    string     `json:"type,omitempty" jsonschema:"optional category such as decision, howto, meeting (see knownValues in start_session)"`
	Tags    []string   `json:"tags,omitempty" jsonschema:"optional tags (see knownValues in start_session)"`
	Links   []LinkSpec `json:"links,omitempty" jsonschema:"optional typed edges from the new note"`
}

// CreateNoteOutput is the output of create_note.
type CreateNoteOutput struct {
	ID           string       `json:"id" jsonschema:"the new note's id"`
	Title        string       `json:"title"`
	Project      string       `json:"project"`
	Path         string       `json:"path"`
	VersionToken string       `json:"versionToken"`
	Links        []LinkResult `json:"links,omitempty"`
}

// LinkResult reports one edge that was asked for.
type LinkResult struct {
	Type    string `json:"type"`
	To      string `json:"to,omitempty" jsonschema:"target note id; empty while pending"`
	ToTitle string `json:"toTitle,omitempty"`
	Pending bool   `json:"pending,omitempty" jsonschema:"a forward reference: no note has that title yet"`
	Created bool   `json:"created" jsonschema:"false when the same edge already existed"`
}

// NoteDraft is one note of create_notes.
type NoteDraft struct {
	Body  string     `json:"body" jsonschema:"Markdown whose first line is '# Title'"`
	Path  string     `json:"path,omitempty" jsonschema:"destination folder; default the project root"`
	Type  string     `json:"type,omitempty" jsonschema:"optional category"`
	Tags  []string   `json:"tags,omitempty" jsonschema:"optional tags"`
	Links []LinkSpec `json:"links,omitempty" jsonschema:"optional typed edges from this note"`
}

// CreateNotesInput is the input of create_notes.
type CreateNotesInput struct {
	Project string      `json:"project" jsonschema:"project handle from get_my_projects, verbatim"`
	Notes   []NoteDraft `json:"notes" jsonschema:"1 to 100 notes to create"`
}

// CreateNotesOutput is the output of create_notes.
type CreateNotesOutput struct {
	Results []ItemResult `json:"results" jsonschema:"one per note, in order; retry only the ones with status error"`
	Created int          `json:"created"`
	Failed  int          `json:"failed"`
}

// ItemResult is the outcome of one item of a batch.
type ItemResult struct {
	Index        int    `json:"index" jsonschema:"position of the item in the request, from 0"`
	Status       string `json:"status" jsonschema:"ok or error"`
	ID           string `json:"id,omitempty"`
	Title        string `json:"title,omitempty"`
	VersionToken string `json:"versionToken,omitempty"`
	Pending      bool   `json:"pending,omitempty" jsonschema:"link_many: the target title has no note yet"`
	Created      bool   `json:"created,omitempty" jsonschema:"link_many: false when the edge already existed"`
	Error        string `json:"error,omitempty" jsonschema:"what went wrong and what to do"`
}

const maxBatch = 100

// draftNote checks a draft and turns it into a row for domain.
func draftNote(d NoteDraft) (noteRow, error) {
	if err := validateBody(d.Body); err != nil {
		return noteRow{}, err
	}
	title, body, ok := splitTitle(d.Body)
	if !ok {
		return noteRow{}, invalidf("the body must start with a '# Title' line naming the note")
	}
	if err := validateTitle(title); err != nil {
		return noteRow{}, err
	}
	folder, err := normalizeFolder(d.Path)
	if err != nil {
		return noteRow{}, err
	}
	tags, err := normalizeTags(d.Tags)
	if err != nil {
		return noteRow{}, err
	}
	typ, err := normalizeType(d.Type)
	if err != nil {
		return noteRow{}, err
	}
	return noteRow{Class: ClassUserDoc, Folder: folder, Title: title, Body: body, Type: typ, Tags: tags}, nil
}

// createDraft inserts one draft into project p with its links.
func (w *wtx) createDraft(p project, d NoteDraft) (noteRow, []LinkResult, error) {
	n, err := draftNote(d)
	if err != nil {
		return noteRow{}, nil, err
	}
	n.DomainID, n.ProjectID = p.DomainID, p.ID
	if err := w.insertNote(&n, "create"); err != nil {
		return noteRow{}, nil, err
	}
	var results []LinkResult
	for _, l := range d.Links {
		r, err := w.addLink(n, l)
		if err != nil {
			return noteRow{}, nil, err
		}
		results = append(results, r)
	}
	return n, results, nil
}

// CreateNote creates a user-doc note in a project. See tooldesc/create_note.md.
func (s *Store) CreateNote(ctx context.Context, c Caller, in CreateNoteInput) (CreateNoteOutput, error) {
	var out CreateNoteOutput
	err := s.write(ctx, c, "create_note", func(w *wtx) error {
		p, err := resolveProject(ctx, w, c, in.Project)
		if err != nil {
			return err
		}
		n, links, err := w.createDraft(p, NoteDraft{Body: in.Body, Path: in.Path, Type: in.Type, Tags: in.Tags, Links: in.Links})
		if err != nil {
			return err
		}
		out = CreateNoteOutput{ID: noteRef(n.ID), Title: n.Title, Project: p.Handle, Path: n.Folder,
			VersionToken: n.versionToken(), Links: links}
		return nil
	})
	if err != nil {
		return CreateNoteOutput{}, fmt.Errorf("create_note: %w", err)
	}
	return out, nil
}

// CreateNotes creates several notes in one project, best effort: each note
// succeeds or fails on its own. See tooldesc/create_notes.md.
func (s *Store) CreateNotes(ctx context.Context, c Caller, in CreateNotesInput) (CreateNotesOutput, error) {
	if len(in.Notes) == 0 || len(in.Notes) > maxBatch {
		return CreateNotesOutput{}, invalidf("create_notes takes 1 to %d notes, got %d; split the batch", maxBatch, len(in.Notes))
	}
	var out CreateNotesOutput
	err := s.write(ctx, c, "create_notes", func(w *wtx) error {
		p, err := resolveProject(ctx, w, c, in.Project)
		if err != nil {
			return err
		}
		out = CreateNotesOutput{Results: make([]ItemResult, 0, len(in.Notes))}
		for i, d := range in.Notes {
			var n noteRow
			err := w.savepoint(func() error {
				var err error
				n, _, err = w.createDraft(p, d)
				return err
			})
			r := ItemResult{Index: i, Status: "ok"}
			switch {
			case err == nil:
				r.ID, r.Title, r.VersionToken = noteRef(n.ID), n.Title, n.versionToken()
				out.Created++
			case ErrorCode(err) != "":
				r.Status, r.Error = "error", err.Error()
				out.Failed++
			default:
				return err
			}
			out.Results = append(out.Results, r)
		}
		return nil
	})
	if err != nil {
		return CreateNotesOutput{}, fmt.Errorf("create_notes: %w", err)
	}
	return out, nil
}

// savepoint runs fn so that its failure undoes only its own writes.
func (w *wtx) savepoint(fn func() error) error {
	if _, err := w.ExecContext(w.ctx, "SAVEPOINT item"); err != nil {
		return fmt.Errorf("savepoint: %w", err)
	}
	embedded := len(w.embed)
	if err := fn(); err != nil {
		w.embed = w.embed[:embedded]
		if _, rerr := w.ExecContext(w.ctx, "ROLLBACK TO item"); rerr != nil {
			return fmt.Errorf("roll back item: %w", rerr)
		}
		if _, rerr := w.ExecContext(w.ctx, "RELEASE item"); rerr != nil {
			return fmt.Errorf("roll back item: %w", rerr)
		}
		return err
	}
	if _, err := w.ExecContext(w.ctx, "RELEASE item"); err != nil {
		return fmt.Errorf("release savepoint: %w", err)
	}
	return nil
}
