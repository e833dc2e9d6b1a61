package statedb

import (
	"bytes"
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
// (as several yagent processes would): all succeed, the schema is applied
// once.
func TestConcurrentOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			db, err := Open(t.Context(), path)
			if err == nil {
				_, err = db.Exec("INSERT INTO chats(id, kind, rollout, created, updated, board_id) VALUES (hex(randomblob(8)), 'run', 'r', 1, 1, 'b')")
				db.Close()
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}
