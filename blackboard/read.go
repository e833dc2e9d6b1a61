package blackboard

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"unicode/utf8"
)

// HeadBytes bounds what listing, the index and a page read of a note
// before its body: the front matter must close within the first HeadBytes
// of the file. A note whose front matter runs longer is read as having
// none (Degraded=absent).
const HeadBytes = 64 << 10

// ErrNoteTooLarge is wrapped by the error of reading a whole note larger
// than the store's limit (board.max_note_bytes); such a note is read in
// pages (ReadNotePage) or streamed (OpenNote).
var ErrNoteTooLarge = errors.New("note is larger than board.max_note_bytes")

// errDamaged marks a note file whose bytes are not text.
var errDamaged = errors.New("note file is damaged (not UTF-8 text)")

// WithMaxNoteBytes returns a copy of the store that never loads a note of
// more than n bytes whole (board.max_note_bytes; 0 means no limit).
// Listing marks such notes Oversized; ReadNote refuses them; context packs
// inline an excerpt.
func (s *Store) WithMaxNoteBytes(n int64) *Store {
	c := *s
	c.maxNoteBytes = n
	return &c
}

func (s *Store) oversized(size int64) bool { return s.maxNoteBytes > 0 && size > s.maxNoteBytes }

// openNote opens a note file for reading. Notes are read only from real
// directories under the notes root: a board or agent directory that is a
// symlink (which listing never follows) and a note file that is not a
// regular file are refused.
func openNote(boardDir string, f noteFile) (*os.File, int64, error) {
	for _, dir := range []string{boardDir, filepath.Join(boardDir, f.agent)} {
		fi, err := os.Lstat(dir)
		if err != nil {
			return nil, 0, err
		}
		if !fi.IsDir() {
			return nil, 0, fmt.Errorf("%s is a symlink or not a directory: notes are read only from real directories under the notes root", dir)
		}
	}
	p := f.path(boardDir)
	fi, err := os.Lstat(p)
	if err != nil {
		return nil, 0, err
	}
	if !fi.Mode().IsRegular() {
		return nil, 0, fmt.Errorf("%s is not a regular file", p)
	}
	fh, err := os.Open(p)
	if err != nil {
		return nil, 0, err
	}
	return fh, fi.Size(), nil
}

// readHead reads a note's handoff from at most HeadBytes of it and returns
// where the body starts. The bytes read must be text.
func readHead(fh *os.File, f noteFile, size int64) (*Handoff, int64, error) {
	buf := make([]byte, min(size, HeadBytes))
	if _, err := io.ReadFull(io.NewSectionReader(fh, 0, int64(len(buf))), buf); err != nil {
		return nil, 0, err
	}
	complete := int64(len(buf)) == size
	if !complete && damaged(trimPartialRune(buf)) || complete && damaged(buf) {
		return nil, 0, errDamaged
	}
	var h *Handoff
	var bodyStart int
	switch fmStart, fmEnd, body, st := frontMatterBounds(buf, complete); st {
	case fmFound:
		h, bodyStart = parseHandoff(buf[fmStart:fmEnd], buf[body:], true), body
	case fmNone:
		h = absentHandoff(buf)
	default:
		h = &Handoff{Status: StatusDegraded, Degraded: DegradedAbsent,
			Conclusion: fmt.Sprintf("(its front matter does not close within %d KiB)", HeadBytes>>10)}
	}
	fillFromFile(h, f)
	return h, int64(bodyStart), nil
}

// fillFromFile completes a handoff from the note's file name and place.
func fillFromFile(h *Handoff, f noteFile) {
	if h.Created.IsZero() {
		h.Created, _ = stemTime(f.stem())
	}
	if h.Agent == "" {
		h.Agent = f.agent
	}
}

// damaged reports bytes that are not text: a NUL (a crash can leave a file
// of zeros where the data never reached the disk) or invalid UTF-8.
func damaged(b []byte) bool { return bytes.IndexByte(b, 0) >= 0 || !utf8.Valid(b) }

// trimPartialRune cuts an incomplete UTF-8 sequence at the end of b (the
// rest of it lies beyond what was read).
func trimPartialRune(b []byte) []byte {
	for i := 1; i <= utf8.UTFMax && i <= len(b); i++ {
		if utf8.RuneStart(b[len(b)-i]) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return b[:len(b)-i]
			}
			return b
		}
	}
	return b
}

