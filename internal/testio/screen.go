package testio

import (
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Screen is a small terminal emulator: it keeps what a terminal would show
// after the bytes written to it, so a test asserts what a person sees, not
// the bytes. It honours what moves the cursor or erases — carriage return,
// line feed, backspace, tab, CSI cursor moves (A B C D G H f d), erase in
// line and display (K J) — and ignores the rest (colours, titles, modes).
// Lines grow without bound (no scrolling off); "home" is the first line.
// Wide characters take two columns. It is safe for one writer and one
// reader at once.
type Screen struct {
	mu    sync.Mutex
	Width int // columns before a line wraps; 0 means 80
	rows  [][]string
	x, y  int
	state byte
	p     *ansi.Parser
	rest  []byte // an incomplete sequence or rune from the last write
}

// Write feeds the terminal.
func (s *Screen) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.p == nil {
		s.p = ansi.NewParser()
	}
	in := append(s.rest, b...)
	s.rest = nil
	for len(in) > 0 {
		if s.state == ansi.NormalState && !utf8.FullRune(in) {
			s.rest = append([]byte(nil), in...) // a rune cut between writes
			break
		}
		seq, width, n, state := ansi.DecodeSequence(in, s.state, s.p)
		if n == 0 || state != ansi.NormalState && n == len(in) {
			s.rest = append([]byte(nil), in...) // wait for the rest
			break
		}
		s.state = state
		in = in[n:]
		s.apply(seq, width)
	}
	return len(b), nil
}

func (s *Screen) width() int {
	if s.Width <= 0 {
		return 80
	}
	return s.Width
}

func (s *Screen) apply(seq []byte, width int) {
	switch {
	case width > 0:
		s.put(string(seq), width)
	case len(seq) == 1:
		switch seq[0] {
		case '\r':
			s.x = 0
		case '\n', '\v', '\f':
			s.y++
		case '\b':
			s.x = max(s.x-1, 0)
		case '\t':
			s.x = min((s.x/8+1)*8, s.width()-1)
		}
	case ansi.HasCsiPrefix(seq):
		s.csi()
	}
}

func (s *Screen) csi() {
	cmd := ansi.Cmd(s.p.Command())
	if cmd.Prefix() != 0 || cmd.Intermediate() != 0 {
		return // private modes and the like
	}
	n, _, _ := s.p.Params().Param(0, 1)
	switch cmd.Final() {
	case 'A':
		s.y = max(s.y-n, 0)
	case 'B':
		s.y += n
	case 'C':
		s.x = min(s.x+n, s.width()-1)
	case 'D':
		s.x = max(s.x-n, 0)
	case 'G':
		s.x = min(max(n-1, 0), s.width()-1)
	case 'd':
		s.y = max(n-1, 0)
	case 'H', 'f':
		col, _, _ := s.p.Params().Param(1, 1)
		s.y, s.x = max(n-1, 0), min(max(col-1, 0), s.width()-1)
	case 'K':
		mode, _, _ := s.p.Params().Param(0, 0)
		row := s.row(s.y)
		switch mode {
		case 0:
			if s.x < len(*row) {
				*row = (*row)[:s.x]
			}
		case 1:
			for i := 0; i <= s.x && i < len(*row); i++ {
				(*row)[i] = " "
			}
		case 2:
			*row = nil
		}
	case 'J':
		mode, _, _ := s.p.Params().Param(0, 0)
		switch mode {
		case 0:
			if row := s.row(s.y); s.x < len(*row) {
				*row = (*row)[:s.x]
			}
			if s.y+1 < len(s.rows) {
				s.rows = s.rows[:s.y+1]
			}
		case 2, 3:
			s.rows = nil
		}
	}
}

// row returns line y, adding empty lines up to it.
func (s *Screen) row(y int) *[]string {
	for len(s.rows) <= y {
		s.rows = append(s.rows, nil)
	}
	return &s.rows[y]
}

// put writes a grapheme at the cursor (wrapping at the width).
func (s *Screen) put(g string, w int) {
	if s.x+w > s.width() {
		s.x, s.y = 0, s.y+1
	}
	row := s.row(s.y)
	for len(*row) < s.x+w {
		*row = append(*row, " ")
	}
	(*row)[s.x] = g
	for i := 1; i < w; i++ {
		(*row)[s.x+i] = "" // the wide character's second column
	}
	s.x += w
}

// String returns the lines shown, trailing blanks trimmed.
func (s *Screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	lines := make([]string, len(s.rows))
	for i, r := range s.rows {
		lines[i] = strings.TrimRight(strings.Join(r, ""), " ")
	}
	return strings.Join(lines, "\n")
}
