package kb

import "strings"

// porterStem is the Porter (1980) stem of a lower-case token, the way the
// full-text index's porter tokenizer stores it: tokens shorter than 3 or
// longer than 64 bytes pass unchanged, and bytes outside a–z are
// consonants (so Cyrillic words come through as they are). Search uses it
// to look words up in the index's vocabulary (how many notes hold each);
// TestPorterStemMatchesSQLite holds it to SQLite's own tokenizer.
func porterStem(w string) string {
	if len(w) < 3 || len(w) > 64 {
		return w
	}
	b := []byte(w)
	b = porterStep1a(b)
	b = porterStep1b(b)
	if b[len(b)-1] == 'y' && hasVowel(b[:len(b)-1]) {
		b[len(b)-1] = 'i'
	}
	b = replaceSuffix(b, porterStep2, 0)
	b = replaceSuffix(b, porterStep3, 0)
	b = porterStep4(b)
	if b[len(b)-1] == 'e' {
		stem := b[:len(b)-1]
		if m := measure(stem); m > 1 || m == 1 && !cvc(stem) {
			b = stem
		}
	}
	if len(b) > 1 && b[len(b)-1] == 'l' && b[len(b)-2] == 'l' && measure(b[:len(b)-1]) > 1 {
		b = b[:len(b)-1]
	}
	return string(b)
}

// isConsonant reports whether b[i] is a consonant: not a, e, i, o, u, and
// not a y that follows a consonant.
func isConsonant(b []byte, i int) bool {
	switch b[i] {
	case 'a', 'e', 'i', 'o', 'u':
		return false
	case 'y':
		return i == 0 || !isConsonant(b, i-1)
	}
	return true
}

// measure is Porter's m: the number of vowel-consonant sequences in b.
func measure(b []byte) int {
	m, i := 0, 0
	for i < len(b) && isConsonant(b, i) {
		i++
	}
	for i < len(b) {
		for i < len(b) && !isConsonant(b, i) {
			i++
		}
		if i == len(b) {
			break
		}
		for i < len(b) && isConsonant(b, i) {
			i++
		}
		m++
	}
	return m
}

func hasVowel(b []byte) bool {
	for i := range b {
		if !isConsonant(b, i) {
			return true
		}
	}
	return false
}

// cvc reports whether b ends consonant-vowel-consonant, the last not w, x
// or y.
func cvc(b []byte) bool {
	n := len(b)
	if n < 3 || !isConsonant(b, n-1) || isConsonant(b, n-2) || !isConsonant(b, n-3) {
		return false
	}
	c := b[n-1]
	return c != 'w' && c != 'x' && c != 'y'
}

func porterStep1a(b []byte) []byte {
	s := string(b)
	switch {
	case strings.HasSuffix(s, "sses"), strings.HasSuffix(s, "ies"):
		return b[:len(b)-2]
	case strings.HasSuffix(s, "ss"):
		return b
	case strings.HasSuffix(s, "s"):
		return b[:len(b)-1]
	}
	return b
}

func porterStep1b(b []byte) []byte {
	s := string(b)
	if strings.HasSuffix(s, "eed") {
		if measure(b[:len(b)-3]) > 0 {
			return b[:len(b)-1]
		}
		return b
	}
	var stem []byte
	switch {
	case strings.HasSuffix(s, "ed") && hasVowel(b[:len(b)-2]):
		stem = b[:len(b)-2]
	case strings.HasSuffix(s, "ing") && hasVowel(b[:len(b)-3]):
		stem = b[:len(b)-3]
	default:
		return b
	}
	t := string(stem)
	switch {
	case strings.HasSuffix(t, "at"), strings.HasSuffix(t, "bl"), strings.HasSuffix(t, "iz"):
		return append(stem, 'e')
	}
	n := len(stem)
	if n >= 2 && stem[n-1] == stem[n-2] && isConsonant(stem, n-1) {
		switch stem[n-1] {
		case 'l', 's', 'z':
		default:
			return stem[:n-1]
		}
	}
	if measure(stem) == 1 && cvc(stem) {
		return append(stem, 'e')
	}
	return stem
}

// porterStep2 and porterStep3 map suffixes to replacements, applied when
// the rest has m > 0; the first matching suffix decides.
var porterStep2 = [][2]string{
	{"ational", "ate"}, {"tional", "tion"}, {"enci", "ence"}, {"anci", "ance"}, {"izer", "ize"},
	{"bli", "ble"}, {"alli", "al"}, {"entli", "ent"}, {"eli", "e"}, {"ousli", "ous"},
	{"ization", "ize"}, {"ation", "ate"}, {"ator", "ate"}, {"alism", "al"}, {"iveness", "ive"},
	{"fulness", "ful"}, {"ousness", "ous"}, {"aliti", "al"}, {"iviti", "ive"}, {"biliti", "ble"},
	{"logi", "log"},
}

var porterStep3 = [][2]string{
	{"icate", "ic"}, {"ative", ""}, {"alize", "al"}, {"iciti", "ic"}, {"ical", "ic"}, {"ful", ""}, {"ness", ""},
}

func replaceSuffix(b []byte, rules [][2]string, minM int) []byte {
	s := string(b)
	best := -1
	for i, r := range rules {
		if strings.HasSuffix(s, r[0]) && (best < 0 || len(r[0]) > len(rules[best][0])) {
			best = i
		}
	}
	if best < 0 {
		return b
	}
	stem := b[:len(b)-len(rules[best][0])]
	if measure(stem) <= minM {
		return b
	}
	return append(stem[:len(stem):len(stem)], rules[best][1]...)
}

var porterStep4Suffixes = []string{
	"al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ion", "ou", "ism",
	"ate", "iti", "ous", "ive", "ize",
}

func porterStep4(b []byte) []byte {
	s := string(b)
	best := ""
	for _, suf := range porterStep4Suffixes {
		if strings.HasSuffix(s, suf) && len(suf) > len(best) {
			best = suf
		}
	}
	if best == "" {
		return b
	}
	stem := b[:len(b)-len(best)]
	if best == "ion" && (len(stem) == 0 || stem[len(stem)-1] != 's' && stem[len(stem)-1] != 't') {
		return b
	}
	if measure(stem) > 1 {
		return stem
	}
	return b
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
