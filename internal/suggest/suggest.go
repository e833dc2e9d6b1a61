// Package suggest finds what a mistyped name may have meant ("did you
// mean"): names at most Distance edits away, or that the typed text
// begins.
package suggest

import (
	"fmt"
	"slices"
	"strings"
)

// Distance is how many edits away a suggestion may be.
const Distance = 2

// For returns the names close to typed, nearest first.
func For(typed string, names []string) []string {
	if typed == "" {
		return nil
	}
	type scored struct {
		name string
		d    int
	}
	var found []scored
	for _, n := range names {
		d := editDistance(strings.ToLower(typed), strings.ToLower(n))
		if d <= Distance || len(typed) > 1 && strings.HasPrefix(n, typed) {
			found = append(found, scored{n, d})
		}
	}
	slices.SortStableFunc(found, func(a, b scored) int { return a.d - b.d })
	out := make([]string, 0, len(found))
	for _, f := range found {
		out = append(out, f.name)
	}
	if len(out) > 3 {
		out = out[:3]
	}
	return out
}

// OrList renders names as `"a", "b" or "c"` (prefix before each name, no
// quotes then: --a, --b or --c).
func OrList(names []string, prefix string) string {
	q := make([]string, len(names))
	for i, n := range names {
		if prefix == "" {
			q[i] = fmt.Sprintf("%q", n)
		} else {
			q[i] = prefix + n
		}
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