// readNoteMeta reads what listing needs: the handoff from the bounded head
// and the body's size, never the body.
func (s *Store) readNoteMeta(boardDir string, f noteFile) (NoteMeta, *Handoff, error) {
	fh, size, err := openNote(boardDir, f)
	if err != nil {
		return NoteMeta{}, nil, err
	}
	defer fh.Close()
	h, bodyStart, err := readHead(fh, f, size)
	if err != nil {
		return NoteMeta{}, nil, err
	}
	m := metaOf(f, h, int(size-bodyStart))
	m.Oversized = s.oversized(size)
	return m, h, nil
}

// readNoteFile reads a whole note; a note over the store's limit is
// ErrNoteTooLarge.
func (s *Store) readNoteFile(boardDir string, f noteFile) (*Note, error) {
	return s.readNoteUpTo(boardDir, f, -1)
}

// readNoteUpTo reads a note whole, or — when it is over the store's limit
// and excerpt is at least 0 — its handoff and the first excerpt bytes of
// its body, marked partial.
func (s *Store) readNoteUpTo(boardDir string, f noteFile, excerpt int64) (*Note, error) {
	fh, size, err := openNote(boardDir, f)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	if s.oversized(size) {
		if excerpt < 0 {
			return nil, fmt.Errorf("%w (%d bytes, the limit is %d): read it in pages (read_note), or raise board.max_note_bytes", ErrNoteTooLarge, size, s.maxNoteBytes)
		}
		h, bodyStart, err := readHead(fh, f, size)
		if err != nil {
			return nil, err
		}
		body := make([]byte, min(excerpt, size-bodyStart))
		if _, err := io.ReadFull(io.NewSectionReader(fh, bodyStart, int64(len(body))), body); err != nil {
			return nil, err
		}
		body = trimPartialRune(body)
		if damaged(body) {
			return nil, errDamaged
		}
		n := &Note{Meta: metaOf(f, h, int(size-bodyStart)), Handoff: h, Body: string(body), partial: true}
		n.Meta.Oversized = true
		return n, nil
	}
	data := make([]byte, size)
	if _, err := io.ReadFull(fh, data); err != nil {
		return nil, err
	}
	if damaged(data) {
		return nil, errDamaged
	}
	h, body := parseNote(data)
	fillFromFile(h, f)
	return &Note{Meta: metaOf(f, h, len(body)), Handoff: h, Body: string(body)}, nil
}

// NoteReader is a note opened for reading: its handoff, read from the
// bounded head, and its body as a stream (Read), never held in memory
// whole. Close it.
type NoteReader struct {
	Meta    NoteMeta
	Handoff *Handoff
	body    *io.SectionReader
	f       *os.File
}

// Read reads the body.
func (r *NoteReader) Read(p []byte) (int, error) { return r.body.Read(p) }

// Close closes the note file.
func (r *NoteReader) Close() error { return r.f.Close() }

// OpenNote opens a note by its ref to stream its body, whatever its size.
func (s *Store) OpenNote(board, ref string) (*NoteReader, error) {
	dir, f, err := s.noteFileOf(board, ref)
	if err != nil {
		return nil, err
	}
	fh, size, err := openNote(dir, f)
	if err != nil {
		return nil, noteErr(ref, err)
	}
	h, bodyStart, err := readHead(fh, f, size)
	if err != nil {
		fh.Close()
		return nil, noteErr(ref, err)
	}
	m := metaOf(f, h, int(size-bodyStart))
	m.Oversized = s.oversized(size)
	return &NoteReader{Meta: m, Handoff: h, body: io.NewSectionReader(fh, bodyStart, size-bodyStart), f: fh}, nil
}

// ReadHandoff reads a note's handoff and metadata by its ref from the
// bounded head, without its body.
func (s *Store) ReadHandoff(board, ref string) (NoteMeta, *Handoff, error) {
	dir, f, err := s.noteFileOf(board, ref)
	if err != nil {
		return NoteMeta{}, nil, err
	}
	m, h, err := s.readNoteMeta(dir, f)
	if err != nil {
		return NoteMeta{}, nil, noteErr(ref, err)
	}
	return m, h, nil
}

// NotePage is part of a note's body, counted in characters (runes).
type NotePage struct {
	Meta    NoteMeta
	Handoff *Handoff
	// Text is characters [Offset, End) of the body; Total is how many the
	// body has.
	Text               string
	Offset, End, Total int
}

// ReadNotePage reads characters [offset, offset+limit) of a note's body by
// streaming it: whatever the note's size, only the head and the page are
// held in memory. An offset past the end gives an empty page (End =
// Offset > Total).
func (s *Store) ReadNotePage(board, ref string, offset, limit int) (*NotePage, error) {
	if offset < 0 || limit < 0 {
		return nil, fmt.Errorf("read note %s: offset %d, limit %d: want 0 or more", ref, offset, limit)
	}
	r, err := s.OpenNote(board, ref)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	text, total, err := pageRunes(r.body, offset, limit)
	if err != nil {
		return nil, noteErr(ref, err)
	}
	end := offset + len([]rune(text))
	return &NotePage{Meta: r.Meta, Handoff: r.Handoff, Text: text, Offset: offset, End: end, Total: total}, nil
}

