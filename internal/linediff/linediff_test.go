package linediff

import (
	"slices"
	"testing"
)

func TestChanged(t *testing.T) {
	tests := []struct {
		a, b string
		want []string
	}{
		{"", "one\ntwo", []string{"+ one", "+ two"}},
		{"one\ntwo", "", []string{"- one", "- two"}},
		{"a\nb\nc", "a\nB\nc", []string{"- b", "+ B"}},
		{"a\nb", "a\nb\nc\n", []string{"+ c"}},
		{"same", "same", nil},
	}
	for _, tt := range tests {
		if got := Changed(tt.a, tt.b); !slices.Equal(got, tt.want) {
			t.Errorf("Changed(%q, %q) = %q; want %q", tt.a, tt.b, got, tt.want)
		}
	}
}
