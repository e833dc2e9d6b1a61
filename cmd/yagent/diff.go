package main

import (
	"fmt"
	"strings"

	"github.com/yagent/yagent/internal/termsafe"
)

// lineDiff returns a minimal line diff of a → b as "- old" / "+ new" lines
// (unchanged lines omitted). Notes are small (a few KB).
func lineDiff(a, b string) []string {
	var out []string
	for _, e := range editScript(splitLines(a), splitLines(b)) {
		if e.op != ' ' {
			out = append(out, string(e.op)+" "+e.line)
		}
	}
	return out
}

// edit is one line of an edit script: ' ' kept, '-' removed, '+' added.
type edit struct {
	op   byte
	line string
}

// maxDiffCells bounds the longest-common-subsequence table (lines of a ×
// lines of b, after the common head and tail are cut): past it the changed
// middle is shown as removed then added, which is correct, only not
// minimal. A write may be 4 MiB; the person reads the diff anyway.
const maxDiffCells = 4 << 20

// editScript returns the edits turning x into y: the common head and tail
// kept, the middle from a longest common subsequence.
func editScript(x, y []string) []edit {
	head := 0
	for head < len(x) && head < len(y) && x[head] == y[head] {
		head++
	}
	tail := 0
	for tail < len(x)-head && tail < len(y)-head && x[len(x)-1-tail] == y[len(y)-1-tail] {
		tail++
	}
	var out []edit
	for _, l := range x[:head] {
		out = append(out, edit{' ', l})
	}
	mx, my := x[head:len(x)-tail], y[head:len(y)-tail]
	n, m := len(mx), len(my)
	if n*m > maxDiffCells {
		for _, l := range mx {
			out = append(out, edit{'-', l})
		}
		for _, l := range my {
			out = append(out, edit{'+', l})
		}
	} else {
		lcs := make([][]int, n+1)
		for i := range lcs {
			lcs[i] = make([]int, m+1)
		}
		for i := n - 1; i >= 0; i-- {
			for j := m - 1; j >= 0; j-- {
				if mx[i] == my[j] {
					lcs[i][j] = lcs[i+1][j+1] + 1
				} else {
					lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
				}
			}
		}
		i, j := 0, 0
		for i < n || j < m {
			switch {
			case i < n && j < m && mx[i] == my[j]:
				out = append(out, edit{' ', mx[i]})
				i, j = i+1, j+1
			case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
				out = append(out, edit{'-', mx[i]})
				i++
			default:
				out = append(out, edit{'+', my[j]})
				j++
			}
		}
	}
	for _, l := range x[len(x)-tail:] {
		out = append(out, edit{' ', l})
	}
	return out
}

// diffContext is how many unchanged lines a hunk shows around a change;
// maxDiffLines bounds what a question shows.
const (
	diffContext  = 3
	maxDiffLines = 300
)

// unifiedDiff renders the change of a file from a to b as a unified diff
// ("--- /dev/null" for a new file), at most maxDiffLines lines of hunks,
// for a person to read: the path and each line are rendered for the
// terminal (termsafe; a tab stays a tab), so a file's content cannot draw
// over the question it is part of.
func unifiedDiff(path, a, b string, created bool) string {
	var sb strings.Builder
	path = termsafe.Line(path)
	from := "a/" + path
	if created {
		from = "/dev/null"
	}
	fmt.Fprintf(&sb, "--- %s\n+++ b/%s\n", from, path)
	script := editScript(fileLines(a), fileLines(b))
	shown := 0
	for start := 0; start < len(script); {
		// Find the next change and the end of its hunk: changes closer
		// than twice the context share one hunk.
		first := start
		for first < len(script) && script[first].op == ' ' {
			first++
		}
		if first == len(script) {
			break
		}
		last := first
		for k := first; k < len(script) && k-last <= 2*diffContext; k++ {
			if script[k].op != ' ' {
				last = k
			}
		}
		lo, hi := max(first-diffContext, start), min(last+diffContext+1, len(script))
		oldLine, newLine := 1, 1
		for _, e := range script[:lo] {
			if e.op != '+' {
				oldLine++
			}
			if e.op != '-' {
				newLine++
			}
		}
		oldN, newN := 0, 0
		for _, e := range script[lo:hi] {
			if e.op != '+' {
				oldN++
			}
			if e.op != '-' {
				newN++
			}
		}
		fmt.Fprintf(&sb, "@@ -%s +%s @@\n", hunkRange(oldLine, oldN), hunkRange(newLine, newN))
		for k, e := range script[lo:hi] {
			if shown == maxDiffLines {
				fmt.Fprintf(&sb, "… and %d more changed lines\n", countRest(script[lo+k:]))
				return sb.String()
			}
			sb.WriteByte(e.op)
			sb.WriteString(termsafe.Text(e.line)) // one line: only a tab is kept
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

func countRest(script []edit) int {
	n := 0
	for _, e := range script {
		if e.op != ' ' {
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

func splitLines(s string) []string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}
