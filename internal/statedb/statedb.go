// Package statedb opens yagent's state database ($YAGENT_HOME/state.db):
// SQLite through the pure-Go modernc.org/sqlite driver, in WAL mode with a
// busy timeout, so several yagent processes can use it at once.
//
// Every table of every package is created by the versioned migrations in
// this package, run on open inside one immediate transaction (two processes
// opening a fresh file cannot both migrate). A database written by a newer
// yagent, or one that is damaged, is refused with an error naming the file,
// and is never modified. So is a database yagent did not create (it holds
// other tables), and — with RefuseFresh — an empty or missing one while
// data that belongs to it exists: state that looks new but is not is never
// a silent fresh start. A directory that cannot be written says it is
// read-only.
package statedb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"modernc.org/sqlite" // also registers the "sqlite" driver
	sqlite3 "modernc.org/sqlite/lib"
)

// DB is an open state database.
type DB struct {
	*sql.DB
	Path string

	inUse func() string // RefuseFresh
	// existed and size describe the file before Open touched it.
	existed bool
	size    int64
}

// Errors of a database Open refuses.
var (
	// ErrNewerSchema reports a database written by a newer yagent.
	ErrNewerSchema = errors.New("written by a newer yagent")
	// ErrNotYagent reports a SQLite database of another program.
	ErrNotYagent = errors.New("not a yagent state database")
	// ErrLooksNew reports a missing or empty database while data that
	// belongs to it exists (RefuseFresh).
	ErrLooksNew = errors.New("looks new but is not")
	// ErrReadOnly is wrapped by the error of a directory or file yagent
	// cannot write to.
	ErrReadOnly = errors.New("read-only")
)

// Option configures Open.
type Option func(*DB)

// RefuseFresh makes Open ask inUse before it creates the schema in a
// database that has none (a new file, or one of zero bytes). When inUse
// names data that such a fresh start would leave out ("12 session rollouts
// exist under …"), Open refuses with ErrLooksNew and changes nothing.
func RefuseFresh(inUse func() string) Option {
	return func(db *DB) { db.inUse = inUse }
}

// Open opens (creating when missing) the database at path and migrates it.
func Open(ctx context.Context, path string, opts ...Option) (*DB, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("state database %s: %w", path, readOnly(filepath.Dir(path), err))
	}
	db := &DB{Path: path}
	for _, o := range opts {
		o(db)
	}
	if fi, err := os.Stat(path); err == nil {
		db.existed, db.size = true, fi.Size()
	}
	// A missing or empty file is decided before SQLite touches it.
	if (!db.existed || db.size == 0) && db.inUse != nil {
		if err := db.looksNew(); err != nil {
			return nil, err
		}
	}
	// journal_mode(WAL) is not among the pragmas of every connection: it
	// is persistent and set once the file is known to be ours (migrate),
	// so a database of another program is refused as it was.
	q := url.Values{}
	for _, p := range []string{"busy_timeout(10000)", "foreign_keys(1)", "synchronous(NORMAL)"} {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate")
	sqldb, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("state database %s: %w", path, err)
	}
	db.DB = sqldb
	if err := db.migrate(ctx); err != nil {
		sqldb.Close()
		return nil, err
	}
	return db, nil
}

// CheckWritable reports, wrapping ErrReadOnly, when no file can be created
// in dir (a read-only file system, permissions, an immutable directory);
// nil when one can, or when the probe fails for another reason.
func CheckWritable(dir string) error {
	f, err := os.CreateTemp(dir, ".yagent-probe-")
	if err == nil {
		f.Close()
		os.Remove(f.Name())
		return nil
	}
	if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) {
		return fmt.Errorf("%s is %w (%v): make it writable, or set YAGENT_HOME to a writable directory", dir, ErrReadOnly, err)
	}
	return nil
}

// readOnly returns err, or what CheckWritable says of dir when dir cannot
// be written.
func readOnly(dir string, err error) error {
	if ro := CheckWritable(dir); ro != nil {
		return ro
	}
	return err
}

func (db *DB) damaged(err error) error {
	if strings.Contains(err.Error(), "readonly") {
		return fmt.Errorf("state database %s is %w (%v): make it writable, or set YAGENT_HOME to a writable directory", db.Path, ErrReadOnly, err)
	}
	if !isNotADatabase(err) {
		return fmt.Errorf("state database %s: %w", db.Path, readOnly(filepath.Dir(db.Path), err))
	}
	return fmt.Errorf("state database %s is unreadable (%v): move it aside to start afresh — yagent did not change it", db.Path, err)
}

