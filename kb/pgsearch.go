package kb

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// tsRankWeights are ts_rank's weights of the labels {D, C, B, A}: body 1,
// headings 2, tags 3, title 10 — SQLite's BM25 column weights, scaled
// into ts_rank's range.
const tsRankWeights = "'{0.1, 0.2, 0.3, 1.0}'"

// pgTerm is one query word on PostgreSQL: its tsquery (stemmed by the
// kb_text configuration; a stop word gives an empty query and no notes),
// and its inverse document frequency in each document. query is the
// word's tsquery as text, computed once by kb_query and passed back as a
// constant: a call of kb_query (a STABLE SQL function the planner cannot
// inline) in a statement is evaluated again for every row it filters or
// ranks, and hides the query's selectivity from the planner.
type pgTerm struct {
	word, query         string
	headDF, bodyDF      int64
	headIDF, bodyIDF    float64
	inHead, inBody, com bool
}

// fullText ranks as SQLite's indexes do, with tsvector documents: each
// query word is weighted by its BM25 inverse document frequency in the
// document (title and headings, or body and tags), times ts_rank's
// weighted, length-normalised frequency; the two documents add up, times
// the note's search prior. Words no note has are dropped, and from
// commonFrom notes on a word more than half the documents hold is not
// ranked by there; when the bodies have no word left to rank by, the
// newest notes holding the common words follow. At most rankWindow of the
// newest matches of each document are scored.
func (pgDialect) fullText(ctx context.Context, s *Store, words []string, sc scope, k int) ([]hit, error) {
	terms, avgLen, err := pgPlan(ctx, s, words)
	if err != nil {
		return nil, err
	}
	var lists [][]scoredHit
	var common []string
	for _, doc := range []string{"head_tsv", "body_tsv"} {
		var ranked []pgTerm
		for _, t := range terms {
			if doc == "head_tsv" && t.inHead || doc == "body_tsv" && t.inBody {
				ranked = append(ranked, t)
			}
			if doc == "body_tsv" && t.com {
				common = append(common, t.query)
			}
		}
		if len(ranked) == 0 {
			continue
		}
		scored, err := pgScored(ctx, s, doc, ranked, avgLen[doc], sc, s.rankWindow)
		if err != nil {
			return nil, err
		}
		lists = append(lists, scored)
	}
	out, byID := mergeScored(lists, k)
	bodyRanked := slices.ContainsFunc(terms, func(t pgTerm) bool { return t.inBody })
	if !bodyRanked && len(common) > 0 && len(out) < k {
		newest, err := pgNewest(ctx, s, common, sc, k)
		if err != nil {
			return nil, err
		}
		for _, h := range newest {
			if !byID[h.id] && len(out) < k {
				out = append(out, h)
			}
		}
	}
	return out, nil
}

// tsq is the tsquery whose text (kb_query's, see pgTerm) is argument n.
func tsq(n int) string { return "?" + strconv.Itoa(n) + "::tsquery" }

