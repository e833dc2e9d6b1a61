package markdown

import (
	"html"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// HTML renders src: CommonMark with GitHub's extensions, raw HTML left
// out, text escaped, links that could run code emptied.
func HTML(src string) string {
	p := &mdParser{refs: map[string]mdRef{}}
	src = strings.ReplaceAll(strings.ReplaceAll(src, "\r\n", "\n"), "\r", "\n")
	src = strings.ReplaceAll(src, "\x00", "\uFFFD")
	lines := strings.Split(strings.TrimSuffix(src, "\n"), "\n")
	if src == "" {
		lines = nil
	}
	blocks := p.blocks(lines)
	var b strings.Builder
	for _, bl := range blocks {
		p.render(&b, bl, false)
	}
	return b.String()
}

type mdKind int

const (
	mdPara mdKind = iota
	mdHeading
	mdHR
	mdCode
	mdQuote
	mdList
	mdItem
	mdHTML
	mdTable
)

type mdBlock struct {
	kind mdKind
	// blankBefore: a blank line separates it from the block before.
	blankBefore bool
	level       int    // heading level
	text        string // inline source (paragraph, heading), code content
	lang        string // a fence's language
	children    []*mdBlock
	// Lists and items.
	ordered bool
	start   int
	tight   bool
	task    int // an item's box: 0 none, 1 open, 2 checked
	// Tables: the header, the alignments, the rows.
	head  []string
	align []string
	rows  [][]string
}

type mdRef struct{ dest, title string }

type mdParser struct {
	refs  map[string]mdRef
	depth int // of nested containers
}

// maxDepth bounds nested block quotes and lists; deeper ones are text.
const maxDepth = 64

// indentOf is the columns of s's leading blanks (a tab to the next stop
// of 4) and where its content starts.
func indentOf(s string) (cols, at int) {
	for at < len(s) {
		switch s[at] {
		case ' ':
			cols++
		case '\t':
			cols += 4 - cols%4
		default:
			return cols, at
		}
		at++
	}
	return cols, at
}

// dedent removes n columns of leading blanks from s (a tab that spans the
// cut leaves its remaining columns as spaces).
func dedent(s string, n int) string {
	cols := 0
	for i := 0; i < len(s); i++ {
		if cols >= n {
			return s[i:]
		}
		switch s[i] {
		case ' ':
			cols++
		case '\t':
			w := 4 - cols%4
			if cols+w > n {
				return strings.Repeat(" ", cols+w-n) + s[i+1:]
			}
			cols += w
		default:
			return s[i:]
		}
	}
	return ""
}

func isBlank(s string) bool { return strings.TrimLeft(s, " \t") == "" }

// fenceOf reports a code fence opening s: its character, length, indent
// and info string.
func fenceOf(s string) (c byte, n, indent int, info string, ok bool) {
	indent, at := indentOf(s)
	if indent > 3 || at >= len(s) || (s[at] != '`' && s[at] != '~') {
		return 0, 0, 0, "", false
	}
	c = s[at]
	for at+n < len(s) && s[at+n] == c {
		n++
	}
	if n < 3 {
		return 0, 0, 0, "", false
	}
	info = strings.TrimSpace(s[at+n:])
	if c == '`' && strings.Contains(info, "`") {
		return 0, 0, 0, "", false
	}
	return c, n, indent, info, true
}

func isHR(s string) bool {
	indent, at := indentOf(s)
	if indent > 3 || at >= len(s) {
		return false
	}
	c := s[at]
	if c != '-' && c != '*' && c != '_' {
		return false
	}
	n := 0
	for _, r := range s[at:] {
		switch {
		case byte(r) == c:
			n++
		case r == ' ' || r == '\t':
		default:
			return false
		}
	}
	return n >= 3
}

// atxOf reports an ATX heading: its level and text.
func atxOf(s string) (int, string, bool) {
	indent, at := indentOf(s)
	if indent > 3 {
		return 0, "", false
	}
	s = s[at:]
	n := 0
	for n < len(s) && s[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || (n < len(s) && s[n] != ' ' && s[n] != '\t') {
		return 0, "", false
	}
	text := strings.TrimSpace(s[n:])
	// A closing run of #s preceded by a blank (or the whole text) goes.
	if t := strings.TrimRight(text, "#"); t != text {
		if t == "" {
			text = ""
		} else if e := t[len(t)-1]; e == ' ' || e == '\t' {
			text = strings.TrimSpace(t)
		}
	}
	return n, text, true
}

// setextOf reports a setext underline: 1 for =, 2 for -.
func setextOf(s string) int {
	indent, at := indentOf(s)
	if indent > 3 || at >= len(s) {
		return 0
	}
	t := strings.TrimRight(s[at:], " \t")
	if strings.Trim(t, "=") == "" {
		return 1
	}
	if strings.Trim(t, "-") == "" {
		return 2
	}
	return 0
}

// itemOf reports a list item marker: bullet char or ordered delimiter,
// the number, and the columns before the item's content.
type marker struct {
	ordered bool
	ch      byte // - + * or . )
	num     int
	width   int  // columns from the line's start to the content
	empty   bool // nothing after the marker
	end     int  // the byte after the marker
}

func itemOf(s string) (marker, bool) {
	indent, at := indentOf(s)
	if indent > 3 || at >= len(s) {
		return marker{}, false
	}
	m := marker{}
	rest := s[at:]
	switch c := rest[0]; {
	case c == '-' || c == '+' || c == '*':
		m.ch = c
		rest = rest[1:]
	case c >= '0' && c <= '9':
		n := 0
		for n < len(rest) && n < 10 && rest[n] >= '0' && rest[n] <= '9' {
			n++
		}
		if n > 9 || n >= len(rest) || (rest[n] != '.' && rest[n] != ')') {
			return marker{}, false
		}
		m.ordered, m.ch = true, rest[n]
		m.num, _ = strconv.Atoi(rest[:n])
		rest = rest[n+1:]
	default:
		return marker{}, false
	}
	markerEnd := len(s) - len(rest)
	m.end = markerEnd
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return marker{}, false
	}
	startCols := columnsTo(s, markerEnd)
	if isBlank(rest) {
		m.empty = true
		m.width = startCols + 1
		return m, true
	}
	spaces := columnsTo(s, markerEnd+countBlanks(rest)) - startCols
	if spaces > 4 {
		spaces = 1
	}
	m.width = startCols + spaces
	return m, true
}

func countBlanks(s string) int {
	n := 0
	for n < len(s) && (s[n] == ' ' || s[n] == '\t') {
		n++
	}
	return n
}

// columnsTo is the column byte i of s is at.
func columnsTo(s string, i int) int {
	cols := 0
	for j := 0; j < i && j < len(s); j++ {
		if s[j] == '\t' {
			cols += 4 - cols%4
		} else {
			cols++
		}
	}
	return cols
}

func quoteOf(s string) (string, bool) {
	indent, at := indentOf(s)
	if indent > 3 || at >= len(s) || s[at] != '>' {
		return "", false
	}
	rest := s[at+1:]
	if rest != "" && rest[0] == ' ' {
		rest = rest[1:]
	} else if rest != "" && rest[0] == '\t' {
		rest = dedent(strings.Repeat(" ", columnsTo(s, at+1)%4)+rest, 1)
	}
	return rest, true
}

// htmlBlockOf reports a raw HTML block and the line that ends it (end
// returns true for the last line; nil: a blank line ends it). Kinds 6 and
// 7 of CommonMark; 7 cannot interrupt a paragraph.
func htmlBlockOf(s string, inPara bool) (end func(string) bool, ok bool) {
	indent, at := indentOf(s)
	if indent > 3 || at >= len(s) || s[at] != '<' {
		return nil, false
	}
	t := s[at:]
	lower := strings.ToLower(t)
	for _, tag := range []string{"<script", "<pre", "<style", "<textarea"} {
		if strings.HasPrefix(lower, tag) && (len(t) == len(tag) || strings.ContainsRune(" \t>", rune(t[len(tag)]))) {
			closer := "</" + tag[1:] + ">"
			return func(l string) bool { return strings.Contains(strings.ToLower(l), closer) }, true
		}
	}
	switch {
	case strings.HasPrefix(t, "<!--"):
		return func(l string) bool { return strings.Contains(l, "-->") }, true
	case strings.HasPrefix(t, "<?"):
		return func(l string) bool { return strings.Contains(l, "?>") }, true
	case strings.HasPrefix(t, "<![CDATA["):
		return func(l string) bool { return strings.Contains(l, "]]>") }, true
	case len(t) > 2 && t[1] == '!' && isASCIILetter(t[2]):
		return func(l string) bool { return strings.Contains(l, ">") }, true
	}
	name := strings.TrimPrefix(t[1:], "/")
	n := 0
	for n < len(name) && (isASCIILetter(name[n]) || (n > 0 && (name[n] >= '0' && name[n] <= '9' || name[n] == '-'))) {
		n++
	}
	if n == 0 {
		return nil, false
	}
	after := name[n:]
	if blockTags()[strings.ToLower(name[:n])] && (after == "" || after[0] == ' ' || after[0] == '\t' || after[0] == '>' || strings.HasPrefix(after, "/>")) {
		return nil, true
	}
	if inPara {
		return nil, false
	}
	// Kind 7: a whole open or closing tag alone on the line.
	if l := inlineHTMLLen(strings.TrimRight(t, " \t")); l > 0 && l == len(strings.TrimRight(t, " \t")) && !strings.HasPrefix(t, "<!") && !strings.HasPrefix(t, "<?") {
		return nil, true
	}
	return nil, false
}

// blockTags are the tags that open an HTML block (CommonMark's kind 6),
// built on first use: the package initialises nothing.
func blockTags() map[string]bool {
	blockTagsOnce.Do(func() {
		blockTagsMap = map[string]bool{}
		for _, t := range strings.Fields(`address article aside base basefont blockquote body caption center col colgroup dd details dialog dir div dl dt
			fieldset figcaption figure footer form frame frameset h1 h2 h3 h4 h5 h6 head header hr html iframe legend li link main menu menuitem
			nav noframes ol optgroup option p param search section summary table tbody td tfoot th thead title tr track ul`) {
			blockTagsMap[t] = true
		}
	})
	return blockTagsMap
}

var (
	blockTagsOnce sync.Once
	blockTagsMap  map[string]bool
)

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// startsBlock reports whether s, after a paragraph line, starts a block
// that interrupts the paragraph.
func startsBlock(s string) bool {
	if _, _, _, _, ok := fenceOf(s); ok {
		return true
	}
	if _, _, ok := atxOf(s); ok {
		return true
	}
	if _, ok := quoteOf(s); ok {
		return true
	}
	if isHR(s) {
		return true
	}
	if m, ok := itemOf(s); ok && !m.empty && (!m.ordered || m.num == 1) {
		return true
	}
	_, ok := htmlBlockOf(s, true)
	return ok
}

// blocks parses lines into blocks.
func (p *mdParser) blocks(lines []string) []*mdBlock {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		return []*mdBlock{{kind: mdPara, text: strings.Join(lines, "\n")}}
	}
	var out []*mdBlock
	blank := false
	add := func(b *mdBlock) {
		b.blankBefore = blank && len(out) > 0
		blank = false
		out = append(out, b)
	}
	for i := 0; i < len(lines); {
		line := lines[i]
		if isBlank(line) {
			blank = true
			i++
			continue
		}
		indent, _ := indentOf(line)
		if indent >= 4 {
			j := i
			var code []string
			for j < len(lines) && (isBlank(lines[j]) || columnsOf(lines[j]) >= 4) {
				code = append(code, dedent(lines[j], 4))
				j++
			}
			for len(code) > 0 && isBlank(code[len(code)-1]) {
				code = code[:len(code)-1]
				j--
			}
			add(&mdBlock{kind: mdCode, text: strings.Join(code, "\n") + "\n"})
			i = j
			continue
		}
		if c, n, ind, info, ok := fenceOf(line); ok {
			var code []string
			j := i + 1
			for ; j < len(lines); j++ {
				if cc, nn, _, rest, ok := fenceOf(lines[j]); ok && cc == c && nn >= n && rest == "" {
					j++
					break
				}
				code = append(code, dedent(lines[j], ind))
			}
			text := strings.Join(code, "\n")
			if len(code) > 0 {
				text += "\n"
			}
			lang, _, _ := strings.Cut(info, " ")
			add(&mdBlock{kind: mdCode, text: text, lang: unescapeMD(lang)})
			i = j
			continue
		}
		if lvl, text, ok := atxOf(line); ok {
			add(&mdBlock{kind: mdHeading, level: lvl, text: text})
			i++
			continue
		}
		if isHR(line) {
			add(&mdBlock{kind: mdHR})
			i++
			continue
		}
		if _, ok := quoteOf(line); ok {
			var inner []string
			j := i
			lazyOK := false
			for j < len(lines) {
				if rest, ok := quoteOf(lines[j]); ok {
					inner = append(inner, rest)
					lazyOK = endsInParagraph(rest)
					j++
					continue
				}
				if lazyOK && !isBlank(lines[j]) && !startsBlock(lines[j]) {
					inner = append(inner, lines[j])
					j++
					continue
				}
				break
			}
			add(&mdBlock{kind: mdQuote, children: p.blocks(inner)})
			i = j
			continue
		}
		if m, ok := itemOf(line); ok {
			var list *mdBlock
			list, i = p.list(lines, i, m)
			add(list)
			continue
		}
		if end, ok := htmlBlockOf(line, false); ok {
			j := i
			for j < len(lines) {
				if end == nil {
					if isBlank(lines[j]) {
						break
					}
				} else if end(lines[j]) {
					j++
					break
				}
				j++
			}
			add(&mdBlock{kind: mdHTML})
			i = j
			continue
		}
		// A paragraph (a setext heading, a table), after any link
		// reference definitions at its start.
		j := i + 1
		para := []string{strings.TrimLeft(line, " \t")}
		level := 0
		for j < len(lines) {
			l := lines[j]
			if isBlank(l) {
				break
			}
			if lv := setextOf(l); lv > 0 && columnsOf(l) < 4 {
				level = lv
				j++
				break
			}
			if startsBlock(l) {
				break
			}
			para = append(para, strings.TrimLeft(l, " \t"))
			j++
		}
		para = p.definitions(para)
		if len(para) == 0 {
			if level > 0 { // an underline with no text left is a paragraph of its own
				para = []string{strings.TrimSpace(lines[j-1])}
				level = 0
			} else {
				i = j
				continue
			}
		}
		if level == 0 && len(para) >= 2 {
			if t, rest := tableOf(para); t != nil {
				if len(rest) > 0 {
					add(&mdBlock{kind: mdPara, text: strings.Join(rest, "\n")})
				}
				add(t)
				i = j
				continue
			}
		}
		text := strings.TrimRight(strings.Join(para, "\n"), " \t")
		if level > 0 {
			add(&mdBlock{kind: mdHeading, level: level, text: text})
		} else {
			add(&mdBlock{kind: mdPara, text: text})
		}
		i = j
	}
	return out
}

