package termsafe

import (
	"bytes"
	"strings"
	"testing"
	"testing/iotest"
	"unicode"
	"unicode/utf8"
)

// TestText pins what each kind of character becomes on a multi-line
// surface, and that printable text of every script is left as it is.
func TestText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"ls -la", "ls -la"},
		{"a\n\tb", "a\n\tb"},
		{"日本語 テキスト · ü · ١٢٣ · עברית", "日本語 テキスト · ü · ١٢٣ · עברית"},
		{"rm -rf ~ #\r\x1b[2K? run `ls -la`", "rm -rf ~ #␍␛[2K? run `ls -la`"},
		{"\x1b]52;c;ZWNobw==\x07", "␛]52;c;ZWNobw==␇"}, // clipboard write
		{"\x00\x08\x7f", "␀␈␡"},
		{"a\r\nb", "a␍\nb"},
		{"\u009b31m", `\u009b31m`},                 // C1 CSI
		{"\xc2\x9b", `\u009b`},                     // the same, spelled out
		{"\x9b\xff", `\x9b\xff`},                   // bytes that are not UTF-8
		{"\xe2\x80", `\xe2\x80`},                   // half of U+202E
		{"abc\u202edcba.exe", `abc\u202edcba.exe`}, // right-to-left override
		{"\u2066x\u2069 \u200e\u200f\u061c", `\u2066x\u2069 \u200e\u200f\u061c`},
		{"r\u200bm -rf", `r\u200bm -rf`},                   // zero-width space
		{"\ufeffhi\u2060", `\ufeffhi\u2060`},               // BOM, word joiner
		{"a\u2028b\u2029", `a\u2028b\u2029`},               // line, paragraph separators
		{"x\U000e0041\U000e0042", `x\U000e0041\U000e0042`}, // tag characters
		{"l\u200ds", `l\u200ds`},                           // a joiner inside an ASCII word
		{"👨\u200d👩\u200d👧", "👨\u200d👩\u200d👧"},             // a family: kept
		{"می\u200cخواهم", "می\u200cخواهم"},                 // Persian: kept
		{"👨\u200d", `👨\u200d`},                             // nothing after it
		{"\u200d👩", `\u200d👩`},                             // nothing before it
		{"👨\u200d\u200d👩", `👨\u200d\u200d👩`},               // two in a row
		{"❤\ufe0f\u200d🔥", "❤\ufe0f\u200d🔥"},               // after a variation selector
	} {
		if got := Text(tc.in); got != tc.want {
			t.Errorf("Text(%q) = %q; want %q", tc.in, got, tc.want)
		}
	}
}

// TestLine: on one line newline and tab are shown too.
func TestLine(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"ls -la", "ls -la"},
		{"ls\n\trm", "ls␊␉rm"},
		{"a\x1b[Ab", "a␛[Ab"},
	} {
		if got := Line(tc.in); got != tc.want {
			t.Errorf("Line(%q) = %q; want %q", tc.in, got, tc.want)
		}
	}
}

