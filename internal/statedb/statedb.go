// Package statedb opens yagent's state database ($YAGENT_HOME/state.db):
// SQLite through the pure-Go modernc.org/sqlite driver, in WAL mode with a
// busy timeout, so several yagent processes can use it at once.
//
// Every table of every package is created by the versioned migrations in
// this package, run on open inside one immediate transaction (two processes
// opening a fresh file cannot both migrate). A database written by a newer
// yagent, or one that is damaged, is refused with an error naming the file,
// and is never modified.
package statedb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// DB is an open state database.
type DB struct {
	*sql.DB
	Path string
}

// ErrNewerSchema reports a database written by a newer yagent.
var ErrNewerSchema = errors.New("written by a newer yagent")

// Open opens (creating when missing) the database at path and migrates it.
func Open(ctx context.Context, path string) (*DB, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("state database %s: %w", path, err)
	}
	q := url.Values{}
	for _, p := range []string{"journal_mode(WAL)", "busy_timeout(10000)", "foreign_keys(1)", "synchronous(NORMAL)"} {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate")
	sqldb, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("state database %s: %w", path, err)
	}
	db := &DB{DB: sqldb, Path: path}
	if err := db.migrate(ctx); err != nil {
		sqldb.Close()
		return nil, err
	}
	return db, nil
}

func (db *DB) damaged(err error) error {
	if !isNotADatabase(err) {
		return fmt.Errorf("state database %s: %w", db.Path, err)
	}
	return fmt.Errorf("state database %s is unreadable (%v): move it aside to start afresh — yagent did not change it", db.Path, err)
}

// migrate brings the schema to the newest version.
func (db *DB) migrate(ctx context.Context) error {
	var version int
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return db.damaged(err)
	}
	if version > len(migrations) {
		return fmt.Errorf("state database %s is %w (schema %d; this one knows %d): upgrade yagent — the file was not changed", db.Path, ErrNewerSchema, version, len(migrations))
	}
	if version == len(migrations) {
		return nil
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return db.damaged(err)
	}
	defer tx.Rollback()
	// Re-read inside the write lock: another process may have migrated.
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return db.damaged(err)
	}
	for v := version; v < len(migrations); v++ {
		if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
			if isNotADatabase(err) {
				return db.damaged(err)
			}
			return fmt.Errorf("state database %s: migration %d: %w", db.Path, v+1, err)
		}
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", len(migrations))); err != nil {
		return fmt.Errorf("state database %s: %w", db.Path, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("state database %s: %w", db.Path, err)
	}
	return nil
}

func isNotADatabase(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "not a database") || strings.Contains(msg, "malformed") || strings.Contains(msg, "SQLITE_NOTADB") || strings.Contains(msg, "SQLITE_CORRUPT")
}

// Version returns the schema version this code writes.
func Version() int { return len(migrations) }
