package kb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// ErrNotEmpty is returned by CopyTo when the target already holds a
// knowledge base: a copy never merges into one.
var ErrNotEmpty = errors.New("the target knowledge base is not empty")

// CopyReport says what CopyTo copied: rows per table, checked against the
// source after the copy committed.
type CopyReport struct {
	Rows map[string]int64 `json:"rows"`
}

// pgBoolColumns are columns SQLite keeps as 0/1 and PostgreSQL as boolean.
var pgBoolColumns = map[string][]string{"tokens": {"write", "scoped"}}

// identityTables have an id column PostgreSQL numbers itself.
var identityTables = []string{"principals", "spaces", "projects", "domains", "tokens", "notes", "links", "activity"}

// CopyTo copies everything in s — projects, spaces, principals, tokens,
// notes, revisions, links, aliases, attachments, trash, visits, activity
// and vectors, ids kept — into dst, an empty knowledge base on
// PostgreSQL, in one transaction, then checks that every table holds as
// many rows as in s. s is read in one read transaction (a consistent
// snapshot) and never changed. A target that holds any principal,
// project or note is refused with ErrNotEmpty; a failed copy leaves the
// target as it was.
func (s *Store) CopyTo(ctx context.Context, dst *Store, progress func(table string, rows int64)) (CopyReport, error) {
	if dst.d.name() != "postgres" {
		return CopyReport{}, fmt.Errorf("copy kb to %s: the target must be a PostgreSQL knowledge base", dst.path)
	}
	var held int64
	if err := dst.db.QueryRowContext(ctx, "SELECT (SELECT count(*) FROM principals) + (SELECT count(*) FROM projects) + (SELECT count(*) FROM notes)").Scan(&held); err != nil {
		return CopyReport{}, fmt.Errorf("copy kb to %s: %w", dst.path, err)
	}
	if held > 0 {
		return CopyReport{}, fmt.Errorf("copy kb to %s: %w (%d principals, projects and notes); copy into a new database, nothing was changed", dst.path, ErrNotEmpty, held)
	}
	src, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return CopyReport{}, fmt.Errorf("copy kb from %s: %w", s.path, err)
	}
	defer src.Rollback()
	want := map[string]int64{}
	for _, t := range dataTables {
		var n int64
		if err := src.QueryRowContext(ctx, "SELECT count(*) FROM "+t).Scan(&n); err != nil {
			return CopyReport{}, fmt.Errorf("copy kb from %s: count %s: %w", s.path, t, err)
		}
		want[t] = n
	}
	conn, err := dst.db.raw.Conn(ctx)
	if err != nil {
		return CopyReport{}, fmt.Errorf("copy kb to %s: %w", dst.path, err)
	}
	defer conn.Close()
	err = conn.Raw(func(driverConn any) error {
		pc := driverConn.(*stdlib.Conn).Conn()
		tx, err := pc.Begin(ctx)
		if err != nil {
			return err
		}
		defer tx.Rollback(ctx)
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", int64(pgWriteLock)); err != nil {
			return err
		}
		for _, t := range dataTables {
			n, err := copyTable(ctx, src, tx, t)
			if err != nil {
				return fmt.Errorf("table %s: %w", t, err)
			}
			if progress != nil {
				progress(t, n)
			}
		}
		for _, t := range identityTables {
			if _, err := tx.Exec(ctx, fmt.Sprintf("SELECT setval(pg_get_serial_sequence('%s.%s', 'id'), max(id)) FROM %s HAVING max(id) IS NOT NULL", pgSchema, t, t)); err != nil {
				return fmt.Errorf("table %s: number new rows after the copied ones: %w", t, err)
			}
		}
		return tx.Commit(ctx)
	})
	if err != nil {
		return CopyReport{}, fmt.Errorf("copy kb from %s to %s: %w (the target was left as it was)", s.path, dst.path, err)
	}
	if pd, ok := dst.d.(*pgDialect); ok {
		if err := pd.backfillVectors(ctx, dst); err != nil {
			return CopyReport{}, fmt.Errorf("copy kb to %s: %w", dst.path, err)
		}
	}
	// A bulk load leaves the planner without statistics until autovacuum
	// comes by: searches would scan whole tables until then.
	for _, t := range dataTables {
		if _, err := dst.db.raw.ExecContext(ctx, fmt.Sprintf("ANALYZE %s.%s", pgSchema, t)); err != nil {
			return CopyReport{}, fmt.Errorf("copy kb to %s: analyze %s: %w", dst.path, t, err)
		}
	}
	got, err := dst.Status(ctx)
	if err != nil {
		return CopyReport{}, err
	}
	var diffs []string
	for _, t := range dataTables {
		if got.Rows[t] != want[t] {
			diffs = append(diffs, fmt.Sprintf("%s: %d of %d rows", t, got.Rows[t], want[t]))
		}
	}
	if len(diffs) > 0 {
		return CopyReport{Rows: got.Rows}, fmt.Errorf("copy kb to %s: the copy does not match the source: %s", dst.path, strings.Join(diffs, "; "))
	}
	return CopyReport{Rows: got.Rows}, nil
}

// copyTable streams one table from src into tx with COPY.
func copyTable(ctx context.Context, src *txn, tx pgx.Tx, table string) (int64, error) {
	rows, err := src.QueryContext(ctx, "SELECT * FROM "+table)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return 0, err
	}
	var boolAt []int
	for i, c := range cols {
		if slices.Contains(pgBoolColumns[table], c) {
			boolAt = append(boolAt, i)
		}
	}
	n, err := tx.CopyFrom(ctx, pgx.Identifier{pgSchema, table}, cols, &rowSource{rows: rows, width: len(cols), boolAt: boolAt})
	if err != nil {
		return n, err
	}
	return n, rows.Err()
}

// rowSource feeds database/sql rows to pgx's COPY, turning SQLite's 0/1
// into booleans where PostgreSQL keeps them.
type rowSource struct {
	rows   *sql.Rows
	width  int
	boolAt []int
	vals   []any
	err    error
}

func (r *rowSource) Next() bool {
	if !r.rows.Next() {
		return false
	}
	r.vals = make([]any, r.width)
	ptrs := make([]any, r.width)
	for i := range r.vals {
		ptrs[i] = &r.vals[i]
	}
	if r.err = r.rows.Scan(ptrs...); r.err != nil {
		return false
	}
	for _, i := range r.boolAt {
		if v, ok := r.vals[i].(int64); ok {
			r.vals[i] = v != 0
		}
	}
	return true
}

func (r *rowSource) Values() ([]any, error) { return r.vals, r.err }
func (r *rowSource) Err() error             { return r.err }