func columnsOf(s string) int { c, _ := indentOf(s); return c }

// endsInParagraph reports whether a container's line, inside its nested
// quotes and list items, is paragraph text (which a lazy line continues).
func endsInParagraph(s string) bool {
	for range maxDepth {
		if rest, ok := quoteOf(s); ok {
			s = rest
			continue
		}
		if m, ok := itemOf(s); ok && !m.empty && !isHR(s) {
			s = s[m.end:]
			continue
		}
		break
	}
	return !isBlank(s) && columnsOf(s) < 4 && !startsBlock(s) && setextOf(s) == 0
}

// list parses the items of one list that starts at lines[i] with m.
func (p *mdParser) list(lines []string, i int, m marker) (*mdBlock, int) {
	list := &mdBlock{kind: mdList, ordered: m.ordered, start: m.num, tight: true}
	blankBetween := false
	for i < len(lines) {
		mk, ok := itemOf(lines[i])
		if !ok || mk.ordered != m.ordered || mk.ch != m.ch || isHR(lines[i]) {
			break
		}
		if blankBetween {
			list.tight = false
		}
		var inner []string
		l0 := lines[i]
		first := dedent(strings.Repeat(" ", columnsTo(l0, mk.end))+l0[mk.end:], mk.width)
		if mk.empty {
			first = ""
		}
		inner = append(inner, first)
		j := i + 1
		lastBlank := false
		for j < len(lines) {
			l := lines[j]
			if isBlank(l) {
				if mk.empty && len(inner) == 1 && inner[0] == "" {
					// An item that starts blank and meets a blank line
					// is empty: the blank lines follow it.
					for j < len(lines) && isBlank(lines[j]) {
						inner = append(inner, "")
						j++
					}
					break
				}
				inner = append(inner, "")
				lastBlank = true
				j++
				continue
			}
			if columnsOf(l) >= mk.width {
				inner = append(inner, dedent(l, mk.width))
				lastBlank = false
				j++
				continue
			}
			if _, isItem := itemOf(l); isItem {
				break // the next item, or another list
			}
			if !lastBlank && !startsBlock(l) && len(inner) > 0 && lazyParagraph(inner) {
				inner = append(inner, l)
				j++
				continue
			}
			break
		}
		// Trailing blank lines belong between items, not to this one.
		n := len(inner)
		for n > 1 && inner[n-1] == "" {
			n--
		}
		trailing := n < len(inner)
		firstTrailing := j - (len(inner) - n)
		inner = inner[:n]
		item := &mdBlock{kind: mdItem}
		if t, rest, ok := taskOf(inner); ok {
			item.task, inner = t, rest
		}
		item.children = p.blocks(inner)
		for _, c := range item.children {
			if c.blankBefore {
				list.tight = false
			}
		}
		list.children = append(list.children, item)
		i = j
		blankBetween = trailing
		if trailing {
			if i == len(lines) {
				i = firstTrailing // the blank lines are the parent's
				break
			}
			if mk2, ok := itemOf(lines[i]); !ok || mk2.ordered != m.ordered || mk2.ch != m.ch || isHR(lines[i]) {
				i = firstTrailing
				break
			}
		}
	}
	return list, i
}

