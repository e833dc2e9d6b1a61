package tui

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/charmbracelet/x/ansi"

	"github.com/yagent/yagent/internal/termsafe"
)

// A paste longer than pasteInline characters or pasteLines lines, or
// holding a tab (the composer turns a tab into spaces: code and tables
// would change), stays out of the composer: a marker stands for it and the
// whole text is sent.
const (
	pasteInline = 2000
	pasteLines  = 10
)

// sanitize removes what a paste must not carry into a prompt: escape
// sequences and control characters other than newline and tab; CRLF and
// CR become newlines.
func sanitize(s string) string {
	s = ansi.Strip(s)
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return r
		}
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, s)
}

// paste takes a bracketed paste: one piece of the prompt, whatever its
// length or lines.
func (m *model) paste(s string) {
	s = sanitize(s)
	if s == "" {
		return
	}
	m.armed = false
	lines := strings.Count(s, "\n") + 1
	if len(s) <= pasteInline && lines <= pasteLines && !strings.Contains(s, "\t") {
		m.ta.InsertString(s)
		return
	}
	m.pastes = append(m.pastes, s)
	m.ta.InsertString(pasteMarker(len(m.pastes), s))
}

func pasteMarker(n int, s string) string {
	return fmt.Sprintf("[paste #%d: %d lines, %d chars]", n, strings.Count(s, "\n")+1, len([]rune(s)))
}

// expandPastes puts the pasted texts back in place of their markers.
func (m *model) expandPastes(s string) string {
	for i, p := range m.pastes {
		s = strings.Replace(s, pasteMarker(i+1, p), p, 1)
	}
	return s
}

// complete is Tab: a slash command at the start, else an @path mention
// under the cursor.
func (m *model) complete() {
	v := m.ta.Value()
	if strings.HasPrefix(v, "/") && !strings.ContainsAny(v, " \n") {
		var hits []string
		for _, c := range m.commands() {
			if strings.HasPrefix(c, v) {
				hits = append(hits, c)
			}
		}
		m.applyCompletion(v, hits, " ")
		return
	}
	word := lastWord(v)
	if !strings.HasPrefix(word, "@") {
		return
	}
	hits := pathCompletions(m.o.Workspace, word[1:])
	for i := range hits {
		hits[i] = "@" + hits[i]
	}
	m.applyCompletion(word, hits, "")
}

// applyCompletion replaces word at the end of the composer by the one hit,
// or by the hits' common prefix and lists them.
func (m *model) applyCompletion(word string, hits []string, after string) {
	v := m.ta.Value()
	switch len(hits) {
	case 0:
		m.hint = "no completion for " + word
		return
	case 1:
		if !strings.HasSuffix(hits[0], "/") {
			hits[0] += after
		}
		m.ta.SetValue(strings.TrimSuffix(v, word) + hits[0])
		m.hint = ""
		return
	}
	p := hits[0]
	for _, h := range hits[1:] {
		for !strings.HasPrefix(h, p) {
			p = p[:len(p)-1]
		}
	}
	m.ta.SetValue(strings.TrimSuffix(v, word) + p)
	m.hint = termsafe.Line(strings.Join(hits, "  "))
}

func lastWord(s string) string {
	i := strings.LastIndexFunc(s, unicode.IsSpace)
	return s[i+1:]
}

// pathCompletions lists the workspace entries starting with prefix (a
// path relative to the workspace); directories end with "/".
func pathCompletions(root, prefix string) []string {
	dir, base := filepath.Split(prefix)
	if root == "" || filepath.IsAbs(dir) || strings.HasPrefix(filepath.Clean(dir), "..") {
		return nil
	}
	entries, err := os.ReadDir(filepath.Join(root, dir))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, base) || strings.HasPrefix(name, ".") && !strings.HasPrefix(base, ".") {
			continue
		}
		if termsafe.Line(name) != name {
			continue // a name with control characters is not typed into the composer
		}
		if e.IsDir() {
			name += "/"
		}
		out = append(out, dir+name)
	}
	slices.Sort(out)
	return out
}

// mention is an @path in a prompt.
var mention = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(^|\s)@([^\s@]+)`) })

// attachMax is the largest file a mention attaches whole.
const attachMax = 256 << 10

// attach appends the files the prompt mentions (@path, inside the
// workspace) to the prompt, and names them.
func attach(root, prompt string) (string, []string, error) {
	if root == "" {
		return prompt, nil, nil
	}
	var b strings.Builder
	var names, problems []string
	seen := map[string]bool{}
	r, err := os.OpenRoot(root)
	if err != nil {
		return prompt, nil, err
	}
	defer r.Close()
	for _, sm := range mention().FindAllStringSubmatch(prompt, -1) {
		// "@main.go," names main.go: punctuation after a mention is the
		// sentence's, unless a file has it in its name.
		rel := filepath.Clean(sm[2])
		data, err := r.ReadFile(rel)
		if trimmed := filepath.Clean(strings.TrimRight(sm[2], ".,;:!?)]}'\"")); err != nil && trimmed != rel && trimmed != "." {
			rel = trimmed
			data, err = r.ReadFile(rel)
		}
		if filepath.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, "../") || seen[rel] {
			continue
		}
		seen[rel] = true
		switch {
		case err != nil && strings.ContainsAny(rel, "./"):
			// it reads as a path: say it attached nothing (issue 32)
			what := "no such file in the workspace"
			if !errors.Is(err, fs.ErrNotExist) {
				what = "not a file that can be read"
			}
			problems = append(problems, fmt.Sprintf("@%s: %s; sent as typed", rel, what))
			continue
		case err != nil:
			continue // @name: no mention of a file
		case len(data) > attachMax:
			problems = append(problems, fmt.Sprintf("%s is %d bytes, more than %d: not attached, the agent can read it", rel, len(data), attachMax))
			continue
		}
		names = append(names, rel)
		fmt.Fprintf(&b, "\n\n<file path=%q>\n%s\n</file>", rel, strings.TrimRight(string(data), "\n"))
	}
	if len(problems) > 0 {
		return prompt + b.String(), names, fmt.Errorf("%s", strings.Join(problems, "; "))
	}
	return prompt + b.String(), names, nil
}

// echo is the person's prompt as the transcript shows it: long ones cut.
func echo(s string, width int) string {
	lines := strings.Split(s, "\n")
	const most = 6
	var b strings.Builder
	for i, l := range lines {
		if i == most {
			fmt.Fprintf(&b, "\n  … %d more lines (%d chars in all)", len(lines)-most, len([]rune(s)))
			break
		}
		p := "  "
		if i == 0 {
			p = "› "
		}
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(cut(p+l, width))
	}
	return b.String()
}

// tail is the last n lines of s wrapped at width.
func tail(s string, width, n int) string {
	lines := strings.Split(ansi.Wrap(strings.TrimRight(s, "\n"), max(width, 10), ""), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// wrap breaks s into lines of at most width cells, keeping every
// character (width 0: no limit).
func wrap(s string, width int) string {
	if width <= 0 {
		return s
	}
	return ansi.Hardwrap(s, width, true)
}

// cut shortens s to width cells (East-Asian wide characters count two).
func cut(s string, width int) string {
	if width <= 0 || ansi.StringWidth(s) <= width {
		return s
	}
	return ansi.Truncate(s, width, "…")
}
