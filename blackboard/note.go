package blackboard

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/yagent/yagent/internal/atomicfile"
)

// NewNote is what a delegation hands to WriteNote.
type NewNote struct {
	Handoff Handoff
	// Body is the full deliverable. When empty the rendered handoff is
	// stored instead, so a note is never blank.
	Body string
	// ObservedArtifacts are artifact ids the system saw the agent produce
	// (e.g. files written by its tools). When non-empty they replace
	// whatever the model reported in Handoff.Artifacts.
	ObservedArtifacts []string
	// Stem, when set, is the note's file name, reserved before the work
	// began (NewStem): a writing delegation's branch and worktree are
	// named after its note. A taken stem is an error, never replaced.
	Stem string
	// Patch, with Handoff.Change, is stored beside the note as
	// {stem}.patch (the change as a unified diff).
	Patch []byte
}

// NoteMeta describes a note without its body. It deliberately has no Body
// field: listing and the index render from it, which keeps enumeration
// cheap enough for every LLM call. Bodies are read only through ReadNote.
type NoteMeta struct {
	Ref        string    `json:"ref"`
	Agent      string    `json:"agent"`
	Stem       string    `json:"stem"`
	Status     Status    `json:"status"`
	Task       string    `json:"task"`
	Conclusion string    `json:"conclusion"`
	Facts      int       `json:"facts"`
	Artifacts  []string  `json:"artifacts"`
	Created    time.Time `json:"created"`
	BodySize   int       `json:"body_size"`
	Degraded   Degraded  `json:"degraded"`
	// Change is the note's change (an isolated delegation's), nil when
	// it has none.
	Change *NoteChange `json:"change,omitempty"`
	// Oversized marks a note larger than board.max_note_bytes: it is
	// never loaded whole, only read in pages or streamed.
	Oversized bool `json:"oversized"`
}

// Note is a note read in full.
type Note struct {
	Meta    NoteMeta
	Handoff *Handoff
	Body    string
	// partial marks a body that is only the start of an oversized note's.
	partial bool
}

// maxNameAttempts bounds the names WriteNote tries when the ones it drew
// were taken.
const maxNameAttempts = 64

// WriteNote stores a new note on board and returns its metadata. It never
// overwrites an existing note.
func (s *Store) WriteNote(board string, n NewNote) (NoteMeta, error) {
	if !s.Enabled() {
		return NoteMeta{}, ErrDisabled
	}
	if board == "" {
		return NoteMeta{}, fmt.Errorf("write note: no board id given")
	}
	board = SanitizeBoardID(board)
	h := n.Handoff
	h.Version = HandoffVersion
	h.Degraded = DegradedNone
	if !h.Status.Valid() {
		return NoteMeta{}, fmt.Errorf("write note: status %q is not one of ok, partial, error, degraded", h.Status)
	}
	h.Agent = NormalizeAgent(h.Agent)
	now := s.now()
	if h.Created.IsZero() {
		h.Created = now.UTC().Truncate(time.Second)
	}
	if len(n.ObservedArtifacts) > 0 {
		h.Artifacts = slices.Clone(n.ObservedArtifacts)
	}
	if h.Facts == nil {
		h.Facts = []string{}
	}
	if h.Artifacts == nil {
		h.Artifacts = []string{}
	}
	body := n.Body
	if strings.TrimSpace(body) == "" {
		body = h.Render(0)
	}
	data, err := encodeNote(&h, body)
	if err != nil {
		return NoteMeta{}, fmt.Errorf("write note for %s: %w", h.Agent, err)
	}
	dir := AgentDir(s.root, board, h.Agent)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return NoteMeta{}, fmt.Errorf("write note: %w", err)
	}
	if err := s.recordProject(BoardDir(s.root, board)); err != nil {
		return NoteMeta{}, fmt.Errorf("write note: %w", err)
	}
	// A name is never reused: the write fails rather than replace a note
	// (another host with the same pid may share the notes root), and the
	// next name is tried.
	if len(n.Patch) > 0 && n.Stem == "" {
		n.Stem = s.NewStem()
	}
	if n.Stem != "" {
		if !IsNoteStem(n.Stem) {
			return NoteMeta{}, fmt.Errorf("write note: %q is no note stem (Store.NewStem makes one)", n.Stem)
		}
		f := noteFile{agent: h.Agent, name: n.Stem + ".md"}
		bdir := BoardDir(s.root, board)
		// The patch first: a note with a change always has its patch; a
		// patch whose note never came is removed by GC.
		if len(n.Patch) > 0 {
			if err := atomicfile.WriteNew(patchFile(f).path(bdir), n.Patch, 0o644); err != nil {
				return NoteMeta{}, fmt.Errorf("write the patch of %s: %w", f.ref(), err)
			}
		}
		if err := atomicfile.WriteNew(f.path(bdir), data, 0o644); err != nil {
			if len(n.Patch) > 0 {
				os.Remove(patchFile(f).path(bdir))
			}
			return NoteMeta{}, fmt.Errorf("write note %s: %w", f.ref(), err)
		}
		return metaOf(f, &h, len(body)), nil
	}
	for attempt := 1; ; attempt++ {
		f := noteFile{agent: h.Agent, name: s.namer.next(now) + ".md"}
		err := atomicfile.WriteNew(f.path(BoardDir(s.root, board)), data, 0o644)
		if err == nil {
			return metaOf(f, &h, len(body)), nil
		}
		if !errors.Is(err, fs.ErrExist) || attempt == maxNameAttempts {
			return NoteMeta{}, fmt.Errorf("write note %s: %w", f.ref(), err)
		}
		s.namer.skip()
	}
}

// NewStem reserves the stem of a note to be written later (NewNote.Stem):
// a name this store's namer will not give again.
func (s *Store) NewStem() string { return s.namer.next(s.now()) }

func encodeNote(h *Handoff, body string) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString("---\n")
	fm, err := encodeFrontMatter(h)
	if err != nil {
		return nil, fmt.Errorf("encode handoff: %w", err)
	}
	buf.Write(fm)
	buf.WriteString("---\n")
	buf.WriteString(body)
	if !strings.HasSuffix(body, "\n") {
		buf.WriteByte('\n')
	}
	return buf.Bytes(), nil
}

func metaOf(f noteFile, h *Handoff, bodySize int) NoteMeta {
	arts := h.Artifacts
	if arts == nil {
		arts = []string{}
	}
	return NoteMeta{
		Ref:        f.ref(),
		Agent:      f.agent,
		Stem:       f.stem(),
		Status:     h.Status,
		Task:       h.Task,
		Conclusion: h.Conclusion,
		Facts:      len(h.Facts),
		Artifacts:  arts,
		Created:    h.Created,
		BodySize:   bodySize,
		Degraded:   h.Degraded,
		Change:     h.Change,
	}
}

// ReadNote reads a note in full by its ref ("{agent}/{stem}"; the agent may
// be spelled "agent:repo" or "repo_agent"). Legacy v1 notes come back with a
// synthesised handoff marked Degraded=v1; they are never rewritten. A note
// over the store's limit (WithMaxNoteBytes) is ErrNoteTooLarge: read it in
// pages (ReadNotePage) or stream it (OpenNote).
func (s *Store) ReadNote(board, ref string) (*Note, error) {
	dir, f, err := s.noteFileOf(board, ref)
	if err != nil {
		return nil, err
	}
	n, err := s.readNoteFile(dir, f)
	if err != nil {
		return nil, noteErr(ref, err)
	}
	return n, nil
}
