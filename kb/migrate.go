package kb

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strings"
)

//go:embed migrations/*.sql migrations/postgres/*.sql
var migrationFS embed.FS

// migrations returns the SQLite schema steps in order; step i brings the
// schema to version i+1. Files are named NNN_*.sql and are never edited
// once released.
func migrations() []string { return embeddedSteps("migrations/*.sql") }

// embeddedSteps reads the embedded files matching pattern, in name order.
func embeddedSteps(pattern string) []string {
	names, err := fs.Glob(migrationFS, pattern)
	if err != nil {
		panic(err) // the pattern is constant
	}
	sort.Strings(names)
	steps := make([]string, len(names))
	for i, name := range names {
		b, err := migrationFS.ReadFile(name)
		if err != nil {
			panic(err) // embedded files are always readable
		}
		steps[i] = string(b)
	}
	return steps
}

// SchemaVersion is the schema version this code writes.
func SchemaVersion() int { return len(migrations()) }

// migrate brings a SQLite schema up to SchemaVersion. The version lives
// both in PRAGMA user_version and in the schema_version table. Nothing is
// written before the file is known to be a knowledge base this code
// understands.
func (sqliteDialect) migrate(ctx context.Context, s *Store) error {
	var have int
	if err := s.db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&have); err != nil {
		return fmt.Errorf("open kb %s: read schema version: %w (is it a SQLite database? move it aside or pass another path)", s.path, err)
	}
	steps := migrations()
	if have > len(steps) {
		return fmt.Errorf("open kb %s: %w: schema version %d, this yagent understands up to %d; upgrade yagent, the file was left untouched", s.path, ErrNewerSchema, have, len(steps))
	}
	if have == 0 {
		var tables int
		err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE type = 'table'").Scan(&tables)
		if err != nil {
			return fmt.Errorf("open kb %s: %w", s.path, err)
		}
		if tables > 0 {
			return fmt.Errorf("open kb %s: a SQLite database that is not a yagent knowledge base (it has tables but no schema version); pass another path, the file was left untouched", s.path)
		}
	}
	// WAL is a property of the file, so it is set once here, after the file
	// has proved to be ours, rather than by every connection's DSN.
	var mode string
	if err := s.db.QueryRowContext(ctx, "PRAGMA journal_mode = WAL").Scan(&mode); err != nil {
		return fmt.Errorf("open kb %s: set WAL mode: %w", s.path, err)
	}
	for v := have + 1; v <= len(steps); v++ {
		err := s.inTx(ctx, func(tx *txn) error {
			if err := runStep(ctx, tx, steps[v-1]); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, "INSERT INTO schema_version(version, applied_at) VALUES (?, ?)", v, s.nowMicro()); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", v))
			return err
		})
		if err != nil {
			return fmt.Errorf("open kb %s: migrate to schema version %d: %w", s.path, v, err)
		}
	}
	return nil
}

// goStepMarker starts a line of a migration that runs a Go function between
// the SQL before it and the SQL after it, in the same transaction: for data
// only Go can compute (a Markdown body's headings).
const goStepMarker = "-- @go "

// goSteps are the Go functions migrations may name.
var goSteps = map[string]func(ctx context.Context, tx *txn) error{
	"fill_derived_columns": fillDerivedColumns,
}

// runStep executes one migration: its SQL, split at "-- @go NAME" lines
// into parts with the named Go functions run between them.
func runStep(ctx context.Context, tx *txn, step string) error {
	var part strings.Builder
	flush := func() error {
		if strings.TrimSpace(part.String()) == "" {
			return nil
		}
		_, err := tx.ExecContext(ctx, part.String())
		part.Reset()
		return err
	}
	for line := range strings.Lines(step) {
		name, isGo := strings.CutPrefix(strings.TrimSpace(line), goStepMarker)
		if !isGo {
			part.WriteString(line)
			continue
		}
		fn, ok := goSteps[strings.TrimSpace(name)]
		if !ok {
			return fmt.Errorf("migration names an unknown Go step %q", name)
		}
		if err := flush(); err != nil {
			return err
		}
		if err := fn(ctx, tx); err != nil {
			return fmt.Errorf("%s: %w", strings.TrimSpace(name), err)
		}
	}
	return flush()
}

// fillDerivedColumns computes the columns a write derives from a note's
// text (headings, search_prior) for the notes already stored.
func fillDerivedColumns(ctx context.Context, tx *txn) error {
	rows, err := tx.QueryContext(ctx, "SELECT id, class, folder, title, type, coalesce(source, ''), body FROM notes")
	if err != nil {
		return err
	}
	type derived struct {
		id       int64
		headings string
		prior    float64
	}
	var all []derived
	for rows.Next() {
		var n noteRow
		if err := rows.Scan(&n.ID, &n.Class, &n.Folder, &n.Title, &n.Type, &n.Source, &n.Body); err != nil {
			rows.Close()
			return err
		}
		all = append(all, derived{n.ID, headingText(n.Body), searchPrior(n)})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, d := range all {
		if _, err := tx.ExecContext(ctx, "UPDATE notes SET headings = ?, search_prior = ? WHERE id = ?", d.headings, d.prior, d.id); err != nil {
			return err
		}
	}
	return nil
}
