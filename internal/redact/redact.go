// Package redact takes credentials out of text that leaves yagent: an
// error built from a server's answer may echo the request's Authorization
// header, its api-key header or a key in its URL, and that text then
// reaches stderr, --json, rollouts, notes and traces.
//
// A credential is found in every form a server's answer may give it back
// in: as sent, in any letter case, URL-encoded (%73k-…), JSON- or
// Go-escaped (\u0073, \x73, \/), as an HTML character reference (&#115;),
// split by whitespace or escaped line breaks (a wrapped header), escaped
// more than once (a JSON string inside a JSON string), and cut at the end
// of the text (a body read up to a limit). Each occurrence becomes Marker.
package redact

import (
	"slices"
	"strings"
	"sync"
)

// Marker replaces each credential found.
const Marker = "[redacted]"

// MinLen is the shortest value treated as a credential. Local servers take
// placeholders such as "ollama", "EMPTY" or "none" as keys; scrubbing
// those would mangle every message that names them, and no provider issues
// keys that short.
const MinLen = 8

// minTail is the shortest beginning of a credential scrubbed where it ends
// the text: a body read up to a limit may cut a key in two.
const minTail = 4

// Secrets are the credentials one request sent. The zero value scrubs
// nothing. Safe for concurrent use.
type Secrets struct {
	vals []string // longest first, so a header value goes before the key it holds
}

// New returns the credentials among values: each value of MinLen bytes or
// more, and for a header value "Scheme token" (Bearer, Basic…) the token
// alone too, since a server may echo either.
func New(values ...string) Secrets {
	var vals []string
	add := func(v string) {
		if len(v) >= MinLen && !slices.Contains(vals, v) {
			vals = append(vals, v)
		}
	}
	for _, v := range values {
		v = strings.TrimSpace(v)
		add(v)
		if _, tok, ok := strings.Cut(v, " "); ok {
			add(strings.TrimSpace(tok))
		}
	}
	slices.SortStableFunc(vals, func(a, b string) int { return len(b) - len(a) })
	return Secrets{vals: vals}
}

// Empty reports whether there is nothing to scrub.
func (s Secrets) Empty() bool { return len(s.vals) == 0 }

// String returns text with every credential replaced by Marker.
func (s Secrets) String(text string) string {
	for _, v := range s.vals {
		text = scrub(text, v)
	}
	return text
}

// Bytes is String for a body; it returns b itself when nothing was found.
func (s Secrets) Bytes(b []byte) []byte {
	if s.Empty() || len(b) == 0 {
		return b
	}
	text := string(b)
	if out := s.String(text); out != text {
		return []byte(out)
	}
	return b
}

// Error returns err, or when its text holds a credential, an error whose
// text is scrubbed. The result still wraps err, so errors.Is and errors.As
// see the same chain: whoever prints must print the result, never an error
// taken out of its chain (types that hold a server's words are scrubbed
// where they are built).
func (s Secrets) Error(err error) error {
	if err == nil || s.Empty() {
		return err
	}
	text := err.Error()
	out := s.String(text)
	if out == text {
		return err
	}
	return &scrubbed{msg: out, err: err}
}

type scrubbed struct {
	msg string
	err error
}

func (e *scrubbed) Error() string { return e.msg }
func (e *scrubbed) Unwrap() error { return e.err }

// scrub replaces each occurrence of secret in text by Marker.
func scrub(text, secret string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(text); {
		if !canStart(text[i], secret[0]) {
			i++
			continue
		}
		end, ok := matchAt(text, i, secret)
		if !ok {
			i++
			continue
		}
		if b.Len() == 0 {
			b.Grow(len(text))
		}
		b.WriteString(text[last:i])
		b.WriteString(Marker)
		last, i = end, end
	}
	if last == 0 {
		return text
	}
	b.WriteString(text[last:])
	return b.String()
}

// canStart is a cheap test that a form of c may start with t.
func canStart(t, c byte) bool {
	return lower(t) == lower(c) || t == '%' || t == '\\' || t == '&' || (t == '+' && c == ' ')
}

// matchAt matches secret at text[i:], one byte at a time in any of its
// forms (see unit), letting whitespace split it; ok with the end of the
// match, also when the text ends after at least minTail bytes of it. The
// first form that fits is taken (no backtracking): credentials are made of
// letters, digits and a few marks, whose forms never overlap.
func matchAt(text string, i int, secret string) (end int, ok bool) {
	for j := 0; j < len(secret); j++ {
		n := 0
		if i < len(text) {
			n = unit(text, i, secret[j])
		}
		if n == 0 && j > 0 {
			i = skipSplit(text, i)
			if i < len(text) {
				n = unit(text, i, secret[j])
			}
		}
		if i >= len(text) {
			return i, j >= minTail
		}
		if n == 0 {
			return 0, false
		}
		i += n
	}
	return i, true
}

