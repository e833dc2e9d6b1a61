package testio

import (
	"slices"
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
// Without a Height, lines grow without bound (no scrolling off) and
// "home" is the first line. With one, it is a terminal of that many rows
// over a scrollback, as a person's is: a line feed on the last row
// scrolls the top row into the scrollback, cursor moves stay on the
// screen, lines are inserted and deleted (IL, DL, reverse index) within
// it, and characters erased, inserted and deleted (ECH, ICH, DCH) — what
// Bubble Tea's inline renderer writes for a terminal of no special
// capabilities (TERM=vt100). Wide characters take two columns. It is
// safe for one writer and one reader at once.
type Screen struct {
	mu     sync.Mutex
	Width  int // columns before a line wraps; 0 means 80
	Height int // rows of the screen; 0: no screen, lines grow
	// ONLCR makes a line feed also return the carriage, as a terminal
	// in cooked mode does (what Bubble Tea assumes when its input is no
	// terminal, as under teatest).
	ONLCR bool
	rows  [][]string
	top   int // the screen's first row in rows (Height > 0)
	x, y  int // y indexes rows
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
			s.lf()
			if s.ONLCR && seq[0] == '\n' {
				s.x = 0
			}
		case '\b':
			s.x = max(s.x-1, 0)
		case '\t':
			s.x = min((s.x/8+1)*8, s.width()-1)
		}
	case ansi.HasCsiPrefix(seq):
		s.csi()
	case ansi.HasEscPrefix(seq) && len(seq) == 2 && seq[1] == 'M':
		s.reverseIndex()
	}
}

// lf moves the cursor a row down; on a screen's last row the screen
// scrolls, its top row joining the scrollback.
func (s *Screen) lf() {
	if s.Height > 0 && s.y >= s.top+s.Height-1 {
		s.top++
	}
	s.y++
}

// reverseIndex moves the cursor a row up; on the screen's top row a blank
// row is inserted there and the last row falls off.
func (s *Screen) reverseIndex() {
	if s.Height <= 0 || s.y > s.top {
		s.y = max(s.y-1, s.top)
		return
	}
	s.insertRows(1)
}

// insertRows inserts n blank rows at the cursor's row; rows pushed past
// the screen's last row are lost.
func (s *Screen) insertRows(n int) {
	s.row(s.y)
	rest := append(make([][]string, n), s.rows[s.y:]...)
	if s.Height > 0 {
		rest = rest[:min(len(rest), s.top+s.Height-s.y)]
	}
	s.rows = append(s.rows[:s.y], rest...)
}

// deleteRows deletes n rows at the cursor's row (those below move up).
func (s *Screen) deleteRows(n int) {
	s.row(s.y)
	end := min(s.y+n, len(s.rows))
	s.rows = append(s.rows[:s.y], s.rows[end:]...)
}

// clampY keeps the cursor on the screen.
func (s *Screen) clampY() {
	if s.Height > 0 {
		s.y = min(max(s.y, s.top), s.top+s.Height-1)
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
		s.y = max(s.y-n, s.top)
	case 'B':
		s.y += n
		s.clampY()
	case 'C':
		s.x = min(s.x+n, s.width()-1)
	case 'D':
		s.x = max(s.x-n, 0)
	case 'G':
		s.x = min(max(n-1, 0), s.width()-1)
	case 'd':
		s.y = s.top + max(n-1, 0)
		s.clampY()
	case 'H', 'f':
		col, _, _ := s.p.Params().Param(1, 1)
		s.y, s.x = s.top+max(n-1, 0), min(max(col-1, 0), s.width()-1)
		s.clampY()
	case 'L':
		s.insertRows(n)
	case 'M':
		s.deleteRows(n)
	case 'X', 'P', '@':
		row := s.row(s.y)
		for len(*row) < s.x {
			*row = append(*row, " ")
		}
		r := *row
		switch cmd.Final() {
		case 'X':
			for i := s.x; i < s.x+n && i < len(r); i++ {
				r[i] = " "
			}
		case 'P':
			r = append(r[:s.x], r[min(s.x+n, len(r)):]...)
		case '@':
			r = append(r[:s.x], append(slices.Repeat([]string{" "}, n), r[s.x:]...)...)
			r = r[:min(len(r), s.width())]
		}
		*row = r
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
			if s.Height > 0 {
				s.rows = s.rows[:min(s.top, len(s.rows))]
			} else {
				s.rows = nil
			}
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
		s.x = 0
		s.lf()
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

// Scrolled is how many rows went into the scrollback (with a Height):
// String's first lines.
func (s *Screen) Scrolled() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.top
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
