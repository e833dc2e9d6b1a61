package markdown

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Inlines.

type inl struct {
	kind     byte // t text, c code, b <br>, s soft break, h raw html, e em, S strong, d del, a link, i image, raw markup
	text     string
	dest     string
	title    string
	children []*inl
}

// delim is an emphasis delimiter run in the inline list.
type delim struct {
	node              *inl
	ch                byte
	n, orig           int
	canOpen, canClose bool
	active            bool
}

type inlineParser struct {
	p      *mdParser
	s      string
	nodes  []*inl
	delims []*delim
	// brackets are the open [ and ![ not yet closed: their node index.
	brackets []bracket
	text     strings.Builder
}

type bracket struct {
	node    int // index in nodes of the [ text node
	image   bool
	active  bool
	delims  int // len(delims) when it opened
	textPos int // where its label starts in s
}

func (p *mdParser) inline(s string) string {
	ip := &inlineParser{p: p, s: s}
	ip.parse()
	var b strings.Builder
	renderInlines(&b, ip.nodes)
	return b.String()
}

func (ip *inlineParser) flush() {
	if ip.text.Len() > 0 {
		ip.nodes = append(ip.nodes, &inl{kind: 't', text: ip.text.String()})
		ip.text.Reset()
	}
}

func (ip *inlineParser) add(n *inl) {
	ip.flush()
	ip.nodes = append(ip.nodes, n)
}

// The autolink expressions, compiled on first use: nothing of this
// package runs at a process's start.
type autolinkRes struct{ www, url, email *regexp.Regexp }

var (
	autolinkOnce sync.Once
	autolinkRe   autolinkRes
)

func res() *autolinkRes {
	autolinkOnce.Do(func() {
		autolinkRe = autolinkRes{
			www:   regexp.MustCompile(`^www\.[-a-zA-Z0-9@:%._\+~#=]{1,256}\.[a-z]+(?:[/#?][-a-zA-Z0-9@:%_\+.~#!?&/=\(\);,'">\^{}\[\]` + "`" + `]*)?`),
			url:   regexp.MustCompile(`^(?:http|https|ftp)://[-a-zA-Z0-9@:%._\+~#=]{1,256}\.[a-z]+(?::\d+)?(?:[/#?][-a-zA-Z0-9@:%_+.~#$!?&/=\(\);,'">\^{}\[\]` + "`" + `]*)?`),
			email: regexp.MustCompile(`^[a-zA-Z0-9.!#$%&'*+/=?^_` + "`" + `{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)+`),
		}
	})
	return &autolinkRe
}

func (ip *inlineParser) parse() {
	s := ip.s
	for i := 0; i < len(s); {
		c := s[i]
		switch c {
		case '\\':
			if i+1 < len(s) && s[i+1] == '\n' {
				ip.add(&inl{kind: 'b'})
				i += 2
				i = skipSpaces(s, i)
				continue
			}
			if i+1 < len(s) && isASCIIPunct(s[i+1]) {
				ip.text.WriteByte(s[i+1])
				i += 2
				continue
			}
			ip.text.WriteByte('\\')
			i++
		case '`':
			n := 0
			for i+n < len(s) && s[i+n] == '`' {
				n++
			}
			if end := closingTicks(s, i+n, n); end >= 0 {
				code := strings.ReplaceAll(s[i+n:end], "\n", " ")
				if len(code) >= 2 && code[0] == ' ' && code[len(code)-1] == ' ' && strings.Trim(code, " ") != "" {
					code = code[1 : len(code)-1]
				}
				ip.add(&inl{kind: 'c', text: code})
				i = end + n
				continue
			}
			ip.text.WriteString(s[i : i+n])
			i += n
		case '&':
			if n, text := entityAt(s, i); n > 0 {
				ip.text.WriteString(text)
				i += n
				continue
			}
			ip.text.WriteByte('&')
			i++
		case '<':
			if n, dest, text := autolinkAt(s, i); n > 0 {
				ip.add(&inl{kind: 'a', dest: dest, children: []*inl{{kind: 't', text: text}}})
				i += n
				continue
			}
			if n := inlineHTMLLen(s[i:]); n > 0 {
				ip.add(&inl{kind: 'h'})
				i += n
				continue
			}
			ip.text.WriteByte('<')
			i++
		case '*', '_', '~':
			i = ip.delimRun(i)
		case '[':
			ip.flush()
			ip.nodes = append(ip.nodes, &inl{kind: 't', text: "["})
			ip.brackets = append(ip.brackets, bracket{node: len(ip.nodes) - 1, active: true, delims: len(ip.delims), textPos: i + 1})
			i++
		case '!':
			if i+1 < len(s) && s[i+1] == '[' {
				ip.flush()
				ip.nodes = append(ip.nodes, &inl{kind: 't', text: "!["})
				ip.brackets = append(ip.brackets, bracket{node: len(ip.nodes) - 1, image: true, active: true, delims: len(ip.delims), textPos: i + 2})
				i += 2
				continue
			}
			ip.text.WriteByte('!')
			i++
		case ']':
			i = ip.closeBracket(i)
		case '\n':
			t := ip.text.String()
			trimmed := strings.TrimRight(t, " ")
			hard := len(t)-len(trimmed) >= 2
			ip.text.Reset()
			ip.text.WriteString(trimmed)
			if hard {
				ip.add(&inl{kind: 'b'})
			} else {
				ip.add(&inl{kind: 's'})
			}
			i = skipSpaces(s, i+1)
		default:
			if n := ip.autolinkLiteral(i); n > 0 {
				i += n
				continue
			}
			_, size := utf8.DecodeRuneInString(s[i:])
			ip.text.WriteString(s[i : i+size])
			i += size
		}
	}
	ip.flush()
	ip.processEmphasis(0)
}

