package tui

import (
	"regexp"
	"strings"
	"sync"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// renderMarkdown renders an answer for the terminal: headings, emphasis,
// inline code, links, fenced code, lists, quotes and tables, wrapped to
// the width; plain text under NO_COLOR, TERM=dumb or a narrow terminal.
//
// glamour would do this and more, but it pulls in chroma, whose package
// initialisation (every lexer and style, at start-up) made each `yagent
// run` 11 MiB larger and 20% slower: a binary cannot load a package only
// in interactive mode.
func renderMarkdown(text string, width int, plain bool) string {
	text = strings.TrimRight(text, "\n")
	if plain || width < narrow {
		return text
	}
	var (
		out     []string
		inFence bool
	)
	wrap := max(width-2, 20)
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		trimmed := strings.TrimSpace(l)
		if !inFence && tableRow(trimmed) && i+1 < len(lines) && tableRule().MatchString(strings.TrimSpace(lines[i+1])) {
			end := i + 2
			for end < len(lines) && tableRow(strings.TrimSpace(lines[end])) {
				end++
			}
			if t, ok := renderTable(lines[i:end], wrap); ok {
				out = append(out, t...)
				i = end - 1
				continue
			}
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			inFence = !inFence
			continue
		}
		if inFence {
			out = append(out, mdCode.Render("  "+l))
			continue
		}
		switch {
		case strings.HasPrefix(trimmed, "#"):
			h := strings.TrimSpace(strings.TrimLeft(trimmed, "#"))
			out = append(out, mdHeading.Render(inline(h)))
		case strings.HasPrefix(trimmed, ">"):
			q := strings.TrimSpace(strings.TrimPrefix(trimmed, ">"))
			out = append(out, mdQuote.Render("│ ")+ansi.Wordwrap(inline(q), wrap-2, ""))
		case listItem().MatchString(l):
			sm := listItem().FindStringSubmatch(l)
			indent, mark, rest := sm[1], sm[2], sm[3]
			if mark == "-" || mark == "*" || mark == "+" {
				mark = "•"
			}
			lead := indent + mark + " "
			body := ansi.Wordwrap(inline(rest), max(wrap-ansi.StringWidth(lead), 10), "")
			out = append(out, lead+strings.ReplaceAll(body, "\n", "\n"+strings.Repeat(" ", ansi.StringWidth(lead))))
		default:
			out = append(out, ansi.Wordwrap(inline(l), wrap, ""))
		}
	}
	return strings.Join(out, "\n")
}

// tableRow reports a line of a Markdown table ("| a | b |").
func tableRow(trimmed string) bool { return strings.HasPrefix(trimmed, "|") }

// cells splits a table row into its cells, trimmed ("\|" is a pipe).
func cells(row string) []string {
	row = strings.TrimSpace(row)
	row = strings.TrimSuffix(strings.TrimPrefix(row, "|"), "|")
	row = strings.ReplaceAll(row, `\|`, "\x00")
	parts := strings.Split(row, "|")
	for i, p := range parts {
		parts[i] = strings.ReplaceAll(strings.TrimSpace(p), "\x00", "|")
	}
	return parts
}

// renderTable lays a Markdown table out in aligned columns (the header
// bold, a rule under it, each column aligned as its rule says); false when
// it would not fit in width cells, where the lines are shown as written.
func renderTable(rows []string, width int) ([]string, bool) {
	header, rule, body := cells(rows[0]), cells(rows[1]), rows[2:]
	n := len(header)
	grid := [][]string{header}
	for _, r := range body {
		c := cells(r)
		c = append(c, make([]string, max(n-len(c), 0))...)
		grid = append(grid, c[:n])
	}
	widths := make([]int, n)
	for _, row := range grid {
		for j, c := range row {
			row[j] = inline(c)
			widths[j] = max(widths[j], ansi.StringWidth(row[j]))
		}
	}
	total := 3 * (n - 1)
	for _, w := range widths {
		total += w
	}
	if total > width {
		return nil, false
	}
	var out []string
	for i, row := range grid {
		parts := make([]string, n)
		for j, c := range row {
			pad := widths[j] - ansi.StringWidth(c)
			switch align := rule[min(j, len(rule)-1)]; {
			case strings.HasPrefix(align, ":") && strings.HasSuffix(align, ":"):
				c = strings.Repeat(" ", pad/2) + c + strings.Repeat(" ", pad-pad/2)
			case strings.HasSuffix(align, ":"):
				c = strings.Repeat(" ", pad) + c
			default:
				c += strings.Repeat(" ", pad)
			}
			parts[j] = c
		}
		line := strings.TrimRight(strings.Join(parts, " │ "), " ")
		if i == 0 {
			line = mdStrong.Render(line)
		}
		out = append(out, line)
		if i == 0 {
			rules := make([]string, n)
			for j, w := range widths {
				rules[j] = strings.Repeat("─", w)
			}
			out = append(out, mdQuote.Render(strings.Join(rules, "─┼─")))
		}
	}
	return out, true
}

var (
	tableRule = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?$`) })
	link      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\[([^\]]+)\]\(([^)\s]+)\)|<(https?://[^>\s]+)>`) })
	mdLink    = lipgloss.NewStyle().Underline(true)
	listItem  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\s*)([-*+]|\d+[.)])\s+(.*)$`) })
	codeSpan  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("`([^`]+)`") })
	strong    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\*\*([^*]+)\*\*|__([^_]+)__`) })
	emphasis  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(^|[^*\w])\*([^*\s][^*]*)\*`) })
	mdHeading = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("5"))
	mdCode    = lipgloss.NewStyle().Foreground(lipgloss.Color("6"))
	mdQuote   = lipgloss.NewStyle().Faint(true)
	mdStrong  = lipgloss.NewStyle().Bold(true)
	mdEmph    = lipgloss.NewStyle().Italic(true)
)

// inline styles a line's code spans, links, strong and emphasised text:
// a link is its text underlined and its address after it, dimmed ("text
// (https://…)"; an address alone once).
func inline(s string) string {
	s = codeSpan().ReplaceAllStringFunc(s, func(m string) string { return mdCode.Render(m[1 : len(m)-1]) })
	s = link().ReplaceAllStringFunc(s, func(m string) string {
		sm := link().FindStringSubmatch(m)
		text, url := sm[1], sm[2]
		if sm[3] != "" || text == url {
			return mdLink.Render(sm[3] + url)
		}
		return mdLink.Render(text) + " " + mdQuote.Render("("+url+")")
	})
	s = strong().ReplaceAllStringFunc(s, func(m string) string { return mdStrong.Render(m[2 : len(m)-2]) })
	return emphasis().ReplaceAllStringFunc(s, func(m string) string {
		sm := emphasis().FindStringSubmatch(m)
		return sm[1] + mdEmph.Render(sm[2])
	})
}
