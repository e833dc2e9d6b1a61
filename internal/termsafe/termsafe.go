// Package termsafe renders text yagent did not write itself — a model's
// command, answer or note, a file's lines in a diff, a session's title —
// for a terminal, so that the terminal shows it and does nothing else: no
// escape sequence, carriage return or other control character reaches the
// terminal, and no bidi override or invisible character hides or reorders
// what is shown.
//
// What is replaced, and by what:
//   - C0 controls (U+0000–U+001F) by their control pictures: ESC is ␛, CR
//     is ␍, NUL is ␀ (newline and tab are kept by Text); DEL by ␡.
//   - C1 controls (U+0080–U+009F), format characters (Unicode category Cf:
//     bidi embeddings, overrides and isolates U+202A–U+202E, U+2066–U+2069,
//     the marks U+200E, U+200F, U+061C, zero-width spaces, word joiners,
//     the BOM, tag characters…) and the line and paragraph separators
//     U+2028, U+2029 by Go-style escapes: \u202e, \U000e0041.
//   - Bytes that are not UTF-8 by \xNN (a terminal could assemble them
//     into one of the above).
//
// The zero-width joiner and non-joiner (U+200D, U+200C) are kept between
// two visible non-ASCII characters, where they join emoji (👨‍👩‍👧) or
// shape Persian and Indic scripts; anywhere else (inside an ASCII word, at
// an end) they are escaped. Everything else — letters of every script,
// marks, symbols, spaces — is kept as it is, so printable text is
// unchanged.
//
// Styling yagent adds itself (colours) is applied after this, to the
// rendered text. A literal "␛" or "\u202e" typed in the text looks like a
// replaced character: both are harmless, which is all this promises.
package termsafe

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Text renders s for a surface of several lines (a diff, a note's body,
// an answer): newline and tab keep their meaning, everything else is as
// described in the package comment.
func Text(s string) string { return render(s, true) }

// Line renders s for one line (a command's line in a question, a name, a
// title): newline and tab are shown as ␊ and ␉ too, so nothing moves the
// cursor but the characters themselves.
func Line(s string) string { return render(s, false) }

// Lines splits s into its lines, each rendered by Line: a command shown
// exactly as it will run, every line of it, one per row, none able to move
// the cursor (a carriage return in a line is ␍).
func Lines(s string) []string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = Line(l)
	}
	return lines
}

// Cut renders s as Line does and cuts the result to at most n runes, the
// last being "…" when it was cut; a replacement (\u202e) is never split.
func Cut(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if clean(s, false) && utf8.RuneCountInString(s) <= n {
		return s
	}
	b := []byte(s)
	var (
		out   []byte
		ends  []int // where each shown unit (a rune, or a replacement) ends in out
		runes []int // how many runes each unit is
		total int
		prev  = runeError
	)
	for i := 0; i < len(b); {
		r, size, replace := step(b, i, prev, false)
		if replace {
			out = appendReplacement(out, r, b[i])
		} else {
			out = append(out, b[i:i+size]...)
		}
		k := 1
		if replace {
			k = utf8.RuneCount(out[lastEnd(ends):])
		}
		ends, runes, total = append(ends, len(out)), append(runes, k), total+k
		if total > n {
			// Make room for "…": drop whole units.
			for total > n-1 {
				total -= runes[len(runes)-1]
				ends, runes = ends[:len(ends)-1], runes[:len(runes)-1]
			}
			return string(append(out[:lastEnd(ends)], "…"...))
		}
		prev = r
		i += size
	}
	return string(out)
}

func lastEnd(ends []int) int {
	if len(ends) == 0 {
		return 0
	}
	return ends[len(ends)-1]
}

// runeError stands for "no rune" before the start of a text.
const runeError = utf8.RuneError

func render(s string, multiline bool) string {
	if clean(s, multiline) {
		return s
	}
	out, _ := appendRendered(make([]byte, 0, len(s)+16), []byte(s), multiline, runeError)
	return string(out)
}

// clean reports whether s renders as itself (the common case, no copy).
func clean(s string, multiline bool) bool {
	for _, r := range s {
		if r < utf8.RuneSelf {
			if r < 0x20 && !(multiline && (r == '\n' || r == '\t')) || r == 0x7f {
				return false
			}
			continue
		}
		if r == utf8.RuneError || unsafe(r) {
			return false // a RuneError may be a bad byte: let step decide
		}
	}
	return true
}

// unsafe reports whether r (not ASCII) is replaced wherever it stands
// (joiners are decided by their neighbours).
func unsafe(r rune) bool {
	return r <= 0x9f || r == 0x2028 || r == 0x2029 || unicode.Is(unicode.Cf, r)
}

// joiner reports whether r is kept between two visible non-ASCII runes.
func joiner(r rune) bool { return r == 0x200c || r == 0x200d }

// visible reports whether r may stand beside a kept joiner.
func visible(r rune) bool {
	return r >= utf8.RuneSelf && r != utf8.RuneError && unicode.IsGraphic(r)
}

// appendRendered appends s rendered to dst; prev is the rune before s
// (runeError: none), last the last rune of s (prev when s is empty).
func appendRendered(dst, s []byte, multiline bool, prev rune) (out []byte, last rune) {
	start := 0 // of the current run of kept text
	for i := 0; i < len(s); {
		r, size, replace := step(s, i, prev, multiline)
		if replace {
			dst = append(dst, s[start:i]...)
			dst = appendReplacement(dst, r, s[i])
			start = i + size
		}
		prev = r
		i += size
	}
	return append(dst, s[start:]...), prev
}

// step decodes the rune at s[i:] and decides whether it is replaced; prev
// is the rune before it. A byte that is not UTF-8 is utf8.RuneError of
// size 1.
func step(s []byte, i int, prev rune, multiline bool) (r rune, size int, replace bool) {
	r, size = utf8.DecodeRune(s[i:])
	switch {
	case r == utf8.RuneError && size == 1:
		return r, size, true
	case r < 0x20:
		return r, size, !(multiline && (r == '\n' || r == '\t'))
	case r == 0x7f:
		return r, size, true
	case r < utf8.RuneSelf:
		return r, size, false
	case joiner(r):
		next, _ := utf8.DecodeRune(s[i+size:])
		return r, size, i+size == len(s) || !visible(prev) || !visible(next)
	}
	return r, size, unsafe(r)
}

// appendReplacement appends what is shown for a replaced rune r (b is its
// first byte, shown as \xNN when r is utf8.RuneError): a control picture
// for C0 and DEL, else an escape as Go writes it (\u202e, \U000e0041).
func appendReplacement(dst []byte, r rune, b byte) []byte {
	const digits = "0123456789abcdef"
	switch {
	case r == utf8.RuneError:
		return append(dst, '\\', 'x', digits[b>>4], digits[b&0xf])
	case r < 0x20:
		return utf8.AppendRune(dst, 0x2400+r)
	case r == 0x7f:
		return utf8.AppendRune(dst, 0x2421)
	}
	n, u := 4, byte('u')
	if r > 0xffff {
		n, u = 8, 'U'
	}
	dst = append(dst, '\\', u)
	for k := n - 1; k >= 0; k-- {
		dst = append(dst, digits[(r>>(4*k))&0xf])
	}
	return dst
}