// lazyParagraph reports whether the item's lines end in paragraph text,
// which a lazy continuation line may extend.
func lazyParagraph(inner []string) bool {
	last := inner[len(inner)-1]
	if isBlank(last) || columnsOf(last) >= 4 {
		return false
	}
	inFence := false
	for _, l := range inner {
		if _, _, _, _, ok := fenceOf(l); ok {
			inFence = !inFence
		}
	}
	return !inFence && !isHR(last)
}

// taskOf reads a task item's box ("[ ] ", "[x] ") off its first line.
func taskOf(inner []string) (int, []string, bool) {
	if len(inner) == 0 {
		return 0, inner, false
	}
	l := inner[0]
	if len(l) < 4 || l[0] != '[' || l[2] != ']' || (l[3] != ' ' && l[3] != '\t') {
		return 0, inner, false
	}
	t := 0
	switch l[1] {
	case ' ':
		t = 1
	case 'x', 'X':
		t = 2
	default:
		return 0, inner, false
	}
	rest := append([]string{strings.TrimLeft(l[4:], " \t")}, inner[1:]...)
	if isBlank(rest[0]) && len(rest) == 1 {
		return 0, inner, false
	}
	return t, rest, true
}

// definitions takes link reference definitions off the start of a
// paragraph's lines.
func (p *mdParser) definitions(para []string) []string {
	for len(para) > 0 {
		// A definition spans a few lines at most: parse a window, so a
		// long run of them costs linear time.
		s := strings.Join(para[:min(len(para), 8)], "\n")
		n, label, ref := parseDefinition(s)
		if n == 0 {
			return para
		}
		key := normLabel(label)
		if _, dup := p.refs[key]; !dup {
			p.refs[key] = ref
		}
		consumed := strings.Count(s[:n], "\n")
		if n < len(s) {
			consumed++ // the newline that ended it
		} else if len(para) <= 8 {
			return nil
		} else {
			consumed++
		}
		para = para[consumed:]
	}
	return para
}

