package kb

import (
	"fmt"
	"strings"
)

// section is a heading and the content under it, up to the next heading of
// the same or a higher level. Offsets are bytes into the body.
type section struct {
	level   int
	text    string
	headEnd int // end of the heading line (before its newline)
	end     int // end of the section's content
}

func sections(body string) []section {
	lines := splitLines(body)
	var out []section
	for i, l := range lines {
		if l.inFence {
			continue
		}
		level, text, ok := atxHeading(l.text)
		if !ok {
			continue
		}
		sec := section{level: level, text: text, headEnd: l.end, end: len(body)}
		for _, m := range lines[i+1:] {
			if m.inFence {
				continue
			}
			if lv, _, ok := atxHeading(m.text); ok && lv <= level {
				sec.end = m.start
				break
			}
		}
		out = append(out, sec)
	}
	return out
}

// findSection picks the section whose heading words are the query's words,
// else the single one whose heading contains them all.
func findSection(body, query string) (section, error) {
	want := words(query)
	if len(want) == 0 {
		return section{}, invalidf("section %q has no words; pass the words of a heading", query)
	}
	all := sections(body)
	var exact, partial []section
	for _, s := range all {
		have := words(s.text)
		if strings.Join(have, " ") == strings.Join(want, " ") {
			exact = append(exact, s)
		} else if containsAll(have, want) {
			partial = append(partial, s)
		}
	}
	for _, cands := range [][]section{exact, partial} {
		switch len(cands) {
		case 0:
			continue
		case 1:
			return cands[0], nil
		default:
			return section{}, invalidf("section %q matches %d headings (%s); pass more of the heading's words", query, len(cands), headingList(cands))
		}
	}
	if len(all) == 0 {
		return section{}, invalidf("the note has no headings, so no section %q; use append, findReplace or replace", query)
	}
	return section{}, invalidf("no heading matches %q; the headings are: %s", query, headingList(all))
}

func containsAll(have, want []string) bool {
	for _, w := range want {
		found := false
		for _, h := range have {
			if h == w {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func headingList(ss []section) string {
	var parts []string
	for _, s := range ss {
		parts = append(parts, fmt.Sprintf("%q", strings.Repeat("#", s.level)+" "+s.text))
	}
	return strings.Join(parts, ", ")
}

// replaceSectionContent puts content under s's heading, keeping the heading.
// A first line repeating the heading is dropped.
func replaceSectionContent(body string, s section, content string) string {
	content = strings.Trim(content, "\n")
	if first, rest, _ := strings.Cut(content, "\n"); first != "" {
		if lv, text, ok := atxHeading(first); ok && lv == s.level && titleKey(text) == titleKey(s.text) {
			content = strings.Trim(rest, "\n")
		}
	}
	var b strings.Builder
	b.WriteString(body[:s.headEnd])
	b.WriteString("\n")
	if content != "" {
		b.WriteString("\n")
		b.WriteString(content)
		b.WriteString("\n")
	}
	if s.end < len(body) {
		b.WriteString("\n")
		b.WriteString(body[s.end:])
	}
	return b.String()
}
