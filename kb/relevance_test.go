package kb

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// relevanceFloor is the share of queries whose wanted page must be first
// (top1) and among the first three (top3), per backend and language. They
// are the rates reached when the test was written; a change that ranks
// worse fails. PostgreSQL ranks with BM25 over ts_rank_cd frequencies and
// Snowball stems (see pgsearch.go), close to FTS5 but not identical.
var relevanceFloor = map[string]map[string]struct{ top1, top3 float64 }{
	"sqlite": {
		"en": {31.0 / 38, 38.0 / 38},
		"ru": {25.0 / 28, 27.0 / 28},
	},
	"postgres": {
		"en": {30.0 / 38, 38.0 / 38},
		"ru": {26.0 / 28, 28.0 / 28},
	},
}

type relevanceQuery struct {
	lang, query string
	want        []string // source paths, any of which counts
}

func readRelevanceQueries(t *testing.T) []relevanceQuery {
	t.Helper()
	file, err := os.Open(filepath.Join("testdata", "relevance", "queries.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	var out []relevanceQuery
	sc := bufio.NewScanner(file)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			t.Fatalf("queries.tsv: %q: want language, query and pages separated by tabs", line)
		}
		out = append(out, relevanceQuery{lang: f[0], query: f[1], want: strings.Split(f[2], " | ")})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSearchRelevance imports the Vue guide (English and Russian) and two
// Vue changelogs into one project and asks the queries of queries.tsv,
// people's questions with the page each wants. It reports the top-1 and
// top-3 hit rates per language and fails below relevanceFloor.
func TestSearchRelevance(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newFixture(t, be, Options{})
		rep, err := f.s.Import(t.Context(), f.agent, filepath.Join("testdata", "relevance"), "acme/web", ImportOptions{})
		if err != nil || len(rep.Errors) > 0 {
			t.Fatalf("import the corpus: %+v, %v", rep, err)
		}
		sources := map[string]string{} // note id -> source path
		rows, err := f.s.db.Query("SELECT id, source FROM notes WHERE source IS NOT NULL")
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var id int64
			var src string
			if err := rows.Scan(&id, &src); err != nil {
				t.Fatal(err)
			}
			sources[noteRef(id)] = src
		}
		rows.Close()

		type rate struct{ n, top1, top3 int }
		rates := map[string]*rate{}
		for _, q := range readRelevanceQueries(t) {
			r := rates[q.lang]
			if r == nil {
				r = &rate{}
				rates[q.lang] = r
			}
			r.n++
			out, err := f.s.Search(t.Context(), f.reader, SearchInput{Query: q.query, Project: "acme/web", Limit: 3})
			if err != nil {
				t.Fatalf("Search(%q): %v", q.query, err)
			}
			rank := 0
			var got []string
			for i, h := range out.Results {
				got = append(got, sources[h.ID])
				for _, w := range q.want {
					if sources[h.ID] == w && rank == 0 {
						rank = i + 1
					}
				}
			}
			switch {
			case rank == 1:
				r.top1++
				r.top3++
			case rank > 1:
				r.top3++
				t.Logf("%s %q: wanted page at %d: %v", q.lang, q.query, rank, got)
			default:
				t.Logf("%s %q: wanted %v, got %v", q.lang, q.query, q.want, got)
			}
		}
		for lang, r := range rates {
			top1, top3 := float64(r.top1)/float64(r.n), float64(r.top3)/float64(r.n)
			t.Logf("%s: %d queries, top-1 %.0f%% (%d), top-3 %.0f%% (%d)", lang, r.n, 100*top1, r.top1, 100*top3, r.top3)
			floor, ok := relevanceFloor[be.name][lang]
			if !ok {
				t.Errorf("no relevance floor for language %q", lang)
				continue
			}
			if top1 < floor.top1 || top3 < floor.top3 {
				t.Errorf("%s: top-1 %.2f, top-3 %.2f; the floor is %.2f, %.2f", lang, top1, top3, floor.top1, floor.top3)
			}
		}
	})
}