// parseDefinition reads "[label]: dest 'title'" at the start of s and
// returns how many bytes it took (ending at a line's end).
func parseDefinition(s string) (int, string, mdRef) {
	if !strings.HasPrefix(s, "[") {
		return 0, "", mdRef{}
	}
	end, label := linkLabel(s, 0)
	if end < 0 || end >= len(s) || s[end] != ':' || strings.TrimSpace(label) == "" {
		return 0, "", mdRef{}
	}
	i := skipSpaceNL(s, end+1)
	dest, j, ok := linkDest(s, i)
	if !ok || (j == i && !strings.HasPrefix(s[i:], "<>")) {
		return 0, "", mdRef{}
	}
	afterDest := j
	k := skipSpaceNL(s, j)
	if title, t, ok := linkTitle(s, k); ok && k > j {
		e := skipSpaces(s, t)
		if e == len(s) || s[e] == '\n' {
			return e, label, mdRef{dest: dest, title: title}
		}
	}
	e := skipSpaces(s, afterDest)
	if e == len(s) || s[e] == '\n' {
		return e, label, mdRef{dest: dest}
	}
	return 0, "", mdRef{}
}

func skipSpaces(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

func skipSpaceNL(s string, i int) int {
	nl := false
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || (s[i] == '\n' && !nl)) {
		if s[i] == '\n' {
			nl = true
		}
		i++
	}
	return i
}

