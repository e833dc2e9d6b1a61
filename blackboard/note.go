package blackboard

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

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
}

// Note is a note read in full.
type Note struct {
	Meta    NoteMeta
	Handoff *Handoff
	Body    string
}

// WriteNote stores a new note on board and returns its metadata. It never
// overwrites an existing note.
func (s *Store) WriteNote(board string, n NewNote) (NoteMeta, error) {
	if !Enabled() {
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
	name := s.namer.next(now) + ".md"
	f := noteFile{agent: h.Agent, name: name}
	if err := atomicfile.WriteFile(f.path(BoardDir(s.root, board)), data, 0o644); err != nil {
		return NoteMeta{}, fmt.Errorf("write note %s: %w", f.ref(), err)
	}
	return metaOf(f, &h, len(body)), nil
}

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
	}
}

// ReadNote reads a note in full by its ref ("{agent}/{stem}"; the agent may
// be spelled "agent:repo" or "repo_agent"). Legacy v1 notes come back with a
// synthesised handoff marked Degraded=v1; they are never rewritten.
func (s *Store) ReadNote(board, ref string) (*Note, error) {
	if !Enabled() {
		return nil, ErrDisabled
	}
	r, err := ParseNoteRef(ref)
	if err != nil {
		return nil, err
	}
	dir, err := s.boardDir(board)
	if err != nil {
		return nil, err
	}
	f := noteFile{agent: r.Agent, name: r.Stem + ".md"}
	n, err := readNoteFile(dir, f)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("read note %s: %w", ref, ErrNoteNotFound)
		}
		return nil, fmt.Errorf("read note %s: %w", ref, err)
	}
	return n, nil
}

// errDamaged marks a note file whose bytes are not text.
var errDamaged = errors.New("note file is damaged (not UTF-8 text)")

func readNoteFile(boardDir string, f noteFile) (*Note, error) {
	p := f.path(boardDir)
	fi, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", p)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	if bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
		// A crash can leave a file of zero bytes where the data never
		// reached the disk; that is damage, not a degraded note.
		return nil, errDamaged
	}
	h, body := parseNote(data)
	if h.Created.IsZero() {
		h.Created, _ = stemTime(f.stem())
	}
	if h.Agent == "" {
		h.Agent = f.agent
	}
	return &Note{Meta: metaOf(f, h, len(body)), Handoff: h, Body: string(body)}, nil
}
