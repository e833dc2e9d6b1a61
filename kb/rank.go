package kb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// headingText is what the headings column of the full-text index holds:
// the body's headings, one a line.
func headingText(body string) string {
	hs := headings(body)
	if len(hs) == 0 {
		return ""
	}
	var b strings.Builder
	for i, h := range hs {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(h.Text)
	}
	return b.String()
}

// Search priors multiply a note's full-text score. A changelog or release
// notes mention every feature, often many times; the feature's own page
// should come first, so such pages count half.
const (
	priorPage      = 1.0
	priorChangelog = 0.5
)

// changelogWords mark a changelog-like page when they are a whole word
// sequence of its title, type, folder or file name (lower case, ё as е).
var changelogWords = [][]string{
	{"changelog"}, {"changelogs"}, {"change", "log"}, {"release", "notes"}, {"releases"},
	{"release", "history"}, {"what", "s", "new"}, {"whats", "new"},
	{"список", "изменений"}, {"история", "изменений"}, {"журнал", "изменений"}, {"что", "нового"}, {"релизы"},
}

// searchPrior is the note's search prior: priorChangelog for changelog-like
// pages (by title, type, folder or imported file name), priorPage otherwise.
func searchPrior(n noteRow) float64 {
	for _, s := range []string{n.Title, n.Type, n.Folder, n.Source} {
		ws := textWords(strings.ReplaceAll(s, "_", " "))
		for _, pat := range changelogWords {
			if containsRun(ws, pat) {
				return priorChangelog
			}
		}
	}
	return priorPage
}

