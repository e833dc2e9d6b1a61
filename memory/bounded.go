package memory

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/yagent/yagent/event"
)

// CutString is a string of a rollout line that a bounded read cut short.
type CutString struct {
	// Path names the string in its line, keys and indexes joined by dots:
	// "message.content", "message.tool_calls.0.arguments".
	Path string
	// Size is its whole length in the file (JSON-escaped bytes).
	Size int64
}

// ErrNoString is returned by CopyString when the line has no string at the
// path.
var ErrNoString = errors.New("no such text in the rollout")

// maxDepth bounds the nesting a bounded read follows (a damaged or hostile
// line must not exhaust the stack).
const maxDepth = 200

// LoadRolloutBounded reads a rollout as LoadRollout does, but never holds
// more of one string than maxString bytes: a longer string value (a 100 MB
// message) is cut to its first maxString bytes, on a character boundary,
// and listed in its item's Cut; each item carries its Line, which
// CopyString takes to serve the whole string. The file is streamed, so
// what it costs is bounded by the number of items, not their size.
func LoadRolloutBounded(path string, maxString int) (*Rollout, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read rollout %s: %w", path, err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	r := &Rollout{}
	var buf []byte
	for lineNo := 1; ; lineNo++ {
		if _, err := br.Peek(1); err == io.EOF {
			break
		}
		p := &walker{r: br, max: maxString, out: buf[:0]}
		err := p.line()
		buf = p.out
		var it Item
		if err == nil && !isBlank(p.out) {
			if it.Event, err = decodeLine(p.out); err != nil {
				err = errDamaged
			}
		}
		switch {
		case errors.Is(err, io.ErrUnexpectedEOF), p.torn && (err != nil || it.Type == ""):
			r.Warnings = append(r.Warnings, fmt.Sprintf("%s: skipped a torn last line (the process stopped mid-write)", path))
			continue
		case err != nil && !errors.Is(err, errDamaged):
			return nil, fmt.Errorf("read rollout %s: %w", path, err)
		case isBlank(p.out) && err == nil:
			continue
		case err != nil || it.Type == "":
			r.Warnings = append(r.Warnings, fmt.Sprintf("%s:%d: skipped a damaged line", path, lineNo))
			continue
		}
		if lineNo == 1 || r.Meta.ID == "" && it.Type == event.SessionMeta {
			if it.Type != event.SessionMeta || it.Session == nil {
				return nil, fmt.Errorf("%s is not a yagent rollout: its first line is not a session_meta", path)
			}
			r.Meta = *it.Session
			continue
		}
		it.Line, it.Cut = lineNo, p.cut
		r.Items = append(r.Items, it)
	}
	if r.Meta.ID == "" {
		return nil, fmt.Errorf("%s is not a yagent rollout: no session_meta", path)
	}
	if r.Meta.Version > RolloutVersion {
		r.Warnings = append(r.Warnings, fmt.Sprintf("%s: written by a newer yagent (rollout version %d); reading what this one understands", path, r.Meta.Version))
	}
	return r, nil
}

