package kb

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/yagent/yagent/internal/pgtest"
)

func TestDollarPlaceholders(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"SELECT 1", "SELECT 1"},
		{"WHERE a = ? AND b = ?", "WHERE a = $1 AND b = $2"},
		{"WHERE a = ?1 AND b = ?2 OR a = ?1", "WHERE a = $1 AND b = $2 OR a = $1"},
		// A bare ? after numbered ones takes the next number, as in SQLite.
		{"WHERE d = ?1 AND k >= ? AND k < ? UNION ALL SELECT d = ?1 AND k >= ?", "WHERE d = $1 AND k >= $2 AND k < $3 UNION ALL SELECT d = $1 AND k >= $4"},
		{"WHERE t = '?' AND u = ?", "WHERE t = '?' AND u = $1"},
		{`SELECT "a?" FROM links INDEXED BY links_pending WHERE x = ?`, `SELECT "a?" FROM links WHERE x = $1`},
	} {
		if got := dollarPlaceholders(tc.in); got != tc.want {
			t.Errorf("dollarPlaceholders(%q) = %q; want %q", tc.in, got, tc.want)
		}
	}
}

// TestOpenPostgresUnreachable pins the bad-input error for a database that
// cannot be reached: ErrUnreachable, naming the address, password masked
// (config.MaskDSN) wherever the address holds it.
func TestOpenPostgresUnreachable(t *testing.T) {
	for _, tc := range []struct{ dsn, shown string }{
		{"postgres://kb:s3cret@127.0.0.1:1/team?connect_timeout=5", "kb:xxxxx@127.0.0.1:1/team"},
		{"postgres://kb@127.0.0.1:1/team?password=s3cret&connect_timeout=5", "kb@127.0.0.1:1/team?connect_timeout=5&password=xxxxx"},
		{"postgresql://kb@127.0.0.1:1/team?sslpassword=s3cret&connect_timeout=5", "kb@127.0.0.1:1/team"},
	} {
		_, err := OpenPostgres(t.Context(), tc.dsn, Options{})
		if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), tc.shown) || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("OpenPostgres(%s, closed port) = %v; want ErrUnreachable naming %s, no password", tc.dsn, err, tc.shown)
		}
	}
	if _, err := OpenPostgres(t.Context(), "postgres://kb:s3cret@[::1", Options{}); !errors.Is(err, ErrUnreachable) || strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("OpenPostgres(bad DSN) = %v; want ErrUnreachable without the password", err)
	}
}