// normLabel matches reference labels: case folded, blanks collapsed.
func normLabel(s string) string {
	return strings.Join(strings.Fields(strings.Map(unicode.SimpleFold, strings.ToLower(s))), " ")
}

// tableOf reads a GFM table from a paragraph's lines: a header row, the
// delimiter row, then rows. Lines before the header stay a paragraph.
func tableOf(para []string) (*mdBlock, []string) {
	for h := 0; h+1 < len(para); h++ {
		align, ok := delimiterRow(para[h+1])
		if !ok || !strings.Contains(para[h], "|") && !strings.Contains(para[h+1], "|") {
			continue
		}
		head := splitRow(para[h])
		if len(head) != len(align) {
			continue
		}
		t := &mdBlock{kind: mdTable, head: head, align: align}
		for _, l := range para[h+2:] {
			row := splitRow(l)
			for len(row) < len(align) {
				row = append(row, "")
			}
			t.rows = append(t.rows, row[:len(align)])
		}
		return t, para[:h]
	}
	return nil, para
}

func delimiterRow(s string) ([]string, bool) {
	cells := splitRow(s)
	if len(cells) == 0 {
		return nil, false
	}
	var align []string
	for _, c := range cells {
		c = strings.TrimSpace(c)
		left, right := strings.HasPrefix(c, ":"), strings.HasSuffix(c, ":")
		body := strings.Trim(c, ":")
		if body == "" || strings.Trim(body, "-") != "" || (len(c) > 1 && strings.Count(c, ":") > 2) {
			return nil, false
		}
		switch {
		case left && right:
			align = append(align, "center")
		case left:
			align = append(align, "left")
		case right:
			align = append(align, "right")
		default:
			align = append(align, "")
		}
	}
	return align, true
}