// containsRun reports whether pat occurs in ws as consecutive words.
func containsRun(ws, pat []string) bool {
	for i := 0; i+len(pat) <= len(ws); i++ {
		match := true
		for j, p := range pat {
			if ws[i+j] != p {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}

// BM25 weights of the full-text columns: in the title-and-headings index a
// title word counts ten, a heading word two; in the body index a body word
// one, a tag three. The two scores add up, so a word in a title weighs more
// than in a body even when most bodies have it.
const (
	headWeights = "10.0, 2.0"
	bodyWeights = "1.0, 3.0"
)

const (
	// defaultRankWindow bounds how many matches of each index BM25
	// scores: the newest ones. Below it (nearly every query of a real
	// knowledge base) the ranking is exact.
	defaultRankWindow = 1000
	// defaultCommonFrom is the corpus size from which words in more than
	// half of the bodies are left out of ranking: BM25 gives them no weight
	// (their idf is clamped to nothing), and scoring their long lists is
	// what makes a search slow.
	defaultCommonFrom = 1000
)

// ftsPlan is how a query runs on the full-text indexes: the MATCH terms
// BM25 ranks by in each index, and the terms too common in bodies to rank
// by there (with nothing to rank, a query lists the newest notes whose
// bodies hold them).
type ftsPlan struct {
	head, body, common []string
}

// planQuery looks the query's words up in the indexes' vocabularies: words
// no note has are left out (the others still find notes), and in a large
// corpus a word more than half the notes hold in an index is not ranked by
// there (a word in most bodies may still be rare in titles).
func (s *Store) planQuery(ctx context.Context, words []string) (ftsPlan, error) {
	var total int64
	if err := s.db.QueryRowContext(ctx, "SELECT coalesce(max(id), 0) FROM notes").Scan(&total); err != nil {
		return ftsPlan{}, fmt.Errorf("search: %w", err)
	}
	common := func(df int64) bool { return total >= int64(s.commonFrom) && df > total/2 }
	var p ftsPlan
	for _, w := range words {
		term := ftsTerm(w)
		body, err := s.docFreq(ctx, "notes_fts", w, term)
		if err != nil {
			return ftsPlan{}, err
		}
		head, err := s.docFreq(ctx, "notes_head_fts", w, term)
		if err != nil {
			return ftsPlan{}, err
		}
		switch {
		case body == 0:
		case common(body):
			p.common = append(p.common, term)
		default:
			p.body = append(p.body, term)
		}
		if head != 0 && !common(head) {
			p.head = append(p.head, term)
		}
	}
	return p, nil
}

// docFreq is how many notes an index has the word in (for a Cyrillic stem
// prefix, an upper bound), from the index's vocabulary; -1 when the
// vocabulary does not say but the index has the word.
func (s *Store) docFreq(ctx context.Context, index, word, term string) (int64, error) {
	vocab := map[string]string{"notes_fts": "notes_fts_vocab", "notes_head_fts": "notes_head_vocab"}[index]
	var df int64
	var err error
	if stem, ok := strings.CutSuffix(strings.TrimPrefix(term, `"`), `"*`); ok {
		err = s.db.QueryRowContext(ctx, "SELECT coalesce(sum(doc), 0) FROM "+vocab+" WHERE term >= ? AND term < ?",
			stem, stem+"\U0010FFFF").Scan(&df)
	} else {
		err = s.db.QueryRowContext(ctx, "SELECT coalesce(sum(doc), 0) FROM "+vocab+" WHERE term = ?", porterStem(word)).Scan(&df)
	}
	if err != nil {
		return 0, fmt.Errorf("search: vocabulary: %w", err)
	}
	if df > 0 {
		return df, nil
	}
	// The vocabulary holds the tokenizer's form (diacritics folded,
	// stemmed): ask the index itself whether any note has the word.
	var one int
	switch err := s.db.QueryRowContext(ctx, "SELECT 1 FROM "+index+" WHERE "+index+" MATCH ? LIMIT 1", term).Scan(&one); {
	case errors.Is(err, sql.ErrNoRows):
		return 0, nil
	case err != nil:
		return 0, fmt.Errorf("search: %w", err)
	}
	return -1, nil
}

// ftsSearch ranks the notes in scope that hold any of the plan's words by
// BM25 — the title-and-headings score plus the body score — times the
// note's search prior, best first, at most k; then, when the bodies had no
// word to rank by, the newest notes whose bodies hold the common words.
// Only ids and scores come out of the indexes: the scope is checked on the
// notes_scope index, never on note rows.
func (s *Store) ftsSearch(ctx context.Context, p ftsPlan, sc scope, k int) ([]hit, error) {
	var lists [][]scoredHit
	for _, ix := range []struct {
		table, weights string
		terms          []string
	}{{"notes_head_fts", headWeights, p.head}, {"notes_fts", bodyWeights, p.body}} {
		if len(ix.terms) == 0 {
			continue
		}
		_, expr := matchExprs(ix.terms)
		scored, err := s.ftsScored(ctx, ix.table, expr, "bm25("+ix.table+", "+ix.weights+")", sc, s.rankWindow)
		if err != nil {
			return nil, err
		}
		lists = append(lists, scored)
	}
	// bm25() is lower for better matches: mergeScored keeps the lowest.
	out, seen := mergeScored(lists, k)
	if len(p.body) == 0 && len(p.common) > 0 && len(out) < k {
		newest, err := s.ftsNewest(ctx, p.common, sc, k)
		if err != nil {
			return nil, err
		}
		for _, h := range newest {
			if !seen[h.id] && len(out) < k {
				out = append(out, h)
			}
		}
	}
	return out, nil
}

// ftsNewest lists the newest notes in scope whose bodies hold all the
// terms, else any of them.
func (s *Store) ftsNewest(ctx context.Context, terms []string, sc scope, k int) ([]hit, error) {
	if len(terms) == 0 {
		return nil, nil
	}
	and, or := matchExprs(terms)
	exprs := []string{and}
	if len(terms) > 1 {
		exprs = append(exprs, or)
	}
	for _, expr := range exprs {
		scored, err := s.ftsScored(ctx, "notes_fts", expr, "0", sc, k)
		if err != nil {
			return nil, err
		}
		if len(scored) > 0 {
			return ftsHits(scored), nil
		}
	}
	return nil, nil
}

// ftsHits are the full-text matches as hits, in their order, unscored.
func ftsHits(scored []scoredHit) []hit {
	out := make([]hit, len(scored))
	for i, sh := range scored {
		out[i] = hit{id: sh.id, fts: true}
	}
	return out
}

// scoredHit is a full-text match with its score and the note's prior.
type scoredHit struct {
	id           int64
	score, prior float64
}

// ftsScored lists up to n of the newest notes in scope matching expr in
// table, with the score expression's value.
func (s *Store) ftsScored(ctx context.Context, table, expr, score string, sc scope, n int) ([]scoredHit, error) {
	query, args := ftsScoredSQL(table, expr, score, sc, n)
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("full-text search %q: %w", expr, err)
	}
	defer rows.Close()
	var out []scoredHit
	for rows.Next() {
		var h scoredHit
		if err := rows.Scan(&h.id, &h.score, &h.prior); err != nil {
			return nil, fmt.Errorf("full-text search: %w", err)
		}
		out = append(out, h)
	}
	return out, rows.Err()
}

// ftsScoredSQL is ftsScored's query: the index in rowid order (newest
// first, no sort), joined to the notes_scope index for the scope and the
// prior — never to note rows (TestSearchPlanIndexOnly).
func ftsScoredSQL(table, expr, score string, sc scope, n int) (string, []any) {
	where, args := sc.filter()
	args = append([]any{expr}, args...)
	args = append(args, n)
	return `SELECT f.rowid, ` + score + `, n.search_prior FROM ` + table + ` f
		JOIN notes n INDEXED BY notes_scope ON n.id = f.rowid
		WHERE ` + table + ` MATCH ? AND ` + where + ` ORDER BY f.rowid DESC LIMIT ?`, args
}

// matchSnippet is the part of text around the most query words, about max
// bytes cut at word boundaries, in the text's own spelling (ё stays ё); ""
// when no word of the query is in text.
func matchSnippet(text string, words []string, max int) string {
	type match struct {
		start, end int
		word       int // index in words
	}
	var matches []match
	stems := make([]string, len(words))
	for i, w := range words {
		if isCyrillic(w) {
			stems[i] = russianStem(w)
		} else {
			stems[i] = porterStem(w)
		}
	}
	forEachWord(text, func(start, end int) {
		w := strings.ReplaceAll(strings.ToLower(text[start:end]), "ё", "е")
		for i, q := range words {
			if wordMatches(w, q, stems[i]) {
				matches = append(matches, match{start, end, i})
				return
			}
		}
	})
	if len(matches) == 0 {
		return ""
	}
	// The window of max bytes starting at a match that covers the most
	// distinct query words (then the most matches).
	best, bestWords, bestCount := 0, 0, 0
	for i, m := range matches {
		seen := map[int]bool{}
		count := 0
		for _, o := range matches[i:] {
			if o.end-m.start > max*3/4 {
				break
			}
			seen[o.word] = true
			count++
		}
		if len(seen) > bestWords || len(seen) == bestWords && count > bestCount {
			best, bestWords, bestCount = i, len(seen), count
		}
	}
	start := matches[best].start
	// Some context before the first match, from a word boundary.
	if start > 0 {
		from := max / 5
		lo := start - from
		if lo < 0 {
			lo = 0
		}
		if i := strings.IndexAny(text[lo:start], " \n\t"); lo > 0 && i >= 0 {
			lo += i + 1
		}
		start = lo
	}
	end := start + max
	if end >= len(text) {
		end = len(text)
	} else {
		if i := strings.LastIndexAny(text[start:end], " \n\t"); i > max/2 {
			end = start + i
		}
		end = start + len(strings.ToValidUTF8(text[start:end], ""))
	}
	for start < end && !utf8.RuneStart(text[start]) {
		start++
	}
	snip := strings.Join(strings.Fields(text[start:end]), " ")
	if start > 0 {
		snip = "…" + snip
	}
	if end < len(text) {
		snip += "…"
	}
	return snip
}

// wordMatches reports whether a lower-case word of a text is the query
// word q: the same word, the same Porter stem, or (Cyrillic) the same crude
// stem the index query uses as a prefix.
func wordMatches(w, q, stem string) bool {
	if w == q {
		return true
	}
	if isCyrillic(q) {
		return len(stem) >= 6 && strings.HasPrefix(w, stem) // three Cyrillic letters at least
	}
	// Stems share the first letters: a cheap test before stemming.
	if len(w) < 3 || len(stem) < 3 || w[:3] != stem[:3] {
		return false
	}
	return porterStem(w) == stem
}

// forEachWord calls fn with the byte range of each run of letters and
// digits in text.
func forEachWord(text string, fn func(start, end int)) {
	start := -1
	for i, r := range text {
		word := unicode.IsLetter(r) || unicode.IsDigit(r)
		switch {
		case word && start < 0:
			start = i
		case !word && start >= 0:
			fn(start, i)
			start = -1
		}
	}
	if start >= 0 {
		fn(start, len(text))
	}
}
