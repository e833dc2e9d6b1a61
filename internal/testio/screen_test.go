package testio

import "testing"

// TestScreen: the emulator shows what a terminal shows — a carriage
// return and an erase redraw the line, cursor moves overwrite, colours are
// invisible, a sequence split between writes still counts.
func TestScreen(t *testing.T) {
	for _, tc := range []struct {
		width    int
		in, want string
	}{
		{80, "? run `rm -rf ~ #\r\x1b[2K? run `ls -la` in /ws\r\n", "? run `ls -la` in /ws"},
		{10, "abc\rX\n", "Xbc"},
		{10, "abc\x1b[2DX", "aXc"},
		{10, "\x1b[31mred\x1b[0m", "red"},
		{10, "one\r\ntwo\x1b[1AX", "oneX\ntwo"},
		{10, "one\ntwo", "one\n   two"}, // a line feed alone keeps the column
		{10, "ab\bc", "ac"},
		{10, "a\tb", "a       b"},
		{10, "日本\x1b[2DX", "日X"},
		{10, "12345678901", "1234567890\n1"},
	} {
		s := &Screen{Width: tc.width}
		s.Write([]byte(tc.in))
		if got := s.String(); got != tc.want {
			t.Errorf("Screen after %q = %q; want %q", tc.in, got, tc.want)
		}
	}
	// A screen of three rows over a scrollback.
	for _, tc := range []struct {
		in, want string
	}{
		{"1\r\n2\r\n3\r\n4\x1b[9AX", "1\n2X\n3\n4"},  // the cursor stays on the screen
		{"1\r\n2\r\n3\r\n4\x1b[2;1HY", "1\n2\nY\n4"}, // home is the screen's top
		{"1\r\n2\r\n3\x1b[2A\r\x1b[1LN", "N\n1\n2"},  // inserted: 3 falls off
		{"1\r\n2\r\n3\x1b[2A\x1b[1M", "2\n3"},        // deleted: 2 and 3 move up
		{"1\r\n2\r\n3\x1b[2A\r\x1bMR", "R\n1\n2"},    // reverse index on the top row
		{"abcdef\r\x1b[2X", "  cdef"},                // erase characters
		{"abcdef\r\x1b[2P", "cdef"},                  // delete characters
		{"abcdef\r\x1b[2@", "  abcdef"},              // insert characters
		{"1\r\n2\r\n3\r\n4\x1b[2J", "1"},             // erasing the screen keeps the scrollback
	} {
		s := &Screen{Width: 10, Height: 3}
		s.Write([]byte(tc.in))
		if got := s.String(); got != tc.want {
			t.Errorf("3-row Screen after %q = %q; want %q", tc.in, got, tc.want)
		}
	}
	s := &Screen{}
	s.Write([]byte("abc\x1b["))
	s.Write([]byte("2K\rX"))
	s.Write([]byte("\xe6\x97"))
	s.Write([]byte("\xa5"))
	if got := s.String(); got != "X日" {
		t.Errorf("split sequence and rune: %q; want %q", got, "X日")
	}
}