// pgPlan counts, in one statement, how many notes hold each word in each
// document: exactly below commonFrom notes, and up to half of them above
// (more is "common"); and the average length of each document (over the
// newest rankWindow notes, which is what BM25 scores).
func pgPlan(ctx context.Context, s *Store, words []string) ([]pgTerm, map[string]float64, error) {
	var total int64
	var headLen, bodyLen float64
	if err := s.db.QueryRowContext(ctx, `SELECT coalesce(max(id), 0), coalesce(avg(`+pgDocLen["head_tsv"]+`), 0), coalesce(avg(`+pgDocLen["body_tsv"]+`), 0)
		FROM (SELECT id, head_len, body_len FROM notes ORDER BY id DESC LIMIT ?) n`, s.rankWindow).Scan(&total, &headLen, &bodyLen); err != nil {
		return nil, nil, fmt.Errorf("search: %w", err)
	}
	limit := total + 1
	large := total >= int64(s.commonFrom)
	if large {
		limit = total/2 + 1
	}
	queries := make([]string, 0, len(words))
	rows, err := s.db.QueryContext(ctx, "SELECT kb_query(w)::text FROM unnest(?::text[]) WITH ORDINALITY AS u(w, i) ORDER BY i", words)
	if err != nil {
		return nil, nil, fmt.Errorf("search: %w", err)
	}
	for rows.Next() {
		var q string
		if err := rows.Scan(&q); err != nil {
			rows.Close()
			return nil, nil, fmt.Errorf("search: %w", err)
		}
		queries = append(queries, q)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("search: %w", err)
	}
	if len(queries) != len(words) {
		return nil, nil, fmt.Errorf("search: %d tsqueries for %d words", len(queries), len(words))
	}
	var cols []string
	args := make([]any, 0, len(words)+1)
	args = append(args, limit)
	for _, q := range queries {
		// The tsquery's text is an argument when a statement may count
		// matches, the lexeme when note_terms may say.
		lexeme, prefix, single := tsLexeme(q)
		if q != "" && (!single || prefix) {
			args = append(args, q)
		}
		qn := len(args)
		if single {
			args = append(args, lexeme)
		}
		ln := strconv.Itoa(len(args))
		for _, doc := range []string{"head_tsv", "body_tsv"} {
			count := "(SELECT count(*) FROM (SELECT 1 FROM notes WHERE " + doc + " @@ " + tsq(qn) + " LIMIT ?1) x)"
			switch {
			case q == "":
				cols = append(cols, "0")
			case single && !prefix:
				// note_terms (migration 2) holds the count: no note is read.
				cols = append(cols, "least(coalesce((SELECT ndoc FROM note_terms WHERE doc = '"+doc[:1]+"' AND lexeme = ?"+ln+"), 0), ?1)")
			case single:
				// A prefix one lexeme holds has that lexeme's count; one
				// several hold is counted (a note may hold more than one).
				cols = append(cols, "(SELECT CASE WHEN count(*) <= 1 THEN least(coalesce(sum(ndoc), 0), ?1) ELSE "+count+" END FROM note_terms WHERE doc = '"+doc[:1]+
					"' AND lexeme >= ?"+ln+" AND lexeme < ?"+ln+" || chr(1114111) AND starts_with(lexeme, ?"+ln+") AND ndoc > 0)")
			default:
				cols = append(cols, count)
			}
		}
	}
	dest := make([]any, 2*len(words))
	terms := make([]pgTerm, len(words))
	for i, w := range words {
		terms[i].word, terms[i].query = w, queries[i]
		dest[2*i], dest[2*i+1] = &terms[i].headDF, &terms[i].bodyDF
	}
	if err := s.db.QueryRowContext(ctx, "SELECT "+strings.Join(cols, ", "), args...).Scan(dest...); err != nil {
		return nil, nil, fmt.Errorf("search: document frequencies: %w", err)
	}
	common := func(df int64) bool { return large && df > total/2 }
	for i := range terms {
		t := &terms[i]
		t.headIDF, t.bodyIDF = bm25IDF(total, t.headDF), bm25IDF(total, t.bodyDF)
		t.inHead = t.headDF > 0 && !common(t.headDF)
		t.com = common(t.bodyDF)
		t.inBody = t.bodyDF > 0 && !t.com
	}
	return terms, map[string]float64{"head_tsv": headLen, "body_tsv": bodyLen}, nil
}

// tsLexeme is the lexeme of a tsquery's text when the query is that one
// lexeme, unweighted, maybe a prefix ('word' or 'word':*, quotes and
// backslashes doubled, as PostgreSQL prints it).
func tsLexeme(q string) (lexeme string, prefix, ok bool) {
	q, prefix = strings.CutSuffix(q, ":*")
	if len(q) < 2 || q[0] != '\'' || q[len(q)-1] != '\'' {
		return "", false, false
	}
	var b strings.Builder
	in := q[1 : len(q)-1]
	for i := 0; i < len(in); i++ {
		c := in[i]
		if c == '\'' || c == '\\' {
			if i+1 >= len(in) || in[i+1] != c {
				return "", false, false
			}
			i++
		}
		b.WriteByte(c)
	}
	return b.String(), prefix, true
}

// bm25IDF is FTS5's inverse document frequency of a word df of n
// documents hold, floored at a millionth as FTS5 floors it.
func bm25IDF(n, df int64) float64 {
	idf := math.Log((float64(n) - float64(df) + 0.5) / (float64(df) + 0.5))
	return max(idf, 1e-6)
}

