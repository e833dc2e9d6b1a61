package tui

import (
	"regexp"
	"strings"
	"sync"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// renderMarkdown renders an answer for the terminal: headings, emphasis,
// inline code, fenced code, lists and quotes, wrapped to the width; plain
// text under NO_COLOR, TERM=dumb or a narrow terminal.
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
	for _, l := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(l)
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

var (
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

// inline styles a line's code spans, strong and emphasised text.
func inline(s string) string {
	s = codeSpan().ReplaceAllStringFunc(s, func(m string) string { return mdCode.Render(m[1 : len(m)-1]) })
	s = strong().ReplaceAllStringFunc(s, func(m string) string { return mdStrong.Render(m[2 : len(m)-2]) })
	return emphasis().ReplaceAllStringFunc(s, func(m string) string {
		sm := emphasis().FindStringSubmatch(m)
		return sm[1] + mdEmph.Render(sm[2])
	})
}
