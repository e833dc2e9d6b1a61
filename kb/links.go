package kb

import (
	"context"
	"fmt"
	"strings"
)

// LinkInput is the input of link and one item of link_many.
type LinkInput struct {
	From    string `json:"from" jsonschema:"id of the note the edge starts at"`
	Type    string `json:"type,omitempty" jsonschema:"kind of relation, e.g. related, depends-on, part-of, supersedes; default related"`
	To      string `json:"to,omitempty" jsonschema:"id of the target note in the same project; give either to or toTitle"`
	ToTitle string `json:"toTitle,omitempty" jsonschema:"title of the target; if no note has it yet the link is a forward reference, resolved when such a note appears"`
}

// LinkOutput is the output of link.
type LinkOutput struct {
	From         string `json:"from"`
	Type         string `json:"type"`
	To           string `json:"to,omitempty" jsonschema:"target note id; empty while pending"`
	ToTitle      string `json:"toTitle,omitempty"`
	Pending      bool   `json:"pending,omitempty" jsonschema:"a forward reference: no note has that title yet"`
	Created      bool   `json:"created" jsonschema:"false when the same edge already existed (nothing changed)"`
	VersionToken string `json:"versionToken" jsonschema:"current versionToken of the from note (edges do not change it)"`
}

// LinkManyInput is the input of link_many.
type LinkManyInput struct {
	Links []LinkInput `json:"links" jsonschema:"1 to 500 edges"`
}

// LinkManyOutput is the output of link_many.
type LinkManyOutput struct {
	Results  []ItemResult `json:"results" jsonschema:"one per edge, in order; retry only the ones with status error"`
	Created  int          `json:"created"`
	Existing int          `json:"existing" jsonschema:"edges that were already there"`
	Failed   int          `json:"failed"`
}

const maxLinkBatch = 500

// addLink adds one edge from a note the caller may write. It does not change
// the from note's version; provenance goes to the activity log.
func (w *wtx) addLink(from noteRow, l LinkSpec) (LinkResult, error) {
	typ, err := normalizeLinkType(l.Type)
	if err != nil {
		return LinkResult{}, err
	}
	if typ == LinkWiki {
		return LinkResult{}, invalidf("link type %q is kept for [[links]] written in bodies; write [[Title]] in the body or pick another type", LinkWiki)
	}
	to, toTitle := strings.TrimSpace(l.To), strings.TrimSpace(l.ToTitle)
	var target noteRow
	switch {
	case to != "" && toTitle != "":
		return LinkResult{}, invalidf("give either to (a note id) or toTitle, not both")
	case to == "" && toTitle == "":
		return LinkResult{}, invalidf("give the target: to (a note id) or toTitle (a title, even of a note not written yet)")
	case to != "":
		if target, err = loadNote(w.ctx, w, w.c, to); err != nil {
			return LinkResult{}, err
		}
		if target.DomainID != from.DomainID {
			return LinkResult{}, invalidf("%s and %s are in different projects; both notes of a link must be in the same one", noteRef(from.ID), to)
		}
		toTitle = target.Title
	default:
		if strings.ContainsAny(toTitle, "[]|\n") {
			return LinkResult{}, invalidf("toTitle %q contains '[', ']', '|' or a newline; pass the bare title", toTitle)
		}
	}
	created, resolved, err := w.insertLink(from, typ, target.ID, toTitle, "tool")
	if err != nil {
		return LinkResult{}, err
	}
	r := LinkResult{Type: typ, ToTitle: toTitle, Pending: resolved == 0, Created: created}
	if resolved != 0 {
		r.To = noteRef(resolved)
	}
	if created {
		dest := r.To
		if dest == "" {
			dest = "[[" + toTitle + "]]"
		}
		if err := w.activity(from.DomainID, from.ID, "link", typ+" "+dest); err != nil {
			return LinkResult{}, err
		}
	}
	return r, nil
}

func (w *wtx) link(in LinkInput) (LinkOutput, error) {
	from, err := loadNote(w.ctx, w, w.c, in.From)
	if err != nil {
		return LinkOutput{}, err
	}
	r, err := w.addLink(from, LinkSpec{Type: in.Type, To: in.To, ToTitle: in.ToTitle})
	if err != nil {
		return LinkOutput{}, err
	}
	return LinkOutput{From: noteRef(from.ID), Type: r.Type, To: r.To, ToTitle: r.ToTitle, Pending: r.Pending,
		Created: r.Created, VersionToken: from.versionToken()}, nil
}

// Link adds a typed edge. See tooldesc/link.md.
func (s *Store) Link(ctx context.Context, c Caller, in LinkInput) (LinkOutput, error) {
	var out LinkOutput
	err := s.write(ctx, c, "link", func(w *wtx) error {
		var err error
		out, err = w.link(in)
		return err
	})
	if err != nil {
		return LinkOutput{}, fmt.Errorf("link: %w", err)
	}
	return out, nil
}

// LinkMany adds several edges, best effort and idempotent. See
// tooldesc/link_many.md.
func (s *Store) LinkMany(ctx context.Context, c Caller, in LinkManyInput) (LinkManyOutput, error) {
	if len(in.Links) == 0 || len(in.Links) > maxLinkBatch {
		return LinkManyOutput{}, invalidf("link_many takes 1 to %d links, got %d; split the batch", maxLinkBatch, len(in.Links))
	}
	var out LinkManyOutput
	err := s.write(ctx, c, "link_many", func(w *wtx) error {
		out = LinkManyOutput{Results: make([]ItemResult, 0, len(in.Links))}
		for i, l := range in.Links {
			var lo LinkOutput
			err := w.savepoint(func() error {
				var err error
				lo, err = w.link(l)
				return err
			})
			r := ItemResult{Index: i, Status: "ok"}
			switch {
			case err == nil:
				r.ID, r.Title, r.Pending, r.Created = lo.To, lo.ToTitle, lo.Pending, lo.Created
				if lo.Created {
					out.Created++
				} else {
					out.Existing++
				}
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
		return LinkManyOutput{}, fmt.Errorf("link_many: %w", err)
	}
	return out, nil
}
