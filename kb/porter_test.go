package kb

import (
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// porterWords are words whose stems exercise every step of the algorithm.
var porterWords = strings.Fields(`caresses ponies ties caress cats feed agreed plastered bled motoring sing
	conflated troubled sized hopping tanned falling hissing fizzed failing filing happy sky relational
	conditional rational valenci hesitanci digitizer conformabli radicalli differentli vileli analogousli
	vietnamization predication operator feudalism decisiveness hopefulness callousness formaliti
	sensitiviti sensibiliti triplicate formative formalize electriciti electrical hopeful goodness revival
	allowance inference airliner gyroscopic adjustable defensible irritant replacement adjustment dependent
	adoption homologou communism activate angulariti homologous effective bowdlerize probate rate cease
	controll roll generalizations oscillators analogies archaeology apology yes by say eye dying lying
	migration migrations policy policies database databases release releases rollback deploying deployed
	components component reactivity reactive watchers computed rendering teleport suspense hydration
	а1 x y ab abc 3d v3 2025 naïve café`)

// TestPorterStemMatchesSQLite holds porterStem to the stems SQLite's porter
// tokenizer writes into the index, for a fixed word list and every word of
// the vendored docs corpus.
func TestPorterStemMatchesSQLite(t *testing.T) {
	words := slices.Clone(porterWords)
	_ = filepath.WalkDir(filepath.Join("testdata", "relevance"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return nil
		}
		b, _ := os.ReadFile(p)
		words = append(words, textWords(string(b))...)
		return nil
	})
	slices.Sort(words)
	words = slices.Compact(words)
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE VIRTUAL TABLE w USING fts5(x, tokenize = 'porter unicode61 remove_diacritics 2');
		CREATE VIRTUAL TABLE wv USING fts5vocab(w, 'instance')`); err != nil {
		t.Fatal(err)
	}
	tx, _ := db.Begin()
	for i, w := range words {
		if _, err := tx.Exec("INSERT INTO w(rowid, x) VALUES (?, ?)", i+1, w); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query("SELECT doc, term FROM wv")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	got := map[int]string{}
	for rows.Next() {
		var doc int
		var term string
		if err := rows.Scan(&doc, &term); err != nil {
			t.Fatal(err)
		}
		got[doc] += term
	}
	bad := 0
	for i, w := range words {
		if !isASCII(w) {
			continue // diacritics are folded by the tokenizer before stemming
		}
		if want := got[i+1]; porterStem(w) != want {
			bad++
			if bad <= 20 {
				t.Errorf("porterStem(%q) = %q; SQLite stores %q", w, porterStem(w), want)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d words stem differently", bad, len(words))
	}
	t.Logf("%d words compared", len(words))
}