// migrate brings the schema to the newest version.
func (db *DB) migrate(ctx context.Context) error {
	version, tables, err := db.schema(ctx)
	if err != nil {
		return err
	}
	if version > len(migrations) {
		return fmt.Errorf("state database %s is %w (schema %d; this one knows %d): upgrade yagent — the file was not changed", db.Path, ErrNewerSchema, version, len(migrations))
	}
	if err := db.checkOwn(version, tables); err != nil {
		return err
	}
	if err := db.switchToWAL(ctx); err != nil {
		return err
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

// schema reads the schema version and the names of the tables in one
// statement, so both come from one snapshot: read apart, another process's
// migration committed between them shows a yagent database as foreign
// (version 0 with tables).
func (db *DB) schema(ctx context.Context) (version int, tables []string, err error) {
	rows, err := db.QueryContext(ctx, `SELECT v.user_version, m.name FROM pragma_user_version AS v
		LEFT JOIN sqlite_master AS m ON m.type = 'table' AND m.name NOT LIKE 'sqlite\_%' ESCAPE '\'
		ORDER BY m.name`)
	if err != nil {
		return 0, nil, db.damaged(err)
	}
	defer rows.Close()
	for rows.Next() {
		var name sql.NullString
		if err := rows.Scan(&version, &name); err != nil {
			return 0, nil, db.damaged(err)
		}
		if name.Valid {
			tables = append(tables, name.String)
		}
	}
	if err := rows.Err(); err != nil {
		return 0, nil, db.damaged(err)
	}
	return version, tables, nil
}

// walWait bounds how long Open retries the switch to WAL while another
// connection holds the lock; the busy timeout's length.
const walWait = 10 * time.Second

// switchToWAL puts the file in WAL mode (persistent, so once per file).
// The switch reads the header under a read lock, then upgrades to an
// exclusive one; SQLite answers SQLITE_BUSY to an upgrade at once, without
// the busy handler (waiting could deadlock two upgraders), so several
// processes opening a fresh file together would fail at random. The
// statement ends, which drops the read lock, and is retried with backoff.
func (db *DB) switchToWAL(ctx context.Context) error {
	deadline := time.Now().Add(walWait)
	backoff := time.Millisecond
	for {
		var mode string
		err := db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode)
		if err == nil && strings.EqualFold(mode, "wal") {
			return nil
		}
		if err == nil {
			err = db.QueryRowContext(ctx, "PRAGMA journal_mode = WAL").Scan(&mode)
		}
		if err == nil || !isBusy(err) || time.Now().After(deadline) {
			if err != nil {
				return db.damaged(err)
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("state database %s: %w", db.Path, ctx.Err())
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 100*time.Millisecond)
	}
}

func isBusy(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_BUSY
}

// checkOwn refuses a database yagent did not create, and (RefuseFresh) an
// empty one while data that belongs to it exists. Migration 1 creates the
// chats table; a yagent database at version 0 has no tables at all.
func (db *DB) checkOwn(version int, tables []string) error {
	foreign := version == 0 && len(tables) > 0 || version > 0 && !slices.Contains(tables, "chats")
	if foreign {
		if len(tables) > 5 {
			tables = append(tables[:5], "…")
		}
		return fmt.Errorf("state database %s is %w: it is a SQLite database of another program (tables: %s; schema version %d): move it aside or set YAGENT_HOME to another directory — yagent did not change it",
			db.Path, ErrNotYagent, strings.Join(tables, ", "), version)
	}
	if version > 0 || db.inUse == nil {
		return nil
	}
	return db.looksNew()
}

// looksNew refuses a database without a schema (missing, empty, or a bare
// SQLite header) while inUse names data that belongs to it.
func (db *DB) looksNew() error {
	what := db.inUse()
	if what == "" {
		return nil
	}
	state := "missing"
	if db.existed {
		state = fmt.Sprintf("empty (%d bytes, no tables)", db.size)
	}
	return fmt.Errorf("state database %s %w: it is %s, but %s: a fresh database would lose track of them. Restore state.db from a backup, or move them aside to start afresh — yagent changed nothing",
		db.Path, ErrLooksNew, state, what)
}

func isNotADatabase(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "not a database") || strings.Contains(msg, "malformed") || strings.Contains(msg, "SQLITE_NOTADB") || strings.Contains(msg, "SQLITE_CORRUPT")
}

// Version returns the schema version this code writes.
func Version() int { return len(migrations) }