// autolinkLiteral links a bare URL, www. address or email at s[i] (GFM),
// where a word starts.
func (ip *inlineParser) autolinkLiteral(i int) int {
	s := ip.s
	c := s[i]
	if c != 'h' && c != 'f' && c != 'w' && !(c < utf8.RuneSelf && (isASCIILetter(c) || c >= '0' && c <= '9' || strings.IndexByte(".+-_", c) >= 0)) {
		return 0
	}
	if i > 0 {
		prev, _ := utf8.DecodeLastRuneInString(s[:i])
		if !unicode.IsSpace(prev) && !strings.ContainsRune("*_~(", prev) {
			return 0
		}
	}
	rest := s[i:]
	var m string
	prefix := ""
	switch {
	case (c == 'h' || c == 'f') && (strings.HasPrefix(rest, "http://") || strings.HasPrefix(rest, "https://") || strings.HasPrefix(rest, "ftp://")):
		m = res().url.FindString(rest)
	case c == 'w' && strings.HasPrefix(rest, "www."):
		m, prefix = res().www.FindString(rest), "http://"
	case strings.Contains(rest[:min(len(rest), 256)], "@"):
		m, prefix = res().email.FindString(rest), "mailto:"
		if m != "" && (strings.ContainsAny(m[len(m)-1:], "-_") || len(m) < len(rest) && strings.IndexByte("-_", rest[len(m)]) >= 0) {
			return 0
		}
	}
	if m == "" {
		return 0
	}
	if prefix != "mailto:" {
		m = trimURLTail(m)
	}
	if m == "" {
		return 0
	}
	ip.add(&inl{kind: 'a', dest: prefix + m, children: []*inl{{kind: 't', text: m}}})
	return len(m)
}

// trimURLTail drops trailing punctuation, an unmatched ')' and an entity
// reference from an autolinked URL, as GFM does.
func trimURLTail(m string) string {
	for m != "" {
		last := m[len(m)-1]
		switch {
		case strings.IndexByte("?!.,:*_~'\"", last) >= 0:
			m = m[:len(m)-1]
		case last == ')' && strings.Count(m, "(") < strings.Count(m, ")"):
			m = m[:len(m)-1]
		case last == ';':
			if k := strings.LastIndexByte(m, '&'); k >= 0 && isEntityName(m[k+1:len(m)-1]) {
				m = m[:k]
			} else {
				m = m[:len(m)-1]
			}
		default:
			return m
		}
	}
	return m
}

func isEntityName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isASCIILetter(s[i]) && !(s[i] >= '0' && s[i] <= '9') {
			return false
		}
	}
	return true
}

