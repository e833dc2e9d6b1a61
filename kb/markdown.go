package kb

import (
	"path"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Heading is one Markdown heading of a note body.
type Heading struct {
	Level int    `json:"level" jsonschema:"1 for #, 2 for ## and so on"`
	Text  string `json:"text" jsonschema:"the heading text"`
}

// line is one line of a body with its byte offsets (end excludes the newline).
type line struct {
	start, end int
	text       string
	inFence    bool // inside (or delimiting) a fenced code block
}

func splitLines(body string) []line {
	var out []line
	fence := ""
	for start := 0; start <= len(body); {
		end := strings.IndexByte(body[start:], '\n')
		if end < 0 {
			end = len(body)
		} else {
			end += start
		}
		text := body[start:end]
		l := line{start: start, end: end, text: text, inFence: fence != ""}
		if f := fenceMarker(text); f != "" {
			switch {
			case fence == "":
				fence = f
				l.inFence = true
			case strings.HasPrefix(f, fence[:1]) && len(f) >= len(fence):
				fence = ""
				l.inFence = true
			}
		}
		out = append(out, l)
		if end == len(body) {
			break
		}
		start = end + 1
	}
	return out
}

// fenceMarker returns the ``` or ~~~ run opening a line, or "".
func fenceMarker(text string) string {
	t := strings.TrimLeft(text, " ")
	if len(text)-len(t) > 3 || len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return ""
	}
	n := 0
	for n < len(t) && t[n] == t[0] {
		n++
	}
	if n < 3 {
		return ""
	}
	return t[:n]
}

// atxHeading parses "## Text" into (2, "Text").
func atxHeading(text string) (int, string, bool) {
	t := strings.TrimLeft(text, " ")
	if len(text)-len(t) > 3 {
		return 0, "", false
	}
	level := 0
	for level < len(t) && t[level] == '#' {
		level++
	}
	if level == 0 || level > 6 || (level < len(t) && t[level] != ' ' && t[level] != '\t') {
		return 0, "", false
	}
	h := strings.TrimSpace(t[level:])
	h = strings.TrimSpace(strings.TrimRight(h, "#"))
	return level, stripHeadingID(h), true
}

// stripHeadingID drops a trailing attribute block that gives a heading its
// anchor, as VitePress, Pandoc and kramdown write it: "Setup {#setup}".
func stripHeadingID(h string) string {
	if !strings.HasSuffix(h, "}") {
		return h
	}
	i := strings.LastIndex(h, "{")
	if i < 0 || !strings.HasPrefix(h[i:], "{#") || strings.ContainsAny(h[i+1:len(h)-1], "{}") {
		return h
	}
	if rest := strings.TrimSpace(h[:i]); rest != "" {
		return rest
	}
	return h
}

// headings lists the body's headings outside code blocks.
func headings(body string) []Heading {
	var out []Heading
	for _, l := range splitLines(body) {
		if l.inFence {
			continue
		}
		if level, text, ok := atxHeading(l.text); ok {
			out = append(out, Heading{Level: level, Text: text})
		}
	}
	return out
}

// splitTitle takes the leading "# Title" line off a body. ok is false when
// the first non-blank line is not a level-1 heading.
func splitTitle(body string) (title, rest string, ok bool) {
	trimmed := strings.TrimLeft(body, " \t\r\n")
	first, after, _ := strings.Cut(trimmed, "\n")
	level, text, isHeading := atxHeading(strings.TrimRight(first, "\r"))
	if !isHeading || level != 1 || text == "" {
		return "", body, false
	}
	return text, strings.TrimLeft(after, "\r\n"), true
}

// words splits s into lower-case runs of letters and digits.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// bodyRefs are the references a body makes: [[links]] to notes and
// attachments it embeds or links (![[image.png]], [[report.pdf]]).
type bodyRefs struct {
	links       []string // link targets as written ("Note", "Folder/Note", "Note#Heading"), deduplicated by title key
	attachments []string // attachment names as written ("image.png", "assets/diagram.svg"), deduplicated
}

// parseBodyRefs reads Obsidian's link forms outside code: [[Note]],
// [[Folder/Note]], [[Note#Heading]], [[Note#^block]], [[Note|label]],
// [[Note\|label]] (the escaped pipe of a table cell), [[Note.md]] and
// embeds ![[Note]]. [[#Heading]] points into the same note and is no link;
// a target with a file extension other than .md is an attachment, not a
// note.
func parseBodyRefs(body string) bodyRefs {
	var out bodyRefs
	seen := map[string]bool{}
	for _, l := range splitLines(body) {
		if l.inFence {
			continue
		}
		text := blankInlineCode(l.text)
		for {
			i := strings.Index(text, "[[")
			if i < 0 {
				break
			}
			text = text[i+2:]
			j := strings.Index(text, "]]")
			if j < 0 {
				break
			}
			inner := text[:j]
			if k := strings.LastIndex(inner, "[["); k >= 0 {
				inner = inner[k+2:]
			}
			text = text[j+2:]
			target, attachment, ok := linkTarget(inner)
			if !ok {
				continue
			}
			if attachment {
				if !seen["\x00"+target] && len(out.attachments) < maxBodyLinks {
					seen["\x00"+target] = true
					out.attachments = append(out.attachments, target)
				}
				continue
			}
			if k := titleKey(target); !seen[k] && len(out.links) < maxBodyLinks {
				seen[k] = true
				out.links = append(out.links, target)
			}
		}
	}
	return out
}

// linkTarget reads the inside of [[…]]: the target before any '|' label,
// without a .md suffix, and whether it names an attachment.
func linkTarget(inner string) (target string, attachment, ok bool) {
	// In a table cell the label's pipe is escaped: [[Note\|label]].
	target, _, _ = strings.Cut(strings.ReplaceAll(inner, `\|`, "|"), "|")
	target = strings.TrimSpace(target)
	if target == "" || strings.HasPrefix(target, "#") || strings.ContainsAny(target, "[]\n") || !utf8.ValidString(target) {
		return "", false, false
	}
	name, fragment, hasFragment := strings.Cut(target, "#")
	name = strings.TrimSpace(name)
	if ext := strings.ToLower(path.Ext(name)); attachmentExts()[strings.TrimPrefix(ext, ".")] {
		return name, true, true
	}
	if trimmed, isMD := strings.CutSuffix(name, ".md"); isMD && trimmed != "" {
		name = trimmed
	}
	if hasFragment {
		return name + "#" + fragment, false, true
	}
	return name, false, true
}

// attachmentExts are the file types Obsidian embeds or opens besides notes.
var attachmentExts = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, e := range strings.Fields(`avif bmp gif heic ico jpeg jpg png svg tif tiff webp
		3gp flac m4a mp3 ogg wav mkv mov mp4 ogv webm avi
		pdf canvas base excalidraw csv json txt zip docx xlsx pptx odt ods odp epub html htm`) {
		m[e] = true
	}
	return m
})

const maxBodyLinks = 200

// blankInlineCode replaces `code spans` with spaces so links inside them
// are not taken for links.
func blankInlineCode(s string) string {
	if !strings.Contains(s, "`") {
		return s
	}
	b := []byte(s)
	for i := 0; i < len(b); {
		if b[i] != '`' {
			i++
			continue
		}
		n := 0
		for i+n < len(b) && b[i+n] == '`' {
			n++
		}
		closer := strings.Index(string(b[i+n:]), strings.Repeat("`", n))
		if closer < 0 {
			break
		}
		end := i + n + closer + n
		for k := i; k < end; k++ {
			b[k] = ' '
		}
		i = end
	}
	return string(b)
}