// splitRow splits a table row at its unescaped pipes.
func splitRow(s string) []string {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(s, "|")
	if strings.HasSuffix(s, "|") && !strings.HasSuffix(s, `\|`) {
		s = s[:len(s)-1]
	}
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == '|':
			cur.WriteByte('|')
			i++
		case s[i] == '|':
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(s[i])
		}
	}
	return append(cells, strings.TrimSpace(cur.String()))
}

// render writes b; tight drops the <p> of an item's paragraphs.
func (p *mdParser) render(w *strings.Builder, b *mdBlock, tight bool) {
	switch b.kind {
	case mdPara:
		if tight {
			w.WriteString(p.inline(b.text))
			return
		}
		w.WriteString("<p>" + p.inline(b.text) + "</p>\n")
	case mdHeading:
		h := strconv.Itoa(b.level)
		w.WriteString("<h" + h + ">" + p.inline(b.text) + "</h" + h + ">\n")
	case mdHR:
		w.WriteString("<hr>\n")
	case mdCode:
		w.WriteString("<pre><code")
		if b.lang != "" {
			w.WriteString(` class="language-` + escMD(b.lang) + `"`)
		}
		w.WriteString(">" + escMD(b.text) + "</code></pre>\n")
	case mdHTML:
		w.WriteString("<!-- raw HTML omitted -->\n")
	case mdQuote:
		w.WriteString("<blockquote>\n")
		for _, c := range b.children {
			p.render(w, c, false)
		}
		w.WriteString("</blockquote>\n")
	case mdList:
		tag := "ul"
		if b.ordered {
			tag = "ol"
		}
		w.WriteString("<" + tag)
		if b.ordered && b.start != 1 {
			w.WriteString(` start="` + strconv.Itoa(b.start) + `"`)
		}
		w.WriteString(">\n")
		for _, it := range b.children {
			w.WriteString("<li>")
			switch it.task {
			case 1:
				w.WriteString(`<input disabled="" type="checkbox"> `)
			case 2:
				w.WriteString(`<input checked="" disabled="" type="checkbox"> `)
			}
			if len(it.children) > 0 && !(b.tight && it.children[0].kind == mdPara) {
				w.WriteString("\n")
			}
			for k, c := range it.children {
				p.render(w, c, b.tight)
				if b.tight && c.kind == mdPara && k+1 < len(it.children) {
					w.WriteString("\n")
				}
			}
			w.WriteString("</li>\n")
		}
		w.WriteString("</" + tag + ">\n")
	case mdTable:
		w.WriteString("<table>\n<thead>\n<tr>\n")
		for i, c := range b.head {
			w.WriteString("<th" + alignAttr(b.align[i]) + ">" + p.inline(c) + "</th>\n")
		}
		w.WriteString("</tr>\n</thead>\n")
		if len(b.rows) > 0 {
			w.WriteString("<tbody>\n")
			for _, r := range b.rows {
				w.WriteString("<tr>\n")
				for i, c := range r {
					w.WriteString("<td" + alignAttr(b.align[i]) + ">" + p.inline(c) + "</td>\n")
				}
				w.WriteString("</tr>\n")
			}
			w.WriteString("</tbody>\n")
		}
		w.WriteString("</table>\n")
	}
}