func closingTicks(s string, from, n int) int {
	for i := from; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] == '`' {
			j++
		}
		if j-i == n {
			return i
		}
		i = j
	}
	return -1
}

// autolinkAt reads <scheme:...> or <address@host> at s[i].
func autolinkAt(s string, i int) (n int, dest, text string) {
	end := strings.IndexByte(s[i:], '>')
	if end < 0 {
		return 0, "", ""
	}
	inner := s[i+1 : i+end]
	if strings.ContainsAny(inner, " <\n\t") || inner == "" {
		return 0, "", ""
	}
	if c := strings.IndexByte(inner, ':'); c >= 2 && c <= 32 && isASCIILetter(inner[0]) {
		ok := true
		for k := 1; k < c; k++ {
			ch := inner[k]
			if !(isASCIILetter(ch) || ch >= '0' && ch <= '9' || ch == '+' || ch == '.' || ch == '-') {
				ok = false
			}
		}
		for k := 0; k < len(inner); k++ {
			if inner[k] < 0x20 || inner[k] == 0x7f {
				ok = false
			}
		}
		if ok {
			return end + 1, inner, inner
		}
	}
	if m := res().email.FindString(inner); m == inner && !strings.ContainsAny(inner, "`'") {
		return end + 1, "mailto:" + inner, inner
	}
	return 0, "", ""
}

// inlineHTMLLen is the length of the raw HTML at the start of s (an open
// or closing tag, a comment, a processing instruction, a declaration,
// CDATA), or 0.
func inlineHTMLLen(s string) int {
	if len(s) < 2 || s[0] != '<' {
		return 0
	}
	switch {
	case strings.HasPrefix(s, "<!-->"):
		return 5
	case strings.HasPrefix(s, "<!--->"):
		return 6
	case strings.HasPrefix(s, "<!--"):
		if e := strings.Index(s[4:], "-->"); e >= 0 {
			return 4 + e + 3
		}
		return 0
	case strings.HasPrefix(s, "<?"):
		if e := strings.Index(s[2:], "?>"); e >= 0 {
			return 2 + e + 2
		}
		return 0
	case strings.HasPrefix(s, "<![CDATA["):
		if e := strings.Index(s[9:], "]]>"); e >= 0 {
			return 9 + e + 3
		}
		return 0
	case s[1] == '!' && len(s) > 2 && isASCIILetter(s[2]):
		if e := strings.IndexByte(s, '>'); e >= 0 {
			return e + 1
		}
		return 0
	}
	i := 1
	closing := s[1] == '/'
	if closing {
		i++
	}
	start := i
	for i < len(s) && (isASCIILetter(s[i]) || i > start && (s[i] >= '0' && s[i] <= '9' || s[i] == '-')) {
		i++
	}
	if i == start || !isASCIILetter(s[start]) {
		return 0
	}
	if closing {
		i = skipWS(s, i)
		if i < len(s) && s[i] == '>' {
			return i + 1
		}
		return 0
	}
	for {
		j := skipWS(s, i)
		if j < len(s) && s[j] == '>' {
			return j + 1
		}
		if j+1 < len(s) && s[j] == '/' && s[j+1] == '>' {
			return j + 2
		}
		if j == i || j >= len(s) {
			return 0
		}
		// An attribute: name, then optionally = value.
		k := j
		if !(isASCIILetter(s[k]) || s[k] == '_' || s[k] == ':') {
			return 0
		}
		for k < len(s) && (isASCIILetter(s[k]) || s[k] >= '0' && s[k] <= '9' || strings.IndexByte("_.:-", s[k]) >= 0) {
			k++
		}
		v := skipWS(s, k)
		if v < len(s) && s[v] == '=' {
			v = skipWS(s, v+1)
			if v >= len(s) {
				return 0
			}
			switch q := s[v]; q {
			case '"', '\'':
				e := strings.IndexByte(s[v+1:], q)
				if e < 0 {
					return 0
				}
				k = v + 1 + e + 1
			default:
				e := v
				for e < len(s) && !strings.ContainsRune(" \t\n\"'=<>`", rune(s[e])) {
					e++
				}
				if e == v {
					return 0
				}
				k = e
			}
		}
		i = k
	}
}

func skipWS(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n') {
		i++
	}
	return i
}

