package kb

import (
	"context"
	"fmt"
	"strings"
)

// GetNoteInput is the input of get_note.
type GetNoteInput struct {
	Ref      string `json:"ref" jsonschema:"a note id such as n42, or a wiki ref such as [[Deploy guide]] (a former title works too)"`
	Project  string `json:"project,omitempty" jsonschema:"project handle to resolve a wiki ref in; without it the ref is looked up in your personal notes, then in every project you can reach"`
	Detailed bool   `json:"detailed,omitempty" jsonschema:"also return the outline (headings), links and former titles"`
	Offset   int    `json:"offset,omitempty" jsonschema:"the body's first character to return; a long body comes in pages: pass the nextOffset of the page before"`
	Limit    int    `json:"limit,omitempty" jsonschema:"characters of the body to return, 1 to 40000; default 12000"`
}

// Body pages of get_note, in characters: a 160 KB note in one result was
// refused by Claude Code and cut by Codex (issue 31 item 7).
const (
	defaultNotePage = 12000
	maxNotePage     = 40000
)

// GetNote returns a note with its versionToken and provenance, its body
// one page of in.Limit characters from in.Offset (bodyChars and
// nextOffset say where it stands when the page is not the whole body).
// See tooldesc/get_note.md.
func (s *Store) GetNote(ctx context.Context, c Caller, in GetNoteInput) (Note, error) {
	limit, err := clampLimit(in.Limit, defaultNotePage, maxNotePage)
	if err != nil {
		return Note{}, err
	}
	if in.Offset < 0 {
		return Note{}, invalidf("offset %d is negative; pass 0 (the start) or the nextOffset of the page before", in.Offset)
	}
	n, err := s.ReadNote(ctx, c, in)
	if err != nil {
		return Note{}, err
	}
	return n, n.page(in.Offset, limit)
}

// page cuts n's body to characters [offset, offset+limit).
func (n *Note) page(offset, limit int) error {
	body := []rune(n.Body)
	if offset == 0 && len(body) <= limit {
		return nil
	}
	if offset > len(body) {
		return invalidf("offset %d is past the end of %s's body (%d characters)", offset, n.ID, len(body))
	}
	end := min(offset+limit, len(body))
	n.Body, n.BodyChars, n.BodyOffset = string(body[offset:end]), len(body), offset
	if end < len(body) {
		n.NextOffset = end
	}
	return nil
}

// ReadNote is GetNote with the whole body, for the person's own commands
// (yagent kb show); in.Offset and in.Limit are not read.
func (s *Store) ReadNote(ctx context.Context, c Caller, in GetNoteInput) (Note, error) {
	if err := c.check(); err != nil {
		return Note{}, err
	}
	ref := strings.TrimSpace(in.Ref)
	if ref == "" {
		return Note{}, invalidf("ref is required: a note id such as n42 or a [[Title]]")
	}
	if _, isID := parseNoteRef(ref); isID {
		n, err := loadNote(ctx, s.db, c, ref)
		if err != nil {
			return Note{}, err
		}
		return s.noteView(ctx, s.db, n, in.Detailed)
	}
	n, via, err := s.resolveWikiRef(ctx, c, ref, in.Project)
	if err != nil {
		return Note{}, err
	}
	v, err := s.noteView(ctx, s.db, n, in.Detailed)
	if err != nil {
		return Note{}, err
	}
	if via != "" {
		v.ResolvedVia = map[string]string{"former": "former title", "alias": "alias", "file": "file name"}[via] + " " + strings.TrimSpace(bareRef(ref))
	}
	return v, nil
}

// bareRef strips [[ ]] and a |label from a wiki ref.
func bareRef(ref string) string {
	ref = strings.TrimSpace(ref)
	ref = strings.TrimSuffix(strings.TrimPrefix(ref, "[["), "]]")
	ref, _, _ = strings.Cut(ref, "|")
	return strings.TrimSpace(ref)
}

// resolveWikiRef finds the note a title (or former title) means, in the
// given project or, without one, in c's personal notes and then projects.
func (s *Store) resolveWikiRef(ctx context.Context, c Caller, ref, handle string) (noteRow, string, error) {
	title := bareRef(ref)
	if title == "" {
		return noteRow{}, "", invalidf("ref %q names no title", ref)
	}
	var domains []int64
	var names []string
	if strings.TrimSpace(handle) != "" {
		p, err := resolveProject(ctx, s.db, c, handle)
		if err != nil {
			return noteRow{}, "", err
		}
		domains, names = []int64{p.DomainID}, []string{p.Handle}
	} else {
		personal, err := personalDomain(ctx, s.db, c.PrincipalID)
		if err != nil {
			return noteRow{}, "", err
		}
		domains, names = []int64{personal}, []string{"your personal notes"}
		ps, err := accessibleProjects(ctx, s.db, c)
		if err != nil {
			return noteRow{}, "", err
		}
		for _, p := range ps {
			domains = append(domains, p.DomainID)
			names = append(names, p.Handle)
		}
	}
	type found struct {
		n     noteRow
		via   string
		where string
	}
	var hits []found
	for i, d := range domains {
		cands, err := resolveCandidates(ctx, s.db, d, title)
		if err != nil {
			return noteRow{}, "", fmt.Errorf("resolve %s: %w", ref, err)
		}
		for _, cand := range cands {
			n, ok, err := getNoteRow(ctx, s.db, cand.id)
			if err != nil {
				return noteRow{}, "", err
			}
			if ok {
				if ok, err = canSee(ctx, s.db, c, n); err != nil {
					return noteRow{}, "", err
				}
			}
			if ok {
				hits = append(hits, found{n, cand.via, names[i]})
			}
		}
		if i == 0 && len(hits) > 0 && handle == "" {
			break // personal notes win without a project
		}
	}
	switch len(hits) {
	case 0:
		return noteRow{}, "", notFoundf("no note titled %q (nor formerly titled so) where you looked; try search, or pass project", title)
	case 1:
		return hits[0].n, hits[0].via, nil
	}
	var where []string
	for _, h := range hits {
		where = append(where, fmt.Sprintf("%s: %s (%s)", h.where, notePath(h.n.Folder, h.n.Title), noteRef(h.n.ID)))
	}
	return noteRow{}, "", invalidf("several notes are titled %q: %s; pass the project, the path ([[Folder/Title]]) or the note id",
		title, strings.Join(where, ", "))
}