// skipSplit skips what may split a credential that a server wrapped or
// flattened: whitespace, and escaped line breaks and tabs.
func skipSplit(text string, i int) int {
	for i < len(text) {
		switch text[i] {
		case ' ', '\t', '\r', '\n':
			i++
			continue
		case '\\':
			j := i
			for j < len(text) && text[j] == '\\' {
				j++
			}
			if j < len(text) && (text[j] == 'n' || text[j] == 'r' || text[j] == 't') {
				i = j + 1
				continue
			}
		}
		return i
	}
	return i
}

// unit returns how many bytes of text at i spell the byte c, 0 if none:
// the byte itself in either case, %XX, \uXXXX or \xXX after one or more
// backslashes, a backslash-escaped mark (\/), &#NN; or &#xNN;, and + for
// a space.
func unit(text string, i int, c byte) int {
	t := text[i]
	if lower(t) == lower(c) {
		return 1
	}
	switch t {
	case '+':
		if c == ' ' {
			return 1
		}
	case '%':
		if v, ok := hexAt(text, i+1, 2); ok && same(v, c) {
			return 3
		}
	case '\\':
		j := i
		for j < len(text) && text[j] == '\\' {
			j++
		}
		if j >= len(text) {
			return 0
		}
		switch {
		case text[j] == c && !isAlnum(c):
			return j + 1 - i
		case text[j] == 'u':
			if v, ok := hexAt(text, j+1, 4); ok && same(v, c) {
				return j + 5 - i
			}
		case text[j] == 'x':
			if v, ok := hexAt(text, j+1, 2); ok && same(v, c) {
				return j + 3 - i
			}
		}
	case '&':
		return entity(text, i, c)
	}
	return 0
}

// entity matches an HTML numeric character reference of c at text[i:].
func entity(text string, i int, c byte) int {
	if !strings.HasPrefix(text[i:], "&#") {
		return 0
	}
	j, v, base := i+2, 0, 10
	if j < len(text) && (text[j] == 'x' || text[j] == 'X') {
		j, base = j+1, 16
	}
	start := j
	for j < len(text) && j-start < 8 {
		d := digit(text[j])
		if d < 0 || d >= base {
			break
		}
		v = v*base + d
		j++
	}
	if j == start || j >= len(text) || text[j] != ';' || !same(v, c) {
		return 0
	}
	return j + 1 - i
}

func hexAt(text string, i, n int) (int, bool) {
	if i+n > len(text) {
		return 0, false
	}
	v := 0
	for _, ch := range []byte(text[i : i+n]) {
		d := digit(ch)
		if d < 0 || d > 15 {
			return 0, false
		}
		v = v*16 + d
	}
	return v, true
}

func digit(ch byte) int {
	switch {
	case '0' <= ch && ch <= '9':
		return int(ch - '0')
	case 'a' <= ch && ch <= 'f':
		return int(ch-'a') + 10
	case 'A' <= ch && ch <= 'F':
		return int(ch-'A') + 10
	}
	return -1
}

// same reports whether the code point v spells c, in either case.
func same(v int, c byte) bool { return v < 0x100 && lower(byte(v)) == lower(c) }

func lower(ch byte) byte {
	if 'A' <= ch && ch <= 'Z' {
		return ch + 'a' - 'A'
	}
	return ch
}

func isAlnum(ch byte) bool {
	ch = lower(ch)
	return 'a' <= ch && ch <= 'z' || '0' <= ch && ch <= '9'
}

// Exact is New for values a person chose that the text otherwise never
// holds (a database password in a driver's error): every non-empty value
// is scrubbed, whatever its length.
func Exact(values ...string) Secrets {
	var vals []string
	for _, v := range values {
		if v != "" && !slices.Contains(vals, v) {
			vals = append(vals, v)
		}
	}
	slices.SortStableFunc(vals, func(a, b string) int { return len(b) - len(a) })
	return Secrets{vals: vals}
}

// Growing are Secrets that learn credentials as they are issued — an
// OAuth access token, then its refreshed successor — so what a server
// echoes later is scrubbed too. Safe for concurrent use.
type Growing struct {
	mu sync.RWMutex
	s  Secrets
}

// NewGrowing starts with the credentials among values (as New).
func NewGrowing(values ...string) *Growing { return &Growing{s: New(values...)} }

// Add learns more credentials (as New takes them).
func (g *Growing) Add(values ...string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.s = New(append(slices.Clone(g.s.vals), values...)...)
}

func (g *Growing) now() Secrets {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.s
}

// String is Secrets.String with what is known now.
func (g *Growing) String(text string) string { return g.now().String(text) }

// Error is Secrets.Error with what is known now.
func (g *Growing) Error(err error) error { return g.now().Error(err) }
