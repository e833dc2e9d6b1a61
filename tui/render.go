package tui

import (
	"regexp"
	"strings"

	"charm.land/glamour/v2"
)

// renderMarkdown renders an answer for the terminal: Markdown with
// glamour, plain text under NO_COLOR, TERM=dumb or a narrow terminal.
func renderMarkdown(text string, width int, plain bool) string {
	text = strings.TrimRight(text, "\n")
	if plain || width < narrow {
		return text
	}
	r, err := glamour.NewTermRenderer(glamour.WithStandardStyle("dark"), glamour.WithWordWrap(width-4))
	if err != nil {
		return text
	}
	out, err := r.Render(text)
	if err != nil {
		return text
	}
	lines := strings.Split(strings.Trim(out, "\n"), "\n")
	for i, l := range lines {
		lines[i] = padding.ReplaceAllString(l, "")
	}
	return strings.Join(lines, "\n")
}

// padding is glamour's fill to the wrap width at a line's end: spaces,
// each wrapped in its own colour sequences.
var padding = regexp.MustCompile(`(?:(?:\x1b\[[0-9;]*m)* (?:\x1b\[[0-9;]*m)*)+$`)