// delimRun adds a run of * _ or ~ as a text node and a delimiter.
func (ip *inlineParser) delimRun(i int) int {
	s := ip.s
	c := s[i]
	n := 0
	for i+n < len(s) && s[i+n] == c {
		n++
	}
	before, after := ' ', ' '
	if i > 0 {
		before, _ = utf8.DecodeLastRuneInString(s[:i])
	}
	if i+n < len(s) {
		after, _ = utf8.DecodeRuneInString(s[i+n:])
	}
	leftFlanking := !unicode.IsSpace(after) && (!isPunct(after) || unicode.IsSpace(before) || isPunct(before))
	rightFlanking := !unicode.IsSpace(before) && (!isPunct(before) || unicode.IsSpace(after) || isPunct(after))
	canOpen, canClose := leftFlanking, rightFlanking
	if c == '_' {
		canOpen = leftFlanking && (!rightFlanking || isPunct(before))
		canClose = rightFlanking && (!leftFlanking || isPunct(after))
	}
	if c == '~' && n > 2 {
		ip.text.WriteString(s[i : i+n])
		return i + n
	}
	ip.flush()
	node := &inl{kind: 't', text: s[i : i+n]}
	ip.nodes = append(ip.nodes, node)
	if canOpen || canClose {
		ip.delims = append(ip.delims, &delim{node: node, ch: c, n: n, orig: n, canOpen: canOpen, canClose: canClose, active: true})
	}
	return i + n
}

func isPunct(r rune) bool {
	if r < utf8.RuneSelf {
		return isASCIIPunct(byte(r))
	}
	return unicode.IsPunct(r) || unicode.IsSymbol(r)
}

// processEmphasis pairs the delimiters from index bottom on (the
// CommonMark algorithm), replacing matched runs with em/strong/del nodes.
func (ip *inlineParser) processEmphasis(bottom int) {
	type key struct {
		ch   byte
		open bool
		mod  int
	}
	openersBottom := map[key]int{}
	for ci := bottom; ci < len(ip.delims); ci++ {
		closer := ip.delims[ci]
		if !closer.canClose || !closer.active {
			continue
		}
		k := key{closer.ch, closer.canOpen, closer.orig % 3}
		lo := bottom
		if v, ok := openersBottom[k]; ok && v > lo {
			lo = v
		}
		found := -1
		for oi := ci - 1; oi >= lo; oi-- {
			op := ip.delims[oi]
			if !op.active || op.ch != closer.ch || !op.canOpen || op.n == 0 {
				continue
			}
			if closer.ch == '~' {
				if op.n != closer.n {
					continue
				}
			} else if (op.canClose || closer.canOpen) && (op.orig+closer.orig)%3 == 0 && !(op.orig%3 == 0 && closer.orig%3 == 0) {
				continue
			}
			found = oi
			break
		}
		if found < 0 {
			openersBottom[k] = ci
			if !closer.canOpen {
				closer.active = false
			}
			continue
		}
		op := ip.delims[found]
		use := 1
		kind := byte('e')
		switch {
		case closer.ch == '~':
			use, kind = closer.n, 'd'
		case op.n >= 2 && closer.n >= 2:
			use, kind = 2, 'S'
		}
		// Wrap the nodes between the two runs.
		oIdx, cIdx := ip.indexOf(op.node), ip.indexOf(closer.node)
		inner := append([]*inl(nil), ip.nodes[oIdx+1:cIdx]...)
		wrap := &inl{kind: kind, children: inner}
		op.n -= use
		closer.n -= use
		op.node.text = op.node.text[:op.n]
		closer.node.text = closer.node.text[:closer.n]
		nodes := append([]*inl(nil), ip.nodes[:oIdx+1]...)
		nodes = append(nodes, wrap)
		nodes = append(nodes, ip.nodes[cIdx:]...)
		ip.nodes = nodes
		for k := found + 1; k < ci; k++ {
			ip.delims[k].active = false
		}
		if op.n == 0 {
			op.active = false
		}
		if closer.n == 0 {
			closer.active = false
		} else {
			ci-- // the closer may close another opener
		}
	}
	for _, d := range ip.delims[bottom:] {
		d.active = false
	}
}

