package blackboard

import (
	"fmt"
	"slices"
	"strings"
)

// ListOptions narrows ListNotes.
type ListOptions struct {
	// Agent keeps only notes of this agent (any spelling; see
	// NormalizeAgent). Empty means every agent.
	Agent string
	// Limit keeps only the newest Limit notes; 0 means all.
	Limit int
}

// ListResult is a listing, newest note first.
type ListResult struct {
	Notes []NoteMeta
	// Skipped counts note files that could not be read; Unreadable names
	// them, newest first, with why.
	Skipped    int
	Unreadable []Unreadable
}

// Unreadable is a note file that could not be read.
type Unreadable struct {
	Ref string `json:"ref"`
	Err string `json:"error"`
}

// ListNotes lists the notes of a board, newest first, without their bodies.
func (s *Store) ListNotes(board string, opts ListOptions) (ListResult, error) {
	if !s.Enabled() {
		return ListResult{}, ErrDisabled
	}
	dir, err := s.boardDir(board)
	if err != nil {
		return ListResult{}, err
	}
	agent := ""
	if opts.Agent != "" {
		agent = NormalizeAgent(opts.Agent)
	}
	files, err := s.listFiles(dir, agent)
	if err != nil {
		return ListResult{}, err
	}
	if opts.Limit > 0 && len(files) > opts.Limit {
		files = files[len(files)-opts.Limit:]
	}
	var res ListResult
	for i := len(files) - 1; i >= 0; i-- {
		m, _, err := s.readNoteMeta(dir, files[i])
		if err != nil {
			res.Skipped++
			res.Unreadable = append(res.Unreadable, Unreadable{Ref: files[i].ref(), Err: err.Error()})
			continue
		}
		res.Notes = append(res.Notes, m)
	}
	return res, nil
}

// ListNotesByAgent lists one agent's notes, newest first. It is the one
// place where agent spellings are normalised ("agent:repo" and "repo_agent"
// name the same agent): ref resolution and the list_notes tool both go
// through it, so there is never a second alias table.
func (s *Store) ListNotesByAgent(board, agent string) (ListResult, error) {
	return s.ListNotes(board, ListOptions{Agent: agent})
}

// Ref is a parsed note ref.
type Ref struct {
	Agent string // normalised
	Stem  string
}

func (r Ref) String() string { return r.Agent + "/" + r.Stem }

// ParseNoteRef parses "{agent}/{stem}" (also with a trailing ".md" or a
// leading "note:"). The agent is normalised; the stem must have the note
// shape, so no ref can name a path outside its board.
func ParseNoteRef(ref string) (Ref, error) {
	s := strings.TrimSpace(ref)
	s = strings.TrimPrefix(s, "note:")
	s = strings.TrimSuffix(s, ".md")
	agent, stem, ok := strings.Cut(s, "/")
	if !ok || agent == "" || strings.Contains(stem, "/") {
		return Ref{}, fmt.Errorf("%w %q: want {agent}/{stem}, e.g. explorer/20260102T150405Z_ab12-4242-000001", ErrBadRef, ref)
	}
	if !IsNoteStem(stem) {
		return Ref{}, fmt.Errorf("%w %q: %q is not a note stem (want 20060102T150405Z_<rand4>-<pid>-<seq>)", ErrBadRef, ref, stem)
	}
	return Ref{Agent: NormalizeAgent(agent), Stem: stem}, nil
}

func sortFilesByName(files []noteFile) {
	slices.SortFunc(files, func(a, b noteFile) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		return strings.Compare(a.agent, b.agent)
	})
}

// FindByKey returns the newest note of agent on board whose handoff carries
// key (a writer's way to find its own note again, e.g. a recovery that may
// have been cut short after the write).
func (s *Store) FindByKey(board, agent, key string) (NoteMeta, bool, error) {
	res, err := s.ListNotesByAgent(board, agent)
	if err != nil || key == "" {
		return NoteMeta{}, false, err
	}
	for _, m := range res.Notes {
		_, h, err := s.ReadHandoff(board, m.Ref)
		if err == nil && h.Key == key {
			return m, true, nil
		}
	}
	return NoteMeta{}, false, nil
}
