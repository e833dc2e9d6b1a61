package linediff

import (
	"fmt"
	"strings"

	"github.com/yagent/yagent/internal/termsafe"
)

// UnifiedContext is how many unchanged lines a hunk shows around a
// change; MaxUnifiedLines bounds what a question shows.
const (
	UnifiedContext  = 3
	MaxUnifiedLines = 300
)

// Unified renders the change of a file from a to b as a unified diff
// ("--- /dev/null" for a new file), at most MaxUnifiedLines lines of hunks,
// for a person to read: the path and each line are rendered for the
// terminal (termsafe; a tab stays a tab), so a file's content cannot draw
// over the question it is part of.
func Unified(path, a, b string, created bool) string {
	var sb strings.Builder
	path = termsafe.Line(path)
	from := "a/" + path
	if created {
		from = "/dev/null"
	}
	fmt.Fprintf(&sb, "--- %s\n+++ b/%s\n", from, path)
	script := Script(fileLines(a), fileLines(b))
	shown := 0
	for start := 0; start < len(script); {
		// Find the next change and the end of its hunk: changes closer
		// than twice the context share one hunk.
		first := start
		for first < len(script) && script[first].Op == ' ' {
			first++
		}
		if first == len(script) {
			break
		}
		last := first
		for k := first; k < len(script) && k-last <= 2*UnifiedContext; k++ {
			if script[k].Op != ' ' {
				last = k
			}
		}
		lo, hi := max(first-UnifiedContext, start), min(last+UnifiedContext+1, len(script))
		oldLine, newLine := 1, 1
		for _, e := range script[:lo] {
			if e.Op != '+' {
				oldLine++
			}
			if e.Op != '-' {
				newLine++
			}
		}
		oldN, newN := 0, 0
		for _, e := range script[lo:hi] {
			if e.Op != '+' {
				oldN++
			}
			if e.Op != '-' {
				newN++
			}
		}
		fmt.Fprintf(&sb, "@@ -%s +%s @@\n", hunkRange(oldLine, oldN), hunkRange(newLine, newN))
		for k, e := range script[lo:hi] {
			if shown == MaxUnifiedLines {
				fmt.Fprintf(&sb, "… and %d more changed lines\n", countRest(script[lo+k:]))
				return sb.String()
			}
			sb.WriteByte(e.Op)
			sb.WriteString(termsafe.Text(e.Line)) // one line: only a tab is kept
			sb.WriteByte('\n')
			shown++
		}
		start = hi
	}
	return sb.String()
}

// hunkRange is a unified diff's "start,count" (start 0 for an empty side).
func hunkRange(start, n int) string {
	if n == 0 {
		start--
	}
	if n == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}

func countRest(script []Edit) int {
	n := 0
	for _, e := range script {
		if e.Op != ' ' {
			n++
		}
	}
	return n
}

// fileLines splits a file's content into lines (a final newline ends the
// last line, it does not start another).
func fileLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}
