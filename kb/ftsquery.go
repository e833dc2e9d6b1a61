package kb

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

const maxQueryTerms = 24

// ftsQuery turns a natural-language query into FTS5 MATCH expressions: all
// terms (AND) and any term (OR). Every term is a quoted string, so nothing
// the user types is FTS syntax, and the query is never one exact phrase.
// Stop words are dropped unless nothing else is left. Cyrillic words become
// prefix queries on a crude stem, because the porter tokenizer stems English
// only. Both are "" when the query has no words.
func ftsQuery(q string) (and, or string) {
	words := queryTerms(q)
	parts := make([]string, len(words))
	for i, w := range words {
		parts[i] = ftsTerm(w)
	}
	return matchExprs(parts)
}

// matchExprs joins FTS terms into the all-terms and any-term expressions;
// both "" without terms.
func matchExprs(terms []string) (and, or string) {
	return strings.Join(terms, " AND "), strings.Join(terms, " OR ")
}

// queryTerms lower-cases q, splits it into words and drops stop words and
// duplicates.
func queryTerms(q string) []string {
	var kept, stops []string
	seen := map[string]bool{}
	for _, w := range textWords(q) {
		if seen[w] {
			continue
		}
		seen[w] = true
		if stopWords()[w] {
			stops = append(stops, w)
		} else {
			kept = append(kept, w)
		}
	}
	if len(kept) == 0 {
		kept = stops
	}
	if len(kept) > maxQueryTerms {
		kept = kept[:maxQueryTerms]
	}
	return kept
}

// textWords lower-cases s and splits it into runs of letters and digits
// (with ё folded to е).
func textWords(s string) []string {
	all := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	for i, w := range all {
		all[i] = strings.ReplaceAll(w, "ё", "е")
	}
	return all
}

func ftsTerm(w string) string {
	if isCyrillic(w) {
		if stem := russianStem(w); utf8.RuneCountInString(stem) >= 3 {
			return `"` + stem + `"*`
		}
	}
	return `"` + strings.ReplaceAll(w, `"`, `""`) + `"`
}

func isCyrillic(w string) bool {
	for _, r := range w {
		if unicode.Is(unicode.Cyrillic, r) {
			return true
		}
	}
	return false
}

// russianEndings are inflectional endings, longest first.
var russianEndings = strings.Fields(`
	ировать ировал ированн
	остями ениями аниями
	ость ости остью ение ения ению ением ании ание ания анию анием ться ются ется ишь ешь
	иями ями ами ого его ому ему ыми ими ией ями
	ый ий ой ая яя ое ее ые ие ых их ую юю ом ем ам ям ах ях ов ев ей ью ия ии ию ет ют ут ит ат ят им ла ло ли ть ся
	а я о е и ы у ю ь й`)

// russianStem strips one inflectional ending, keeping at least three letters.
func russianStem(w string) string {
	for _, e := range russianEndings {
		if strings.HasSuffix(w, e) {
			stem := strings.TrimSuffix(w, e)
			if utf8.RuneCountInString(stem) >= 3 {
				return stem
			}
		}
	}
	return w
}

var stopWords = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`
		a an and are as at be been but by can could did do does doing for from had has have how i if in
		into is it its me my no not of on or our ours should so some such than that the their them then
		there these they this those to too was we were what when where which while who whom why will
		with would you your about any all also just may might must shall
		а без бы в во вот вы где да для до его ее её же за зачем и из или им их как какая какие какой
		когда ко кто ли мне можно мы на над нам нас наш не нет но нужно о об однако он она они оно от по
		под почему при про с со так там то того тоже только том ты у уже чем что чтобы это эти этот я
		ваш есть быть был была были будет бывает`) {
		m[w] = true
	}
	return m
})
