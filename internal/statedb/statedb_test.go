package statedb

import (
	"bytes"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestOpenMigratesOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	for range 2 {
		db, err := Open(t.Context(), path)
		if err != nil {
			t.Fatal(err)
		}
		var v int
		if err := db.QueryRow("PRAGMA user_version").Scan(&v); err != nil || v != Version() {
			t.Fatalf("user_version = %d, %v; want %d", v, err, Version())
		}
		var mode string
		if err := db.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
			t.Errorf("journal_mode = %q; want wal", mode)
		}
		db.Close()
	}
}

// TestNewerSchemaRefusedUntouched pins that a database from a newer yagent
// is refused with a clear error and never modified.
func TestNewerSchemaRefusedUntouched(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	db, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("PRAGMA user_version = 999"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	before, _ := os.ReadFile(path)
	_, err = Open(t.Context(), path)
	if !errors.Is(err, ErrNewerSchema) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "upgrade yagent") {
		t.Fatalf("Open of a newer schema = %v", err)
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(before, after) {
		t.Error("a newer-schema database was modified")
	}
}

// TestDamagedRefusedUntouched pins that a damaged file is refused, named,
// and left as it was.
func TestDamagedRefusedUntouched(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	junk := bytes.Repeat([]byte("this is not sqlite "), 400)
	if err := os.WriteFile(path, junk, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Open(t.Context(), path)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "did not change it") {
		t.Fatalf("Open of a damaged file = %v", err)
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(junk, after) {
		t.Error("a damaged database was modified")
	}
}

// TestConcurrentOpen opens one fresh database from many goroutines at once
// (as several yagent processes would), released together by a barrier, on
// several fresh files: all succeed, the schema is applied once. The first
// opens race to switch the file to WAL; that switch upgrades a read lock to
// a write lock, for which SQLite returns SQLITE_BUSY at once instead of
// waiting out the busy timeout.
func TestConcurrentOpen(t *testing.T) {
	const rounds, openers = 10, 16
	for round := range rounds {
		path := filepath.Join(t.TempDir(), "state.db")
		var wg sync.WaitGroup
		start := make(chan struct{})
		errs := make(chan error, openers)
		for range openers {
			wg.Go(func() {
				<-start
				db, err := Open(t.Context(), path)
				if err == nil {
					_, err = db.Exec("INSERT INTO chats(id, kind, rollout, created, updated, board_id) VALUES (hex(randomblob(8)), 'run', 'r', 1, 1, 'b')")
					db.Close()
				}
				errs <- err
			})
		}
		close(start)
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
		db, err := Open(t.Context(), path)
		if err != nil {
			t.Fatal(err)
		}
		var n int
		if err := db.QueryRow("SELECT count(*) FROM chats").Scan(&n); err != nil || n != openers {
			t.Errorf("round %d: %d chats, %v; want %d (one per opener)", round, n, err, openers)
		}
		db.Close()
	}
}

func inUse(what string) Option { return RefuseFresh(func() string { return what }) }

// TestLooksNewRefusedUntouched: a missing or zero-length database while
// data that belongs to it exists is refused, saying so, and nothing is
// created or changed; without such data it starts afresh.
func TestLooksNewRefusedUntouched(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.db")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Open(t.Context(), empty, inUse("3 session rollouts exist under /h/sessions"))
	if !errors.Is(err, ErrLooksNew) || !strings.Contains(err.Error(), empty+" looks new but is not: it is empty (0 bytes, no tables), but 3 session rollouts exist under /h/sessions") {
		t.Errorf("Open of a zero-length database = %v", err)
	}
	if fi, err := os.Stat(empty); err != nil || fi.Size() != 0 {
		t.Errorf("the zero-length database changed: %v, %v", fi, err)
	}
	missing := filepath.Join(dir, "missing.db")
	if _, err := Open(t.Context(), missing, inUse("3 session rollouts")); !errors.Is(err, ErrLooksNew) || !strings.Contains(err.Error(), "it is missing, but 3 session rollouts") {
		t.Errorf("Open of a missing database = %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("refusing created files: %v", entries)
	}
	// No data: a fresh start. And a database with its schema is not new.
	db, err := Open(t.Context(), missing, inUse(""))
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	db, err = Open(t.Context(), missing, inUse("3 session rollouts"))
	if err != nil {
		t.Fatalf("Open of a migrated database = %v", err)
	}
	db.Close()
}

// TestForeignRefusedUntouched: a SQLite database of another program is
// refused, named, and not changed (not even its journal mode).
func TestForeignRefusedUntouched(t *testing.T) {
	for name, setup := range map[string]string{
		"version 0 with tables":     "CREATE TABLE bookmarks(url TEXT); INSERT INTO bookmarks VALUES ('x')",
		"a version and no sessions": "CREATE TABLE t(x); PRAGMA user_version = 2",
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state.db")
			other, err := sql.Open("sqlite", "file:"+path)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := other.Exec(setup); err != nil {
				t.Fatal(err)
			}
			other.Close()
			before, _ := os.ReadFile(path)
			_, err = Open(t.Context(), path, inUse(""))
			if !errors.Is(err, ErrNotYagent) || !strings.Contains(err.Error(), "it is a SQLite database of another program (tables: ") || !strings.Contains(err.Error(), "yagent did not change it") {
				t.Fatalf("Open of a foreign database = %v", err)
			}
			if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
				t.Error("a foreign database was modified")
			}
		})
	}
}

// TestReadOnlyHomeSaysSo: a state directory (or database file) yagent
// cannot write to is an error that says "read-only", whether the database
// exists yet or not.
func TestReadOnlyHomeSaysSo(t *testing.T) {
	t.Run("new database", func(t *testing.T) {
		dir := t.TempDir()
		makeReadOnly(t, dir)
		_, err := Open(t.Context(), filepath.Join(dir, "state.db"))
		if !errors.Is(err, ErrReadOnly) || !strings.Contains(err.Error(), dir+" is read-only (") || !strings.Contains(err.Error(), "set YAGENT_HOME to a writable directory") {
			t.Errorf("Open in a read-only directory = %v", err)
		}
	})
	t.Run("existing database", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "state.db")
		db, err := Open(t.Context(), path)
		if err != nil {
			t.Fatal(err)
		}
		db.Close()
		makeReadOnly(t, dir)
		if _, err := Open(t.Context(), path); !errors.Is(err, ErrReadOnly) {
			t.Errorf("Open of a database in a read-only directory = %v", err)
		}
	})
}