// pgDocLen is the length of each document in words (kb_words).
var pgDocLen = map[string]string{
	"head_tsv": "n.head_len",
	"body_tsv": "n.body_len",
}

// BM25's parameters, FTS5's defaults.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// pgScored lists up to n of the newest notes in scope holding any of the
// terms in doc, scored by BM25 as FTS5's bm25() scores (negated: lower is
// better). A term's frequency is ts_rank_cd of the term alone with
// normalisation 0 — the sum of the weights of its positions, FTS5's
// column-weighted count; a document's length is its number of words, stop
// words included, as FTS5 counts tokens.
func pgScored(ctx context.Context, s *Store, doc string, terms []pgTerm, avgLen float64, sc scope, n int) ([]scoredHit, error) {
	where, scopeArgs := sc.filter()
	var args []any
	var tfs, score, match []string
	norm := fmt.Sprintf("%g * (%g + %g * x.dl / %g)", bm25K1, 1-bm25B, bm25B, max(avgLen, 1))
	for i, t := range terms {
		idf := t.bodyIDF
		if doc == "head_tsv" {
			idf = t.headIDF
		}
		args = append(args, t.query)
		q := tsq(i + 1)
		match = append(match, q)
		tf := fmt.Sprintf("x.tf%d", i)
		tfs = append(tfs, fmt.Sprintf("10 * ts_rank_cd(%s, n.%s, %s, 0) AS tf%d", tsRankWeights, doc, q, i))
		score = append(score, fmt.Sprintf("%s * %s * %g / (%s + %s)", strconv.FormatFloat(idf, 'g', 8, 64), tf, bm25K1+1, tf, norm))
	}
	// Scope and limit placeholders follow the words' numbered ones.
	query := "SELECT x.id, -(" + strings.Join(score, " + ") + "), x.search_prior FROM (SELECT n.id, n.search_prior, " + pgDocLen[doc] + " AS dl, " +
		strings.Join(tfs, ", ") + " FROM notes n WHERE n." + doc + " @@ (" + strings.Join(match, " || ") + ") AND " + where +
		" ORDER BY n.id DESC LIMIT ?) x"
	args = append(append(args, scopeArgs...), n)
	return queryScored(ctx, s, query, args)
}

// pgNewest lists the newest notes in scope whose bodies hold all the
// words (their tsqueries' texts), else any of them.
func pgNewest(ctx context.Context, s *Store, words []string, sc scope, k int) ([]hit, error) {
	where, scopeArgs := sc.filter()
	var qs []string
	var args []any
	for i, w := range words {
		qs = append(qs, tsq(i+1))
		args = append(args, w)
	}
	args = append(append(args, scopeArgs...), k)
	ops := []string{" && "}
	if len(words) > 1 {
		ops = append(ops, " || ")
	}
	for _, op := range ops {
		scored, err := queryScored(ctx, s, "SELECT n.id, 0, n.search_prior FROM notes n WHERE n.body_tsv @@ ("+
			strings.Join(qs, op)+") AND "+where+" ORDER BY n.id DESC LIMIT ?", args)
		if err != nil {
			return nil, err
		}
		if len(scored) > 0 {
			return ftsHits(scored), nil
		}
	}
	return nil, nil
}

func queryScored(ctx context.Context, s *Store, query string, args []any) ([]scoredHit, error) {
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("full-text search: %w", err)
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

// mergeScored adds up each note's scores (times its prior) over the lists
// and keeps the best k, lowest first, ties by id; byID marks the notes of
// every list.
func mergeScored(lists [][]scoredHit, k int) ([]hit, map[int64]bool) {
	byID := map[int64]*hit{}
	var order []*hit
	for _, scored := range lists {
		for _, sh := range scored {
			h := byID[sh.id]
			if h == nil {
				h = &hit{id: sh.id, fts: true}
				byID[sh.id] = h
				order = append(order, h)
			}
			h.score += sh.score * sh.prior
		}
	}
	slices.SortFunc(order, func(a, b *hit) int {
		if c := cmp.Compare(a.score, b.score); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	})
	out := make([]hit, 0, min(k, len(order)))
	for _, h := range order[:min(k, len(order))] {
		out = append(out, *h)
	}
	seen := make(map[int64]bool, len(byID))
	for id := range byID {
		seen[id] = true
	}
	return out, seen
}
