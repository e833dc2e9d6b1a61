// Package brief shortens text for one line of a terminal: the plain
// printer's and the interactive view's tool lines, session titles, notes.
// What it returns is safe to print (internal/termsafe).
package brief

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/yagent/yagent/internal/termsafe"
)

// Line folds s onto one line (runs of white space, line breaks included,
// become one space), renders what is left for a terminal (a carriage
// return alone is ␍, an escape ␛: termsafe.Cut) and cuts it to n runes,
// the last being "…" when it was cut.
func Line(s string, n int) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.Join(strings.FieldsFunc(s, fold), " ")
	return termsafe.Cut(s, n)
}

// fold reports white space that only separates words: control characters
// other than tab and newline (a carriage return alone) are shown instead.
func fold(r rune) bool {
	return unicode.IsSpace(r) && (r == '\t' || r == '\n' || !unicode.IsControl(r))
}

// Args renders tool arguments as k=v pairs in key order, each value cut to
// 60 runes and the whole to 140; arguments that are not a JSON object are
// shown as they are, cut to 100.
func Args(raw json.RawMessage) string {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return Line(string(raw), 100)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var parts []string
	for _, k := range keys {
		s, ok := m[k].(string)
		if !ok {
			b, _ := json.Marshal(m[k])
			s = string(b)
		}
		parts = append(parts, k+"="+Line(s, 60))
	}
	return Line(strings.Join(parts, " "), 140)
}

// Bytes is a size for people: 512 B, 1.5 KiB, 2.0 MiB.
func Bytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// FirstNonBlank is the first of s that holds more than white space ("" if
// none does): a conclusion, else the reason.
func FirstNonBlank(s ...string) string {
	for _, v := range s {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}
