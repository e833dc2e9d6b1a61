package kb

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOpenCreatesSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kb.db")
	s, err := Open(t.Context(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var uv, rows int
	if err := s.db.QueryRow("PRAGMA user_version").Scan(&uv); err != nil {
		t.Fatal(err)
	}
	if err := s.db.QueryRow("SELECT count(*) FROM schema_version").Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if uv != SchemaVersion() || rows != SchemaVersion() {
		t.Errorf("user_version = %d, schema_version rows = %d; want %d", uv, rows, SchemaVersion())
	}
	var mode string
	if err := s.db.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q, %v; want wal", mode, err)
	}
	if _, err := s.CreatePrincipal(t.Context(), "bob"); err != nil {
		t.Fatal(err)
	}
	s.Close()

	// Reopening migrates nothing and keeps the data.
	s, err = Open(t.Context(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ps, err := s.Principals(t.Context())
	if err != nil || len(ps) != 1 || ps[0].Name != "bob" {
		t.Errorf("Principals after reopen = %v, %v; want [bob]", ps, err)
	}
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	// A database from a future yagent, still in rollback-journal mode: even
	// switching it to WAL would be a change.
	path := filepath.Join(t.TempDir(), "kb.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE schema_version(version INTEGER); PRAGMA user_version = 99"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	before := readAll(t, path)

	_, err = Open(t.Context(), path, Options{})
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "newer") {
		t.Fatalf("Open(newer schema) = %v; want an error naming %s and 'newer'", err, path)
	}
	if !bytes.Equal(before, readAll(t, path)) {
		t.Error("Open changed a database with a newer schema")
	}
}

func TestOpenRefusesCorruptFile(t *testing.T) {
	for _, tc := range []struct{ name, content string }{
		{"text", "this is not a database\n"},
		{"truncated header", "SQLite form"},
		{"damaged after the header", sqliteMagic + strings.Repeat("\xff\x00garbage", 300)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "kb.db")
			if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Open(t.Context(), path, Options{})
			if err == nil || !strings.Contains(err.Error(), path) {
				t.Fatalf("Open(%s) = %v; want an error naming the path", tc.name, err)
			}
			if got := string(readAll(t, path)); got != tc.content {
				t.Errorf("file changed to %q", got)
			}
			if _, err := os.Stat(path + "-wal"); err == nil {
				t.Error("Open left a -wal file beside a refused file")
			}
		})
	}
}

func TestOpenRefusesForeignDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "other.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE t(x)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = Open(context.Background(), path, Options{})
	if err == nil || !strings.Contains(err.Error(), "not a yagent knowledge base") {
		t.Fatalf("Open(foreign db) = %v; want a 'not a yagent knowledge base' error", err)
	}
	var n int
	db, _ = sql.Open("sqlite", path)
	defer db.Close()
	if err := db.QueryRow("SELECT count(*) FROM sqlite_master").Scan(&n); err != nil || n != 1 {
		t.Errorf("foreign database has %d schema objects (%v); want 1, untouched", n, err)
	}
}

func readAll(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestMigrationsFrozen fails when a released migration changes: databases
// already at that version would never see the change. Add a new file instead
// (and its sum here).
func TestMigrationsFrozen(t *testing.T) {
	want := map[int]string{
		1: "e5d78f3b639e916163bf0b5234b3309e549b5eeade7281e09b3771e5c0047f75",
		2: "e23ecc3f5174a0035f878fd1f7212a747a0729e4306fbebc2fac9a499b710063",
		3: "1c335ecb8c4c334f982b6343a1a5143f6a13da08464c1d9250134db289f157c8",
		4: "f4177532a85bd1e61c9ffa5de967e0e5a7b10de20df4cc31456075989d763c78",
	}
	for i, step := range migrations() {
		sum := sha256.Sum256([]byte(step))
		got := hex.EncodeToString(sum[:])
		if w, ok := want[i+1]; !ok || w != got {
			t.Errorf("migration %d has sha256 %s; want %q (released migrations are frozen)", i+1, got, w)
		}
	}
}

// TestOpenMigratesFromV1 opens a version-1 database holding a note and a
// vector and checks the later migrations: sign bits filled (2), the
// full-text index rebuilt with ё folded (3).
func TestOpenMigratesFromV1(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kb.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	v1 := migrations()[0] + `
		INSERT INTO schema_version VALUES (1, 0);
		INSERT INTO principals VALUES (1, 'old', 0);
		INSERT INTO domains(id, owner_id) VALUES (1, 1);
		INSERT INTO notes(id, domain_id, class, version, content_hash, created_at, updated_at, title, title_key, body)
			VALUES (1, 1, 'user-doc', 1, 'h', 0, 0, 'Ёлка', 'ёлка', 'b');
		INSERT INTO notes(id, domain_id, class, version, content_hash, created_at, updated_at, folder, title, title_key, body)
			VALUES (2, 1, 'user-doc', 1, 'h', 0, 0, 'Release notes', 'Changelog 2.0', 'changelog 2.0', 'Intro.

## Install the tree

Text.');
		INSERT INTO title_aliases VALUES (1, 'old title', 'Old title', 2, 7);
		PRAGMA user_version = 1;`
	if _, err := db.Exec(v1); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("INSERT INTO note_vectors VALUES (1, 1, NULL, 'm', 8, 'h', ?)", encodeVector([]float32{1, -1, 1, -1, 1, -1, 1, -1})); err != nil {
		t.Fatal(err)
	}
	db.Close()

	s, err := Open(t.Context(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var uv int
	var bits []byte
	s.db.QueryRow("PRAGMA user_version").Scan(&uv)
	if err := s.db.QueryRow("SELECT bits FROM note_vector_bits WHERE note_id = 1").Scan(&bits); err != nil {
		t.Fatal(err)
	}
	if uv != SchemaVersion() || len(bits) != 1 || bits[0] != 0b01010101 {
		t.Errorf("after migration: user_version %d, bits %08b; want %d and 01010101", uv, bits, SchemaVersion())
	}
	var hit int64
	if err := s.db.QueryRow(`SELECT rowid FROM notes_head_fts WHERE notes_head_fts MATCH '"елка"'`).Scan(&hit); err != nil || hit != 1 {
		t.Errorf("full-text lookup of the migrated note = %d, %v; want note 1", hit, err)
	}
	// 4: the former title kept (as one), headings and the search prior
	// computed for the notes already there, headings searchable on their own.
	var alias, kind string
	var aliasNote, aliasAt int64
	if err := s.db.QueryRow("SELECT title, kind, note_id, created_at FROM title_aliases").Scan(&alias, &kind, &aliasNote, &aliasAt); err != nil ||
		alias != "Old title" || kind != "former" || aliasNote != 2 || aliasAt != 7 {
		t.Errorf("title alias after migration = %q %q n%d at %d, %v", alias, kind, aliasNote, aliasAt, err)
	}
	var headings string
	var prior float64
	if err := s.db.QueryRow("SELECT headings, search_prior FROM notes WHERE id = 2").Scan(&headings, &prior); err != nil ||
		headings != "Install the tree" || prior != priorChangelog {
		t.Errorf("derived columns of note 2 = %q, %v, %v; want its heading and the changelog prior", headings, prior, err)
	}
	if err := s.db.QueryRow(`SELECT rowid FROM notes_head_fts WHERE notes_head_fts MATCH '{headings} : "install"'`).Scan(&hit); err != nil || hit != 2 {
		t.Errorf("headings lookup = %d, %v; want note 2", hit, err)
	}
}
