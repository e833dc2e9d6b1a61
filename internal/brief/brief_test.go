package brief

import "testing"

func TestLine(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"a  b\n\tc", 10, "a b c"},
		{"abcdef", 4, "abc…"},
		{"日本語テキスト", 4, "日本語…"},
		{"abcd", 4, "abcd"},
	} {
		if got := Line(tc.in, tc.n); got != tc.want {
			t.Errorf("Line(%q, %d) = %q; want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

func TestArgs(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"path":"a.go","line":3,"opts":{"x":true}}`, `line=3 opts={"x":true} path=a.go`},
		{`not json`, `not json`},
		{`{"command":"go   test\n./..."}`, `command=go test ./...`},
	} {
		if got := Args([]byte(tc.in)); got != tc.want {
			t.Errorf("Args(%s) = %q; want %q", tc.in, got, tc.want)
		}
	}
}

// TestLineSafe: what a model chose never reaches the terminal as control
// characters: a carriage return alone, an escape and a bidi override are
// shown; CRLF is a line break like any other.
func TestLineSafe(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"rm -rf ~ #\r\x1b[2Kls -la", 100, "rm -rf ~ #␍␛[2Kls -la"},
		{"a\r\nb", 10, "a b"},
		{"ab\u202ecd", 9, `ab\u202e…`},
	} {
		if got := Line(tc.in, tc.n); got != tc.want {
			t.Errorf("Line(%q, %d) = %q; want %q", tc.in, tc.n, got, tc.want)
		}
	}
	if got, want := Args([]byte(`{"command":"x\u001b[2Ky"}`)), "command=x␛[2Ky"; got != want {
		t.Errorf("Args = %q; want %q", got, want)
	}
}

func TestFirstNonBlank(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want string
	}{
		{nil, ""},
		{[]string{"", "reason"}, "reason"},
		{[]string{" \n\t", "reason"}, "reason"},
		{[]string{"done", "reason"}, "done"},
		{[]string{" ", ""}, ""},
	} {
		if got := FirstNonBlank(tc.in...); got != tc.want {
			t.Errorf("FirstNonBlank(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
