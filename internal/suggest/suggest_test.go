package suggest

import (
	"slices"
	"testing"
)

// TestFor: names at most Distance edits away (case aside) or that the
// typed text begins, nearest first, at most three; nothing for "".
func TestFor(t *testing.T) {
	names := []string{"json", "session", "last", "model", "max-steps", "board"}
	for _, tt := range []struct {
		typed string
		want  []string
	}{
		{"json", []string{"json"}},
		{"jsno", []string{"json"}},
		{"JSON", []string{"json"}},
		{"sesion", []string{"session"}},
		{"ma", []string{"max-steps"}},
		{"m", nil},
		{"zzzzzz", nil},
		{"", nil},
		{"las", []string{"last"}},
	} {
		if got := For(tt.typed, names); !slices.Equal(got, tt.want) {
			t.Errorf("For(%q) = %q; want %q", tt.typed, got, tt.want)
		}
	}
}

func TestOrList(t *testing.T) {
	for _, tt := range []struct {
		names  []string
		prefix string
		want   string
	}{
		{[]string{"a"}, "", `"a"`},
		{[]string{"a", "b", "c"}, "", `"a", "b" or "c"`},
		{[]string{"json", "jq"}, "--", "--json or --jq"},
	} {
		if got := OrList(tt.names, tt.prefix); got != tt.want {
			t.Errorf("OrList(%q, %q) = %s; want %s", tt.names, tt.prefix, got, tt.want)
		}
	}
}
