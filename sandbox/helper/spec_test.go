package helper

import (
	"slices"
	"strings"
	"testing"
)

// The spec round-trips through the helper's arguments, values that look
// like flags included.
func TestSpecRoundTrip(t *testing.T) {
	s := &Spec{Mechanism: View, ABI: 7, Dir: "/w s", Argv: []string{"sh", "-c", "echo -- -rw"},
		Ops: []Op{{Kind: Tmp, Path: "/h/tmp/x"}, {Kind: RW, Path: "/--"}, {Kind: RO, Path: "/-rw"}, {Kind: Hide, Path: "/run"},
			{Kind: Bind, Path: "/h/cache", At: "/tmp/.cache"}, {Kind: RWFile, Path: "/dev/null"}}}
	a := s.Args()
	if a[0] != Arg {
		t.Fatalf("Args()[0] = %q", a[0])
	}
	got, err := Parse(a[1:])
	if err != nil {
		t.Fatal(err)
	}
	if got.Mechanism != s.Mechanism || got.ABI != s.ABI || got.Dir != s.Dir || !slices.Equal(got.Argv, s.Argv) || !slices.Equal(got.Ops, s.Ops) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, s)
	}
	// The seccomp program: the mechanism's own (Program) unless one is
	// given; none for the probe.
	if want := Program(View); want != nil && !slices.Equal(got.Filter, want) {
		t.Errorf("Filter = %x; want Program(View) %x", got.Filter, want)
	}
	s.Filter = []byte{1, 2, 3, 4, 5, 6, 7, 0xff}
	if got, err := Parse(s.Args()[1:]); err != nil || !slices.Equal(got.Filter, s.Filter) {
		t.Errorf("a given Filter: %x, %v", got.Filter, err)
	}
	if got, err := Parse((&Spec{Mechanism: Probe}).Args()[1:]); err != nil || got.Filter != nil {
		t.Errorf("probe: Filter %x, %v; want none", got.Filter, err)
	}
}

func TestParseRefuses(t *testing.T) {
	for _, a := range [][]string{
		{"-m", "view", "--"},
		{"--", "sh"},
		{"-m", "bogus", "--", "sh"},
		{"-m", "view", "-abi", "x", "--", "sh"},
		{"-m", "view", "-rw", "rel", "--", "sh"},
		{"-m", "view", "-bind", "/a", "--", "sh"},
		{"-m", "view", "-nope", "/a", "--", "sh"},
		{"-m", "view", "-rw"},
		{"-m", "view", "sh"},
		{"-m", "view", "-bpf", "", "--", "sh"},
		{"-m", "view", "-bpf", "0011223344556677aa", "--", "sh"},
		{"-m", "view", "-bpf", "00112233445566AA", "--", "sh"},
		{"-m", "view", "-bpf", "001122334455667g", "--", "sh"},
		{"-m", "view", "-bpf", strings.Repeat("00", 8*1025), "--", "sh"},
	} {
		if s, err := Parse(a); err == nil {
			t.Errorf("Parse(%q) = %+v; want an error", a, s)
		}
	}
	// What is wrong is named: a flag at the very end lacks its value;
	// one with its value at the end lacks the command.
	for _, c := range []struct {
		a    []string
		want string
	}{
		{[]string{"-m", "view", "-rw"}, "-rw without a value"},
		{[]string{"-m", "view"}, "no command (want -- ARGV)"},
		{[]string{"-m", "view", "-rw", "/a"}, "no command (want -- ARGV)"},
	} {
		if _, err := Parse(c.a); err == nil || err.Error() != c.want {
			t.Errorf("Parse(%q): %v; want %q", c.a, err, c.want)
		}
	}
	if s, err := Parse([]string{"-m", "probe", "--"}); err != nil || s.Mechanism != Probe {
		t.Errorf("probe: %+v, %v", s, err)
	}
	// The most instructions a program may have is taken.
	if s, err := Parse([]string{"-m", "view", "-bpf", strings.Repeat("00", 8*maxFilter), "--", "sh"}); err != nil || len(s.Filter) != 8*maxFilter {
		t.Errorf("a program of maxFilter instructions: %v", err)
	}
}

// FuzzParse: never panics; what parses re-encodes to the same spec.
func FuzzParse(f *testing.F) {
	f.Add("-m\x00view\x00-abi\x007\x00-rw\x00/a\x00-bind\x00/b\x00/c\x00--\x00sh")
	f.Add("-m\x00landlock\x00--\x00x")
	f.Add("-m\x00landlock\x00-bpf\x000011223344556677\x00--\x00x")
	f.Fuzz(func(t *testing.T, in string) {
		s, err := Parse(strings.Split(in, "\x00"))
		if err != nil {
			return
		}
		again, err := Parse(s.Args()[1:])
		if err != nil || again.Mechanism != s.Mechanism || again.ABI != s.ABI || again.Dir != s.Dir || !slices.Equal(again.Ops, s.Ops) || !slices.Equal(again.Argv, s.Argv) ||
			s.Filter != nil && !slices.Equal(again.Filter, s.Filter) {
			t.Fatalf("%q: %+v re-encodes to %+v (%v)", in, s, again, err)
		}
	})
}

func TestItoaAtoi(t *testing.T) {
	for _, n := range []int{0, 7, 10, 123456789} {
		if got, ok := atoi(itoa(n)); !ok || got != n {
			t.Errorf("atoi(itoa(%d)) = %d, %v", n, got, ok)
		}
	}
	if itoa(-12) != "-12" {
		t.Errorf("itoa(-12) = %q", itoa(-12))
	}
	for _, s := range []string{"", "-1", "1x", "9999999999"} {
		if _, ok := atoi(s); ok {
			t.Errorf("atoi(%q) accepted", s)
		}
	}
}

// The edges of the digits: every hex digit and its neighbours in ASCII,
// atoi's longest number and the characters around '0'..'9', itoa's
// negatives.
func TestDigitEdges(t *testing.T) {
	for c := 0; c < 256; c++ {
		want := strings.IndexByte(hexDigits, byte(c))
		if got := unhex(byte(c)); got != want {
			t.Errorf("unhex(%q) = %d; want %d", rune(c), got, want)
		}
	}
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	if got, ok := fromHex(toHex(all)); !ok || !slices.Equal(got, all) {
		t.Errorf("fromHex(toHex(every byte)) = %x, %v", got, ok)
	}
	for _, s := range []string{"0", "abc", "0/", "/0", ":0", "0:", "`0", "0g", "G0"} {
		if b, ok := fromHex(s); ok {
			t.Errorf("fromHex(%q) = %x; want a refusal", s, b)
		}
	}
	for s, want := range map[string]int{"0": 0, "9": 9, "09": 9, "999999999": 999999999, "100": 100} {
		if got, ok := atoi(s); !ok || got != want {
			t.Errorf("atoi(%q) = %d, %v; want %d", s, got, ok, want)
		}
	}
	for _, s := range []string{"/", ":", "1/", "1:", "1000000000"} {
		if n, ok := atoi(s); ok {
			t.Errorf("atoi(%q) = %d; want a refusal", s, n)
		}
	}
	for n, want := range map[int]string{1: "1", -1: "-1", 9: "9", 10: "10", -10: "-10", 1024: "1024", -987654321: "-987654321"} {
		if got := itoa(n); got != want {
			t.Errorf("itoa(%d) = %q; want %q", n, got, want)
		}
	}
}