func (ip *inlineParser) indexOf(n *inl) int {
	for i, x := range ip.nodes {
		if x == n {
			return i
		}
	}
	return -1
}

// closeBracket handles ']' at s[i]: a link or image when an opener
// matches and a destination or reference follows, else text.
func (ip *inlineParser) closeBracket(i int) int {
	s := ip.s
	if len(ip.brackets) == 0 {
		ip.text.WriteByte(']')
		return i + 1
	}
	br := ip.brackets[len(ip.brackets)-1]
	if !br.active {
		ip.brackets = ip.brackets[:len(ip.brackets)-1]
		ip.text.WriteByte(']')
		return i + 1
	}
	label := s[br.textPos:i]
	if len(label) > maxLabel {
		label = "" // no reference has so long a label
	}
	dest, title, next, ok := ip.linkTail(i+1, label)
	if !ok {
		ip.brackets = ip.brackets[:len(ip.brackets)-1]
		ip.text.WriteByte(']')
		return i + 1
	}
	ip.flush()
	// The link's content: the nodes after the opener, emphasis resolved
	// among the delimiters that opened inside it.
	ip.processEmphasis(br.delims)
	ip.delims = ip.delims[:br.delims]
	content := append([]*inl(nil), ip.nodes[br.node+1:]...)
	kind := byte('a')
	if br.image {
		kind = 'i'
	}
	ip.nodes = append(ip.nodes[:br.node], &inl{kind: kind, dest: dest, title: title, children: content})
	ip.brackets = ip.brackets[:len(ip.brackets)-1]
	if !br.image {
		for k := range ip.brackets { // no link in a link
			if !ip.brackets[k].image {
				ip.brackets[k].active = false
			}
		}
	}
	return next
}

// linkTail reads what follows a link's ']' at s[i]: (dest "title"),
// [ref], [] or nothing (a shortcut reference to label).
func (ip *inlineParser) linkTail(i int, label string) (dest, title string, next int, ok bool) {
	s := ip.s
	if i < len(s) && s[i] == '(' {
		j := skipWS(s, i+1)
		d, k, ok := linkDest(s, j)
		if ok {
			t := ""
			m := skipWS(s, k)
			if m > k {
				if tt, e, ok := linkTitle(s, m); ok {
					t, m = tt, skipWS(s, e)
				}
			}
			if m < len(s) && s[m] == ')' {
				return d, t, m + 1, true
			}
		}
	}
	if i < len(s) && s[i] == '[' {
		end, ref := linkLabel(s, i)
		if end >= 0 {
			if ref == "" {
				ref = label
			}
			if r, found := ip.p.refs[normLabel(ref)]; found {
				return r.dest, r.title, end, true
			}
			if ref != label || strings.TrimSpace(label) == "" {
				return "", "", 0, false
			}
		}
	}
	if r, found := ip.p.refs[normLabel(label)]; found && strings.TrimSpace(label) != "" {
		return r.dest, r.title, i, true
	}
	return "", "", 0, false
}

// maxLabel is the longest link label (CommonMark's 999 characters).
const maxLabel = 999

// linkLabel reads [label] at s[i]: the index after ']' and the label, or -1.
func linkLabel(s string, i int) (int, string) {
	if i >= len(s) || s[i] != '[' {
		return -1, ""
	}
	for j := i + 1; j < len(s) && j-i <= 1000; j++ {
		switch s[j] {
		case '\\':
			j++
		case '[':
			return -1, ""
		case ']':
			return j + 1, s[i+1 : j]
		}
	}
	return -1, ""
}

// linkDest reads a destination at s[i]: <...> or a run without blanks and
// with balanced parentheses; it returns the unescaped destination.
func linkDest(s string, i int) (string, int, bool) {
	if i < len(s) && s[i] == '<' {
		for j := i + 1; j < len(s); j++ {
			switch s[j] {
			case '\\':
				j++
			case '\n', '<':
				return "", 0, false
			case '>':
				return unescapeMD(s[i+1 : j]), j + 1, true
			}
		}
		return "", 0, false
	}
	depth := 0
	j := i
	for j < len(s) {
		c := s[j]
		if c == '\\' && j+1 < len(s) && isASCIIPunct(s[j+1]) {
			j += 2
			continue
		}
		if c <= ' ' || c == 0x7f {
			break
		}
		if c == '(' {
			depth++
			if depth > 32 {
				return "", 0, false
			}
		}
		if c == ')' {
			if depth == 0 {
				break
			}
			depth--
		}
		j++
	}
	if depth != 0 {
		return "", 0, false
	}
	return unescapeMD(s[i:j]), j, true
}

