package kb

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
)

// database is the store's connection pool. Every statement passes through
// the dialect's rebind, so the shared SQL is written once, in SQLite's
// placeholder style (? and ?N), and runs on both backends.
type database struct {
	raw *sql.DB
	d   dialect
}

func (db *database) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return db.raw.ExecContext(ctx, db.d.rebind(query), args...)
}

func (db *database) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return db.raw.QueryContext(ctx, db.d.rebind(query), args...)
}

func (db *database) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return db.raw.QueryRowContext(ctx, db.d.rebind(query), args...)
}

// Exec, Query and QueryRow are the context-free forms tests use.
func (db *database) Exec(query string, args ...any) (sql.Result, error) {
	return db.ExecContext(context.Background(), query, args...)
}

func (db *database) Query(query string, args ...any) (*sql.Rows, error) {
	return db.QueryContext(context.Background(), query, args...)
}

func (db *database) QueryRow(query string, args ...any) *sql.Row {
	return db.QueryRowContext(context.Background(), query, args...)
}

func (db *database) BeginTx(ctx context.Context, opts *sql.TxOptions) (*txn, error) {
	tx, err := db.raw.BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	return &txn{raw: tx, d: db.d}, nil
}

// txn is a transaction whose statements are rebound like database's.
type txn struct {
	raw *sql.Tx
	d   dialect
}

func (tx *txn) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return tx.raw.ExecContext(ctx, tx.d.rebind(query), args...)
}

func (tx *txn) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return tx.raw.QueryContext(ctx, tx.d.rebind(query), args...)
}

func (tx *txn) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return tx.raw.QueryRowContext(ctx, tx.d.rebind(query), args...)
}

func (tx *txn) Commit() error   { return tx.raw.Commit() }
func (tx *txn) Rollback() error { return tx.raw.Rollback() }

// querier is what both database and txn offer.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

var (
	_ querier = (*database)(nil)
	_ querier = (*txn)(nil)
)

// dollarPlaceholders rewrites SQLite's placeholders as PostgreSQL's: ?N
// becomes $N and a bare ? takes the number after the largest so far (as
// SQLite numbers it). "INDEXED BY name", a SQLite planner hint, is dropped.
// Quoted text ('…', "…") is copied as it is.
func dollarPlaceholders(q string) string {
	if !strings.ContainsAny(q, "?") && !strings.Contains(q, "INDEXED BY") {
		return q
	}
	var b strings.Builder
	b.Grow(len(q) + 16)
	largest := 0
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case c == '\'' || c == '"':
			j := i + 1
			for j < len(q) && q[j] != c {
				j++
			}
			if j < len(q) {
				j++
			}
			b.WriteString(q[i:j])
			i = j - 1
		case c == '?':
			j := i + 1
			for j < len(q) && q[j] >= '0' && q[j] <= '9' {
				j++
			}
			n := largest + 1
			if j > i+1 {
				n, _ = strconv.Atoi(q[i+1 : j])
			}
			largest = max(largest, n)
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			i = j - 1
		case c == 'I' && strings.HasPrefix(q[i:], "INDEXED BY "):
			j := i + len("INDEXED BY ")
			for j < len(q) && (q[j] == '_' || q[j] >= 'a' && q[j] <= 'z' || q[j] >= '0' && q[j] <= '9') {
				j++
			}
			if j < len(q) && q[j] == ' ' {
				j++
			}
			i = j - 1
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
