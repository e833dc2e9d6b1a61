package kb

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/yagent/yagent/internal/yamlstrict"
)

type markdownDoc struct {
	title, body, typ string
	tags, aliases    []string
	frontmatter      string   // JSON of the remaining front matter fields
	warnings         []string // what was set aside to import the file at all
}

// parseMarkdownFile splits YAML front matter from the body and takes the
// title from front matter, else the leading '# H1', else the file name. It
// fails only for files that are not text or too large: front matter that
// does not parse stays in the body as text, unusable tags and types are
// dropped, each with a warning.
func parseMarkdownFile(data []byte, stem string) (markdownDoc, error) {
	text := strings.TrimPrefix(strings.ReplaceAll(string(data), "\r\n", "\n"), "\ufeff")
	if err := validateBody(text); err != nil {
		return markdownDoc{}, err
	}
	var doc markdownDoc
	fm := map[string]any{}
	if rest, ok := strings.CutPrefix(text, "---\n"); ok {
		end := -1
		for _, closer := range []string{"\n---\n", "\n...\n"} {
			if i := strings.Index("\n"+rest+"\n", closer); i >= 0 && (end < 0 || i < end) {
				end = i
			}
		}
		switch {
		case end < 0:
			// A lone '---' opening the file is a thematic break, not front matter.
		default:
			if err := yaml.Unmarshal([]byte(rest[:max(end-1, 0)]), &fm); err != nil {
				doc.warnings = append(doc.warnings, fmt.Sprintf("front matter is not valid YAML (%v); kept as text in the body", firstLineOf(err.Error())))
				fm = map[string]any{}
			} else {
				text = rest[min(end+4, len(rest)):]
			}
			if fm == nil {
				fm = map[string]any{}
			}
		}
	}
	doc.title = stringField(fm, "title")
	doc.typ = stringField(fm, "type")
	doc.tags = listField(fm, "tags")
	doc.aliases = listField(fm, "aliases")
	for _, k := range []string{"title", "type", "tags", "aliases"} {
		delete(fm, k)
	}
	doc.body = text
	doc.title = cleanTitle(stripHeadingID(doc.title))
	if h1, rest, ok := splitTitle(text); ok && (doc.title == "" || titleKey(cleanTitle(h1)) == titleKey(doc.title)) {
		doc.title, doc.body = cleanTitle(h1), rest
	}
	if doc.title == "" {
		doc.title = cleanTitle(stem)
	}
	if err := validateTitle(doc.title); err != nil {
		return markdownDoc{}, err
	}
	var kept []string
	for _, t := range doc.tags {
		if one, err := normalizeTags([]string{t}); err != nil {
			doc.warnings = append(doc.warnings, "tag dropped: "+err.Error())
		} else {
			kept = append(kept, one...)
		}
	}
	if tags, err := normalizeTags(kept); err != nil {
		doc.warnings = append(doc.warnings, fmt.Sprintf("%d tags, only the first %d kept", len(kept), maxTags))
		doc.tags, _ = normalizeTags(kept[:maxTags])
	} else {
		doc.tags = tags
	}
	if typ, err := normalizeType(doc.typ); err != nil {
		doc.warnings = append(doc.warnings, "type dropped: "+err.Error())
		doc.typ = ""
	} else {
		doc.typ = typ
	}
	b, err := json.Marshal(yamlstrict.JSONValue(fm))
	if err != nil {
		doc.warnings = append(doc.warnings, fmt.Sprintf("front matter fields dropped: %v", err))
		b = []byte("{}")
	}
	doc.frontmatter = string(b)
	return doc, nil
}

func firstLineOf(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// cleanTitle makes text from a file name or heading usable as a title: the
// characters that would break [[links]] to it ('[', ']', '|') become '(',
// ')' and '-', control characters go, spaces collapse, and it is cut at the
// title length limit.
func cleanTitle(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '[':
			return '('
		case r == ']':
			return ')'
		case r == '|':
			return '-'
		case unicode.IsControl(r):
			return ' '
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > maxTitleRunes {
		s = strings.TrimSpace(string([]rune(s)[:maxTitleRunes]))
	}
	return s
}

func stringField(fm map[string]any, key string) string {
	if v, ok := fm[key]; ok && v != nil {
		return strings.TrimSpace(fmt.Sprint(v))
	}
	return ""
}

// listField reads a YAML list, or a string of comma- or space-separated items.
func listField(fm map[string]any, key string) []string {
	switch v := fm[key].(type) {
	case []any:
		var out []string
		for _, e := range v {
			if e != nil {
				out = append(out, strings.TrimSpace(fmt.Sprint(e)))
			}
		}
		return out
	case string:
		return strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' })
	}
	return nil
}