// linkTitle reads "title", 'title' or (title) at s[i].
func linkTitle(s string, i int) (string, int, bool) {
	if i >= len(s) {
		return "", 0, false
	}
	closeCh := s[i]
	switch closeCh {
	case '"', '\'':
	case '(':
		closeCh = ')'
	default:
		return "", 0, false
	}
	for j := i + 1; j < len(s); j++ {
		switch {
		case s[j] == '\\':
			j++
		case s[j] == closeCh:
			return unescapeMD(s[i+1 : j]), j + 1, true
		case closeCh == ')' && s[j] == '(':
			return "", 0, false
		}
	}
	return "", 0, false
}

func renderInlines(w *strings.Builder, nodes []*inl) {
	for _, n := range nodes {
		switch n.kind {
		case 't':
			w.WriteString(escMD(n.text))
		case 'c':
			w.WriteString("<code>" + escMD(n.text) + "</code>")
		case 'b':
			w.WriteString("<br>\n")
		case 's':
			w.WriteString("\n")
		case 'h':
			w.WriteString("<!-- raw HTML omitted -->")
		case 'e', 'S', 'd':
			tag := "em"
			switch n.kind {
			case 'S':
				tag = "strong"
			case 'd':
				tag = "del"
			}
			w.WriteString("<" + tag + ">")
			renderInlines(w, n.children)
			w.WriteString("</" + tag + ">")
		case 'a':
			w.WriteString(`<a href="`)
			if !dangerousURL(n.dest) {
				w.WriteString(escMD(urlEscape(n.dest)))
			}
			w.WriteString(`"`)
			if n.title != "" {
				w.WriteString(` title="` + escMD(n.title) + `"`)
			}
			w.WriteString(">")
			renderInlines(w, n.children)
			w.WriteString("</a>")
		case 'i':
			w.WriteString(`<img src="`)
			if !dangerousURL(n.dest) {
				w.WriteString(escMD(urlEscape(n.dest)))
			}
			w.WriteString(`" alt="` + escMD(plainText(n.children)) + `"`)
			if n.title != "" {
				w.WriteString(` title="` + escMD(n.title) + `"`)
			}
			w.WriteString(">")
		}
	}
}

// plainText is an image's alt: the text of its description.
func plainText(nodes []*inl) string {
	var b strings.Builder
	for _, n := range nodes {
		switch n.kind {
		case 't', 'c':
			b.WriteString(n.text)
		case 's', 'b':
			b.WriteString("\n")
		default:
			b.WriteString(plainText(n.children))
		}
	}
	return b.String()
}

// dangerousURL: a scheme that runs code or reads local files (images of
// the common raster types as data: URLs excepted), as goldmark judges.
func dangerousURL(u string) bool {
	l := strings.ToLower(strings.TrimSpace(u))
	for _, img := range []string{"data:image/png", "data:image/gif", "data:image/jpeg", "data:image/webp"} {
		if strings.HasPrefix(l, img) {
			return false
		}
	}
	for _, p := range []string{"javascript:", "vbscript:", "file:", "data:"} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

// urlEscape percent-encodes what a URL may not hold (a valid %XX stays).
func urlEscape(u string) string {
	const keep = "!#$&'()*+,-./:;=?@_~"
	var b strings.Builder
	for i := 0; i < len(u); i++ {
		c := u[i]
		switch {
		case c == '%' && i+2 < len(u) && isHex(u[i+1]) && isHex(u[i+2]):
			b.WriteByte(c)
		case c < utf8.RuneSelf && (isASCIILetter(c) || c >= '0' && c <= '9' || strings.IndexByte(keep, c) >= 0):
			b.WriteByte(c)
		default:
			b.WriteString("%" + strings.ToUpper(strconv.FormatUint(uint64(c)>>4, 16)) + strings.ToUpper(strconv.FormatUint(uint64(c)&15, 16)))
		}
	}
	return b.String()
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'f' }
