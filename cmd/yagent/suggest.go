package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Suggestions for a mistyped command or flag ("did you mean"): at most two
// edits away, or a prefix of the real name.

// suggestDistance is how many edits away a suggestion may be.
const suggestDistance = 2

// unknownCommand is the error for an unknown subcommand of c, with the
// commands it may have meant.
func unknownCommand(c *cobra.Command, name string) error {
	msg := fmt.Sprintf("unknown command %q for %q", name, c.CommandPath())
	if c.SuggestionsMinimumDistance <= 0 {
		c.SuggestionsMinimumDistance = suggestDistance
	}
	if s := c.SuggestionsFor(name); len(s) > 0 {
		msg += "; did you mean " + orList(s, "") + "?"
	}
	return &usageError{err: errors.New(msg), cmd: c}
}

// flagError is the flag error of c: an unknown flag gets the flags it may
// have meant (-json is --json typed with one dash).
func flagError(c *cobra.Command, err error) error {
	var ne *pflag.NotExistError
	if !errors.As(err, &ne) {
		return &usageError{err: err, cmd: c}
	}
	typed := ne.GetSpecifiedName()
	if short := ne.GetSpecifiedShortnames(); short != "" {
		typed = short // -json: the whole word after the dash
	}
	var names []string
	c.Flags().VisitAll(func(fl *pflag.Flag) {
		if !fl.Hidden {
			names = append(names, fl.Name)
		}
	})
	if s := suggestFor(typed, names); len(s) > 0 {
		err = fmt.Errorf("%w; did you mean %s?", err, orList(s, "--"))
	}
	return &usageError{err: err, cmd: c}
}

// suggestFor returns the names close to typed, nearest first.
func suggestFor(typed string, names []string) []string {
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
		if d <= suggestDistance || len(typed) > 1 && strings.HasPrefix(n, typed) {
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

// orList renders names as `"a", "b" or "c"` (prefix before each name, no
// quotes then: --a, --b or --c).
func orList(names []string, prefix string) string {
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
