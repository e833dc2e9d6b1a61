// Package linediff compares texts line by line: the edit script of a
// write's unified diff (cmd/yagent) and the "- old" / "+ new" lines a
// note's change shows (agents/eventline, yagent notes).
package linediff

import "strings"

// Changed returns a minimal line diff of a → b as "- old" / "+ new" lines
// (unchanged lines omitted). Notes are small (a few KB).
func Changed(a, b string) []string {
	var out []string
	for _, e := range Script(splitLines(a), splitLines(b)) {
		if e.Op != ' ' {
			out = append(out, string(e.Op)+" "+e.Line)
		}
	}
	return out
}

// Edit is one line of an edit script: ' ' kept, '-' removed, '+' added.
type Edit struct {
	Op   byte
	Line string
}

// MaxCells bounds the longest-common-subsequence table (lines of a ×
// lines of b, after the common head and tail are cut): past it the changed
// middle is shown as removed then added, which is correct, only not
// minimal. A write may be 4 MiB; the person reads the diff anyway.
const MaxCells = 4 << 20

// Script returns the edits turning x into y: the common head and tail
// kept, the middle from a longest common subsequence.
func Script(x, y []string) []Edit {
	head := 0
	for head < len(x) && head < len(y) && x[head] == y[head] {
		head++
	}
	tail := 0
	for tail < len(x)-head && tail < len(y)-head && x[len(x)-1-tail] == y[len(y)-1-tail] {
		tail++
	}
	var out []Edit
	for _, l := range x[:head] {
		out = append(out, Edit{' ', l})
	}
	mx, my := x[head:len(x)-tail], y[head:len(y)-tail]
	n, m := len(mx), len(my)
	if n*m > MaxCells {
		for _, l := range mx {
			out = append(out, Edit{'-', l})
		}
		for _, l := range my {
			out = append(out, Edit{'+', l})
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
				out = append(out, Edit{' ', mx[i]})
				i, j = i+1, j+1
			case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
				out = append(out, Edit{'-', mx[i]})
				i++
			default:
				out = append(out, Edit{'+', my[j]})
				j++
			}
		}
	}
	for _, l := range x[len(x)-tail:] {
		out = append(out, Edit{' ', l})
	}
	return out
}

func splitLines(s string) []string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}