// CopyString writes the whole string at path (as CutString names it) of
// line lineNo of the rollout to w, decoded, streaming: neither the line
// nor the string is held in memory. It returns the bytes written;
// ErrNoString when the line has no string there.
func CopyString(w io.Writer, rollout string, lineNo int, path string) (int64, error) {
	f, err := os.Open(rollout)
	if err != nil {
		return 0, fmt.Errorf("read rollout %s: %w", rollout, err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	for n := 1; n < lineNo; n++ {
		if err := skipLine(br); err != nil {
			return 0, fmt.Errorf("%s:%d: %w", rollout, lineNo, ErrNoString)
		}
	}
	bw := bufio.NewWriterSize(w, 32<<10)
	p := &walker{r: br, max: -1, want: path, dst: bw}
	err = p.line()
	ferr := bw.Flush()
	switch {
	case p.done:
		return p.written, ferr // what follows the string does not matter
	case p.werr != nil:
		return p.written, p.werr
	case p.found:
		return p.written, fmt.Errorf("read rollout %s:%d %s: the text ends early: %w", rollout, lineNo, path, errors.Join(err, io.ErrUnexpectedEOF))
	case err != nil && !errors.Is(err, errDamaged) && !errors.Is(err, io.ErrUnexpectedEOF):
		return 0, fmt.Errorf("read rollout %s: %w", rollout, err)
	}
	return 0, fmt.Errorf("%s:%d %s: %w", rollout, lineNo, path, ErrNoString)
}

func skipLine(br *bufio.Reader) error {
	for {
		_, err := br.ReadSlice('\n')
		if err != bufio.ErrBufferFull {
			return err
		}
	}
}

func isBlank(b []byte) bool { return len(bytes.TrimSpace(b)) == 0 }

var errDamaged = errors.New("damaged line")

// walker reads one line of JSON from r without holding its strings. With
// out set (max >= 0) it copies the line to out, each string cut to max
// bytes (listed in cut); with want set it writes the string at that path,
// decoded, to dst.
type walker struct {
	r    *bufio.Reader
	path []string

	max  int
	out  []byte
	cut  []CutString
	torn bool // the last line ended without its newline
	esc  [6]byte

	want    string
	dst     *bufio.Writer
	found   bool // the wanted string began
	done    bool // and ended
	written int64
	werr    error // dst failed (the reader went away): stop reading
}

// line reads one JSON value and the end of its line.
func (p *walker) line() error {
	p.space()
	if c, err := p.r.Peek(1); err == nil && c[0] == '\n' {
		_, _ = p.r.ReadByte()
		return nil
	}
	if err := p.value(0); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return p.rest(err)
	}
	p.space()
	c, err := p.r.ReadByte()
	switch {
	case err == io.EOF:
		p.torn = true // a whole value, but the line has no newline
		return nil
	case err != nil:
		return err
	case c != '\n':
		return p.rest(errDamaged)
	}
	return nil
}

// rest skips what is left of a damaged line and returns err (a torn line
// when the file ends first).
func (p *walker) rest(err error) error {
	if !errors.Is(err, errDamaged) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return err
	}
	if serr := skipLine(p.r); serr == io.EOF {
		return io.ErrUnexpectedEOF
	} else if serr != nil {
		return serr
	}
	return errDamaged
}

func (p *walker) emit(b ...byte) {
	if p.max >= 0 {
		p.out = append(p.out, b...)
	}
}

func (p *walker) space() {
	for {
		c, err := p.r.ReadByte()
		if err != nil {
			return
		}
		if c != ' ' && c != '\t' && c != '\r' {
			_ = p.r.UnreadByte()
			return
		}
	}
}

func (p *walker) next() (byte, error) {
	p.space()
	c, err := p.r.ReadByte()
	if err == nil && c == '\n' {
		_ = p.r.UnreadByte()
		return 0, errDamaged
	}
	return c, err
}

func (p *walker) value(depth int) error {
	if depth > maxDepth {
		return errDamaged
	}
	c, err := p.next()
	if err != nil {
		return err
	}
	switch c {
	case '{':
		return p.object(depth)
	case '[':
		return p.array(depth)
	case '"':
		return p.str()
	}
	// A number or a literal: copied as it is; json.Unmarshal judges it.
	p.emit(c)
	for {
		c, err := p.r.ReadByte()
		if err != nil {
			return err
		}
		if !strings.ContainsRune("0123456789+-.eEtrufalsn", rune(c)) {
			return p.r.UnreadByte()
		}
		p.emit(c)
	}
}

func (p *walker) object(depth int) error {
	p.emit('{')
	for i := 0; ; i++ {
		c, err := p.next()
		if err != nil {
			return err
		}
		if c == '}' && i == 0 {
			p.emit('}')
			return nil
		}
		if i > 0 {
			if c == '}' {
				p.emit('}')
				return nil
			}
			if c != ',' {
				return errDamaged
			}
			p.emit(',')
			if c, err = p.next(); err != nil {
				return err
			}
		}
		if c != '"' {
			return errDamaged
		}
		key, err := p.key()
		if err != nil {
			return err
		}
		if c, err := p.next(); err != nil || c != ':' {
			return errors.Join(err, errDamaged)
		}
		p.emit(':')
		p.path = append(p.path, key)
		err = p.value(depth + 1)
		p.path = p.path[:len(p.path)-1]
		if err != nil {
			return err
		}
	}
}

func (p *walker) array(depth int) error {
	p.emit('[')
	for i := 0; ; i++ {
		c, err := p.next()
		if err != nil {
			return err
		}
		if c == ']' {
			p.emit(']')
			return nil
		}
		if i > 0 {
			if c != ',' {
				return errDamaged
			}
			p.emit(',')
		} else if err := p.r.UnreadByte(); err != nil {
			return err
		}
		p.path = append(p.path, strconv.Itoa(i))
		err = p.value(depth + 1)
		p.path = p.path[:len(p.path)-1]
		if err != nil {
			return err
		}
	}
}