// TestOpenPostgresRefusals pins that a schema from a newer yagent, or a
// yagent_kb schema that is no knowledge base, is refused untouched.
func TestOpenPostgresRefusals(t *testing.T) {
	ctx := context.Background()
	exec := func(t *testing.T, dsn, sql string) {
		t.Helper()
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("newer", func(t *testing.T) {
		dsn := pgtest.New(t)
		s, err := OpenPostgres(ctx, dsn, Options{})
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		exec(t, dsn, "INSERT INTO yagent_kb.schema_version VALUES (99, 0)")
		_, err = OpenPostgres(ctx, dsn, Options{})
		if !errors.Is(err, ErrNewerSchema) || !strings.Contains(err.Error(), "version 99") || !strings.Contains(err.Error(), fmt.Sprintf("up to %d", PostgresSchemaVersion())) {
			t.Fatalf("OpenPostgres(newer) = %v; want ErrNewerSchema naming versions 99 and %d", err, PostgresSchemaVersion())
		}
	})
	t.Run("foreign", func(t *testing.T) {
		dsn := pgtest.New(t)
		exec(t, dsn, "CREATE SCHEMA yagent_kb; CREATE TABLE yagent_kb.notes (x int)")
		_, err := OpenPostgres(ctx, dsn, Options{})
		if err == nil || !strings.Contains(err.Error(), "not a yagent knowledge base") {
			t.Fatalf("OpenPostgres(foreign schema) = %v; want a refusal", err)
		}
		exec(t, dsn, "SELECT x FROM yagent_kb.notes") // still there, unchanged
	})
	t.Run("replicas migrate once", func(t *testing.T) {
		dsn := pgtest.New(t)
		errs := make(chan error, 4)
		for range 4 {
			go func() {
				s, err := OpenPostgres(ctx, dsn, Options{})
				if err == nil {
					s.Close()
				}
				errs <- err
			}()
		}
		for range 4 {
			if err := <-errs; err != nil {
				t.Fatalf("concurrent OpenPostgres: %v", err)
			}
		}
	})
}

// TestPostgresMigrationsFrozen fails when a released PostgreSQL migration
// changes: databases already at that version would never see the change.
// Add a new file instead (and its sum here).
func TestPostgresMigrationsFrozen(t *testing.T) {
	want := map[int]string{
		1: "e73800503d1d8f14396a07bfb42110cbb8f068fe7306edeccd86e2a228841af7",
		2: "7b3ad990c945582307fdd9578aaea9ddb8721cc8d3ed43d11cb945699a2b8bde",
	}
	for i, step := range pgMigrations() {
		sum := sha256.Sum256([]byte(step))
		if got := hex.EncodeToString(sum[:]); want[i+1] != got {
			t.Errorf("postgres migration %d has sha256 %s; want %q (released migrations are frozen)", i+1, got, want[i+1])
		}
	}
}

// TestPostgresTermCounts checks note_terms, the document frequencies
// search weighs words by without reading notes, against the notes
// themselves after every kind of write: create, edit, trash (an update
// that leaves the documents), and emptying the trash (a delete).
func TestPostgresTermCounts(t *testing.T) {
	t.Parallel()
	f := newFixture(t, postgresBackend, Options{})
	ctx := t.Context()
	check := func(step string) {
		t.Helper()
		var diff int
		if err := f.s.db.QueryRowContext(ctx, `SELECT count(*) FROM (
			SELECT doc, lexeme, ndoc FROM note_terms WHERE ndoc <> 0
			EXCEPT ALL
			SELECT d.doc, d.lexeme, count(*) FROM notes n,
				LATERAL (SELECT 'h'::"char" AS doc, l AS lexeme FROM unnest(tsvector_to_array(n.head_tsv)) l
					UNION ALL SELECT 'b', l FROM unnest(tsvector_to_array(n.body_tsv)) l) d
			GROUP BY d.doc, d.lexeme) x`).Scan(&diff); err != nil {
			t.Fatal(err)
		}
		var missing int
		if err := f.s.db.QueryRowContext(ctx, `SELECT count(*) FROM notes n, unnest(tsvector_to_array(n.body_tsv)) l
			WHERE NOT EXISTS (SELECT 1 FROM note_terms WHERE doc = 'b' AND lexeme = l AND ndoc > 0)`).Scan(&missing); err != nil {
			t.Fatal(err)
		}
		if diff != 0 || missing != 0 {
			t.Fatalf("after %s: %d note_terms rows disagree with the notes, %d body lexemes missing", step, diff, missing)
		}
		// Search's document frequencies are the notes' counts, for a
		// word, a Russian prefix one lexeme or several have, a stop word.
		words := []string{"release", "откат", "откатываем", "релиз", "the", "budget"}
		terms, _, err := pgPlan(ctx, f.s, words)
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range words {
			var head, body int64
			if err := f.s.db.QueryRowContext(ctx, "SELECT count(*) FILTER (WHERE head_tsv @@ kb_query(?1)), count(*) FILTER (WHERE body_tsv @@ kb_query(?1)) FROM notes", w).Scan(&head, &body); err != nil {
				t.Fatal(err)
			}
			if terms[i].headDF != head || terms[i].bodyDF != body {
				t.Errorf("after %s: pgPlan(%q) counts %d, %d notes; want %d, %d", step, w, terms[i].headDF, terms[i].bodyDF, head, body)
			}
		}
	}
	a := f.create(t, "acme/web", "# Rollback plan\n\nRoll back the release with the pipeline.")
	b := f.create(t, "acme/web", "# Откат релиза\n\nОткатываем релиз через пайплайн.")
	f.create(t, "acme/web", "# Cache budget\n\nThe latency budget of the cache.")
	f.create(t, "acme/web", "# Откаты\n\nОткат и откаты, откатываем релизы.")
	check("create")
	if _, err := f.s.EditNote(ctx, f.agent, EditNoteInput{ID: a.ID, VersionToken: a.VersionToken, Mode: "replace", Content: "Restore the backup instead."}); err != nil {
		t.Fatal(err)
	}
	check("edit")
	if _, err := f.s.DeleteNote(ctx, f.agent, DeleteNoteInput{ID: b.ID}); err != nil {
		t.Fatal(err)
	}
	check("trash")
	if n, err := f.s.TrashEmpty(ctx, f.person, "acme/web"); err != nil || n != 1 {
		t.Fatalf("TrashEmpty = %d, %v; want 1", n, err)
	}
	check("empty trash")
	var ndoc int64
	if err := f.s.db.QueryRowContext(ctx, "SELECT ndoc FROM note_terms WHERE doc = 'b' AND lexeme = 'пайплайн'").Scan(&ndoc); err != nil || ndoc != 0 {
		t.Fatalf("ndoc of пайплайн after its only note left = %d, %v; want 0", ndoc, err)
	}
}

func TestTsLexeme(t *testing.T) {
	for _, tc := range []struct {
		in, want   string
		prefix, ok bool
	}{
		{"'databas'", "databas", false, true},
		{"'o''brien'", "o'brien", false, true},
		{`'a\\b'`, `a\b`, false, true},
		{"'откат':*", "откат", true, true},
		{"'roll' & 'back'", "", false, false},
		{"'roll':* & 'back':*", "", false, false},
		{"'databas':A", "", false, false},
		{"'databas':*A", "", false, false},
		{"", "", false, false},
		{"'a'b'", "", false, false},
	} {
		got, prefix, ok := tsLexeme(tc.in)
		if got != tc.want || prefix != tc.prefix || ok != tc.ok {
			t.Errorf("tsLexeme(%q) = %q, %v, %v; want %q, %v, %v", tc.in, got, prefix, ok, tc.want, tc.prefix, tc.ok)
		}
	}
}