func alignAttr(a string) string {
	if a == "" {
		return ""
	}
	return ` align="` + a + `"`
}

// escMD escapes text as goldmark does: & < > and ".
func escMD(s string) string {
	if !strings.ContainsAny(s, `&<>"`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '"':
			b.WriteString("&quot;")
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// unescapeMD resolves backslash escapes and entity references.
func unescapeMD(s string) string {
	if !strings.ContainsAny(s, `\&`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && isASCIIPunct(s[i+1]) {
			b.WriteByte(s[i+1])
			i++
			continue
		}
		if s[i] == '&' {
			if n, text := entityAt(s, i); n > 0 {
				b.WriteString(text)
				i += n - 1
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isASCIIPunct(c byte) bool {
	return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
}

// entityAt decodes an entity or numeric reference at s[i] ('&'): its
// length and text, or 0.
func entityAt(s string, i int) (int, string) {
	j := i + 1
	if j < len(s) && s[j] == '#' {
		j++
		hex := j < len(s) && (s[j] == 'x' || s[j] == 'X')
		if hex {
			j++
		}
		k := j
		for k < len(s) && k-j < 8 && (s[k] >= '0' && s[k] <= '9' || hex && (s[k]|0x20 >= 'a' && s[k]|0x20 <= 'f')) {
			k++
		}
		if k == j || k >= len(s) || s[k] != ';' || (hex && k-j > 6) || (!hex && k-j > 7) {
			return 0, ""
		}
		base := 10
		if hex {
			base = 16
		}
		n, _ := strconv.ParseUint(s[j:k], base, 32)
		r := rune(n)
		if r == 0 || !utf8.ValidRune(r) {
			r = '\uFFFD'
		}
		return k + 1 - i, string(r)
	}
	k := j
	for k < len(s) && k-j < 32 && (isASCIILetter(s[k]) || k > j && s[k] >= '0' && s[k] <= '9') {
		k++
	}
	if k == j || k >= len(s) || s[k] != ';' {
		return 0, ""
	}
	ref := s[i : k+1]
	if text := html.UnescapeString(ref); text != ref {
		return k + 1 - i, text
	}
	return 0, ""
}