// key reads an object key (its opening quote read), copies it and returns
// it decoded; a key longer than 1 KiB is no key yagent writes and is cut.
func (p *walker) key() (string, error) {
	var raw []byte
	err := p.scan(func(chunk []byte, escape bool) {
		if len(raw) < 1<<10 {
			raw = append(raw, chunk...)
		}
	})
	if err != nil {
		return "", err
	}
	p.emit('"')
	p.emit(raw...)
	p.emit('"')
	var k string
	if json.Unmarshal(append(append([]byte{'"'}, raw...), '"'), &k) != nil {
		k = string(raw)
	}
	return k, nil
}

// str reads a string value (its opening quote read): copied up to max
// bytes, or written decoded to dst when it is the one wanted.
func (p *walker) str() error {
	if p.max < 0 {
		if p.found || strings.Join(p.path, ".") != p.want {
			return p.scan(func([]byte, bool) {})
		}
		p.found = true
		err := p.scan(p.decode)
		p.done = err == nil
		return err
	}
	p.emit('"')
	var size int64
	kept := 0
	full := true
	err := p.scan(func(chunk []byte, escape bool) {
		size += int64(len(chunk))
		if !full {
			return
		}
		room := p.max - kept
		if len(chunk) > room {
			full = false
			if escape {
				return
			}
			// Cut on a character boundary: drop a last character that
			// does not fit whole.
			j := room
			for j > 0 && room-j < utf8.UTFMax && !utf8.RuneStart(chunk[j-1]) {
				j--
			}
			if j > 0 && !utf8.FullRune(chunk[j-1:room]) {
				room = j - 1
			}
			chunk = chunk[:room]
		}
		p.out = append(p.out, chunk...)
		kept += len(chunk)
	})
	p.emit('"')
	if !full {
		p.cut = append(p.cut, CutString{Path: strings.Join(p.path, "."), Size: size})
	}
	return err
}

// scan reads a string's content up to its closing quote, handing it over
// in chunks of plain bytes and whole escapes (\n, \u00e9…).
func (p *walker) scan(f func(chunk []byte, escape bool)) error {
	for {
		if _, err := p.r.Peek(1); err != nil {
			return err
		}
		buf, _ := p.r.Peek(p.r.Buffered())
		i := bytes.IndexAny(buf, "\"\\\n")
		if i < 0 {
			f(buf, false)
			_, _ = p.r.Discard(len(buf))
			if p.werr != nil {
				return p.werr
			}
			continue
		}
		if i > 0 {
			f(buf[:i], false)
		}
		c := buf[i]
		if c == '\n' { // a raw newline ends the line, and no string
			_, _ = p.r.Discard(i)
			return errDamaged
		}
		_, _ = p.r.Discard(i + 1)
		if c == '"' {
			return nil
		}
		e, err := p.r.ReadByte()
		if err != nil {
			return err
		}
		p.esc[0], p.esc[1] = '\\', e
		esc := p.esc[:2]
		if e == 'u' {
			if _, err := io.ReadFull(p.r, p.esc[2:6]); err != nil {
				return err
			}
			esc = p.esc[:6]
		}
		f(esc, true)
	}
}

// decode writes a chunk of the wanted string, decoded, to dst.
func (p *walker) decode(chunk []byte, escape bool) {
	if !escape {
		n, err := p.dst.Write(chunk)
		p.written += int64(n)
		p.werr = err
		return
	}
	var r rune = utf8.RuneError
	switch chunk[1] {
	case '"', '\\', '/':
		r = rune(chunk[1])
	case 'b':
		r = '\b'
	case 'f':
		r = '\f'
	case 'n':
		r = '\n'
	case 'r':
		r = '\r'
	case 't':
		r = '\t'
	case 'u':
		if v, ok := hex4(chunk[2:]); ok {
			r = v
		}
		if utf16.IsSurrogate(r) {
			r = p.lowSurrogate(r)
		}
	}
	n, _ := p.dst.WriteRune(r)
	p.written += int64(n)
}

// lowSurrogate completes a UTF-16 pair whose high half is hi, reading the
// \uXXXX that follows; U+FFFD when there is none.
func (p *walker) lowSurrogate(hi rune) rune {
	next, err := p.r.Peek(6)
	if err != nil || next[0] != '\\' || next[1] != 'u' {
		return utf8.RuneError
	}
	v, ok := hex4(next[2:])
	if !ok {
		return utf8.RuneError
	}
	r := utf16.DecodeRune(hi, v)
	if r != utf8.RuneError {
		_, _ = p.r.Discard(6)
	}
	return r
}

// hex4 reads the four hex digits of a \uXXXX escape.
func hex4(b []byte) (rune, bool) {
	var v rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			v = v<<4 | rune(c-'0')
		case 'a' <= c && c <= 'f':
			v = v<<4 | rune(c-'a'+10)
		case 'A' <= c && c <= 'F':
			v = v<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return v, true
}