// TestCut: cuts count runes of the rendered text and never split a
// replacement.
func TestCut(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"abcdef", 4, "abc…"},
		{"abcd", 4, "abcd"},
		{"日本語テキスト", 4, "日本語…"},
		{"ab\u202ecd", 5, "ab…"}, // \u202e does not fit: dropped whole
		{"ab\u202ecd", 9, `ab\u202e…`},
		{"ab\u202ecde", 10, `ab\u202ec…`},
		{"ab\u202ecd", 10, `ab\u202ecd`},
		{"a\x1bb", 3, "a␛b"},
		{"a\x1bbc", 3, "a␛…"},
		{"abc", 1, "…"},
		{"abc", 0, ""},
	} {
		if got := Cut(tc.in, tc.n); got != tc.want {
			t.Errorf("Cut(%q, %d) = %q; want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

// TestStream: text rendered in pieces is the text rendered whole, for a
// split inside a rune, after a joiner, and one byte at a time.
func TestStream(t *testing.T) {
	for _, in := range []string{
		"plain text\n",
		"a\u202eb",
		"👨\u200d👩\u200d👧 family",
		"l\u200ds",
		"trailing joiner 👨\u200d",
		"\xe2\x80",
		"x\x1b[2Ky\r\n",
	} {
		want := Text(in)
		var st Stream
		var got strings.Builder
		for i := 0; i < len(in); i++ {
			got.WriteString(st.Next(in[i : i+1]))
		}
		got.WriteString(st.End())
		if got.String() != want {
			t.Errorf("Stream byte by byte of %q = %q; want %q", in, got.String(), want)
		}
		var out bytes.Buffer
		if _, err := Copy(&out, iotest.OneByteReader(strings.NewReader(in))); err != nil || out.String() != want {
			t.Errorf("Copy(%q) = %q, %v; want %q", in, out.String(), err, want)
		}
	}
}

// FuzzText: whatever the text, what reaches the terminal has no control
// character but newline and tab (none at all from Line), no DEL, no C1
// control, no format character but a joiner between two visible non-ASCII
// characters, and is UTF-8; printable text comes back unchanged; rendering
// is idempotent; rendered in pieces it is the same; a cut is a prefix.
func FuzzText(f *testing.F) {
	for _, s := range []string{"ls -la", "rm -rf ~ #\r\x1b[2K? run `ls -la`", "a\u202eb", "👨\u200d👩", "\xe2\x80\xae", "\u009b2J", "日本語\n\tx"} {
		f.Add(s, uint8(3))
	}
	f.Fuzz(func(t *testing.T, s string, split uint8) {
		for _, multiline := range []bool{true, false} {
			got := render(s, multiline)
			checkSafe(t, s, got, multiline)
			if again := render(got, multiline); again != got {
				t.Fatalf("not idempotent: %q → %q → %q", s, got, again)
			}
			if printable(s, multiline) && got != s {
				t.Fatalf("printable %q rendered as %q", s, got)
			}
		}
		var st Stream
		k := min(int(split), len(s))
		if streamed := st.Next(s[:k]) + st.Next(s[k:]) + st.End(); streamed != Text(s) {
			t.Fatalf("streamed %q (split at %d) = %q; whole %q", s, k, streamed, Text(s))
		}
		line := Line(s)
		for _, n := range []int{1, 5, 40} {
			c := Cut(s, n)
			if utf8.RuneCountInString(c) > n {
				t.Fatalf("Cut(%q, %d) = %q: too long", s, n, c)
			}
			if c != line && !strings.HasPrefix(line, strings.TrimSuffix(c, "…")) {
				t.Fatalf("Cut(%q, %d) = %q: not a prefix of %q", s, n, c, line)
			}
			checkSafe(t, s, c, false)
		}
	})
}

func checkSafe(t *testing.T, in, got string, multiline bool) {
	t.Helper()
	if !utf8.ValidString(got) {
		t.Fatalf("render(%q) = %q: not UTF-8", in, got)
	}
	rs := []rune(got)
	for i, r := range rs {
		bad := false
		switch {
		case r == '\n' || r == '\t':
			bad = !multiline
		case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f, r == 0x2028, r == 0x2029:
			bad = true
		case r == 0x200c || r == 0x200d:
			bad = i == 0 || i == len(rs)-1 || !visible(rs[i-1]) || !visible(rs[i+1])
		case unicode.Is(unicode.Cf, r):
			bad = true
		}
		if bad {
			t.Fatalf("render(%q, multiline %v) = %q keeps %U", in, multiline, got, r)
		}
	}
}

// printable: valid UTF-8 of graphic characters (letters, marks, numbers,
// punctuation, symbols, spaces), plus newline and tab on several lines.
func printable(s string, multiline bool) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if !unicode.IsGraphic(r) && !(multiline && (r == '\n' || r == '\t')) {
			return false
		}
	}
	return true
}

// TestLines: every line of a command, each safe.
func TestLines(t *testing.T) {
	got := Lines("ls -la\nrm -rf x #\r\x1b[2K\n")
	want := []string{"ls -la", "rm -rf x #␍␛[2K", ""}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("Lines = %q; want %q", got, want)
	}
}