// pageRunes streams r and returns runes [offset, offset+limit) of it and
// the number of runes in all of it; bytes that are not text are errDamaged.
func pageRunes(r io.Reader, offset, limit int) (string, int, error) {
	end := offset + limit
	if end < offset { // overflow
		end = int(^uint(0) >> 1)
	}
	buf := make([]byte, 64<<10)
	var page []byte
	total, carry := 0, 0
	for {
		n, err := io.ReadFull(r, buf[carry:])
		eof := err == io.EOF || err == io.ErrUnexpectedEOF
		if err != nil && !eof {
			return "", 0, err
		}
		chunk := buf[:carry+n]
		done := chunk
		if !eof {
			done = trimPartialRune(chunk)
		}
		if damaged(done) {
			return "", 0, errDamaged
		}
		c := countRunes(done)
		if total+c > offset && total < end {
			pos := total
			for i := 0; i < len(done) && pos < end; pos++ {
				_, size := utf8.DecodeRune(done[i:])
				if pos >= offset {
					page = append(page, done[i:i+size]...)
				}
				i += size
			}
		}
		total += c
		if eof {
			return string(page), total, nil
		}
		carry = copy(buf, chunk[len(done):])
	}
}

// countRunes counts the runes of valid UTF-8: the bytes that start one.
// (utf8.RuneCount copies non-ASCII input into a string.)
func countRunes(b []byte) int {
	n := 0
	for _, c := range b {
		if c&0xC0 != 0x80 {
			n++
		}
	}
	return n
}

// noteFileOf resolves a ref on a board to its file.
func (s *Store) noteFileOf(board, ref string) (string, noteFile, error) {
	if !s.Enabled() {
		return "", noteFile{}, ErrDisabled
	}
	r, err := ParseNoteRef(ref)
	if err != nil {
		return "", noteFile{}, err
	}
	dir, err := s.boardDir(board)
	if err != nil {
		return "", noteFile{}, err
	}
	return dir, noteFile{agent: r.Agent, name: r.Stem + ".md"}, nil
}

// noteErr wraps an error of reading the note ref.
func noteErr(ref string, err error) error {
	if os.IsNotExist(err) {
		return fmt.Errorf("read note %s: %w", ref, ErrNoteNotFound)
	}
	return fmt.Errorf("read note %s: %w", ref, err)
}

// Front matter states.
const (
	fmNone    = iota // no front matter: the whole file is the body
	fmFound          // front matter and body
	fmTooLong        // opens but does not close within the bytes given
)

// frontMatterBounds finds "---\n<yaml>\n---\n<body>" in data the way
// adrg/frontmatter does (FuzzFrontMatterBoundsMatchesAdrg holds them
// together): blank lines may come first; the first other line must be
// "---" (spaces trimmed) and end in a newline; the front matter ends at the
// next line that is "---", which starts the body. complete says data is
// the whole file; otherwise the last, unfinished line of data is not read,
// and not deciding before it is fmTooLong.
func frontMatterBounds(data []byte, complete bool) (fmStart, fmEnd, bodyStart, state int) {
	pos := 0
	for {
		line, next, last := nextLine(data, pos)
		if last {
			if complete {
				return 0, 0, 0, fmNone
			}
			return 0, 0, 0, fmTooLong
		}
		pos = next
		t := bytes.TrimSpace(line)
		if len(t) == 0 {
			continue
		}
		if string(t) != "---" {
			return 0, 0, 0, fmNone
		}
		break
	}
	fmStart = pos
	for {
		start := pos
		line, next, last := nextLine(data, pos)
		if last && !complete {
			return 0, 0, 0, fmTooLong
		}
		pos = next
		if string(bytes.TrimSpace(line)) == "---" {
			return fmStart, start, pos, fmFound
		}
		if last {
			return 0, 0, 0, fmNone
		}
	}
}

// nextLine returns the line of data at pos with its newline, where the
// next one starts, and whether it is the last (no newline after it).
func nextLine(data []byte, pos int) (line []byte, next int, last bool) {
	i := bytes.IndexByte(data[pos:], '\n')
	if i < 0 {
		return data[pos:], len(data), true
	}
	return data[pos : pos+i+1], pos + i + 1, false
}
