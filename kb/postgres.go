package kb

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/internal/redact"
)

// pgSchema is the PostgreSQL schema holding the knowledge base's tables; it
// leads the connections' search_path, so the shared SQL names no schema.
const pgSchema = "yagent_kb"

// pgWriteLock is the key of the transaction-scoped advisory lock every
// write transaction takes first: the PostgreSQL counterpart of SQLite's
// BEGIN IMMEDIATE (a hash of "yagent_kb", any constant would do).
const pgWriteLock = 0x7961_6b62

// ErrUnreachable is returned when the database of a DSN cannot be reached
// (or refuses the login): wrong host, port, database, user or password.
var ErrUnreachable = errors.New("database unreachable")

// ErrNewerSchema is returned for a knowledge base written by a newer yagent.
var ErrNewerSchema = errors.New("knowledge base schema is newer than this yagent")

// IsPostgres reports whether target names a PostgreSQL database (a
// postgres:// or postgresql:// URL) rather than a SQLite file.
func IsPostgres(target string) bool {
	return strings.HasPrefix(target, "postgres://") || strings.HasPrefix(target, "postgresql://")
}

// OpenPostgres opens the knowledge base in the PostgreSQL database of dsn
// (postgres://user:password@host:port/db) and brings its schema
// (yagent_kb) up to date. Several stores — in one process or many, on
// many hosts — may share the database: writes are serialised by the
// database, and every conflict is decided there. A database that cannot
// be reached fails with ErrUnreachable; a schema from a newer yagent, or a
// yagent_kb schema that is not a knowledge base, is refused untouched.
func OpenPostgres(ctx context.Context, dsn string, opts Options) (*Store, error) {
	masked := config.MaskDSN(dsn)
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("open kb %s: %w: not a PostgreSQL connection string (want postgres://user:password@host:port/database)", masked, ErrUnreachable)
	}
	cfg.RuntimeParams["search_path"] = pgSchema + ", public"
	if cfg.RuntimeParams["application_name"] == "" {
		cfg.RuntimeParams["application_name"] = "yagent"
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = 10 * time.Second
	}
	db := stdlib.OpenDB(*cfg)
	db.SetMaxOpenConns(16)
	db.SetMaxIdleConns(4)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("open kb %s: %w: %v", masked, ErrUnreachable, redact.Exact(config.DSNPasswords(dsn)...).Error(errors.Unwrap(err)))
	}
	s, err := openStore(ctx, db, &pgDialect{}, masked, opts)
	if err != nil {
		return nil, err
	}
	if err := s.d.(*pgDialect).backfillVectors(ctx, s); err != nil {
		s.Close()
		return nil, fmt.Errorf("open kb %s: %w", masked, err)
	}
	return s, nil
}

// pgDialect is the PostgreSQL backend: tsvector full text; vectors
// compared by pgvector when the server has it, else in the process.
type pgDialect struct {
	// pgvector says the extension is installed and note_pgvectors kept.
	pgvector bool
	// vectorNote says why pgvector is not used, when it is not.
	vectorNote string
}

func (pgDialect) name() string               { return "postgres" }
func (pgDialect) rebind(query string) string { return dollarPlaceholders(query) }

func (pgDialect) lockWrites(ctx context.Context, tx *txn) error {
	_, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(?)", int64(pgWriteLock))
	return err
}

func (pgDialect) stringAgg(expr, sep string) string {
	return "string_agg(" + expr + ", " + sep + " ORDER BY " + expr + ")"
}

// pgMigrations are the PostgreSQL schema steps, versioned apart from
// SQLite's: step i brings the schema to version i+1.
func pgMigrations() []string { return embeddedSteps("migrations/postgres/*.sql") }

// PostgresSchemaVersion is the PostgreSQL schema version this code writes.
func PostgresSchemaVersion() int { return len(pgMigrations()) }

// migrate checks and migrates under the write lock, so replicas starting
// together migrate once. The version is the largest in schema_version.
func (d *pgDialect) migrate(ctx context.Context, s *Store) error {
	steps := pgMigrations()
	return s.inTx(ctx, func(tx *txn) error {
		var tables int
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM pg_tables WHERE schemaname = ?", pgSchema).Scan(&tables); err != nil {
			return fmt.Errorf("open kb %s: %w", s.path, err)
		}
		have := 0
		if tables > 0 {
			var known int
			if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM pg_tables WHERE schemaname = ? AND tablename = 'schema_version'", pgSchema).Scan(&known); err != nil {
				return fmt.Errorf("open kb %s: %w", s.path, err)
			}
			if known == 0 {
				return fmt.Errorf("open kb %s: schema %s has tables but is not a yagent knowledge base (no schema_version); point kb.dsn at another database, nothing was changed", s.path, pgSchema)
			}
			if err := tx.QueryRowContext(ctx, "SELECT coalesce(max(version), 0) FROM schema_version").Scan(&have); err != nil {
				return fmt.Errorf("open kb %s: read schema version: %w", s.path, err)
			}
		}
		if have > len(steps) {
			return fmt.Errorf("open kb %s: %w: the database is at schema version %d, this yagent understands up to %d; upgrade yagent, nothing was changed", s.path, ErrNewerSchema, have, len(steps))
		}
		if have < len(steps) {
			if _, err := tx.ExecContext(ctx, "CREATE SCHEMA IF NOT EXISTS "+pgSchema); err != nil {
				return fmt.Errorf("open kb %s: %w", s.path, err)
			}
		}
		for v := have + 1; v <= len(steps); v++ {
			if err := runStep(ctx, tx, steps[v-1]); err != nil {
				return fmt.Errorf("open kb %s: migrate to schema version %d: %w", s.path, v, err)
			}
			if _, err := tx.ExecContext(ctx, "INSERT INTO schema_version(version, applied_at) VALUES (?, ?)", v, s.nowMicro()); err != nil {
				return fmt.Errorf("open kb %s: migrate to schema version %d: %w", s.path, v, err)
			}
		}
		if err := d.setupVector(ctx, tx); err != nil {
			return fmt.Errorf("open kb %s: pgvector: %w", s.path, err)
		}
		return nil
	})
}

// setupVector uses pgvector when the server has it: it creates the
// extension if it is available but not yet created (a privilege the role
// may lack: then vectors are compared in the process), and the table of
// the embeddings as pgvector values, note_pgvectors. That table is derived
// from note_vectors (backfillVectors, storedVector) and outside the
// versioned schema: a database without pgvector never has it.
func (d *pgDialect) setupVector(ctx context.Context, tx *txn) error {
	var installed, available int
	if err := tx.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM pg_extension WHERE extname = 'vector'),
		(SELECT count(*) FROM pg_available_extensions WHERE name = 'vector')`).Scan(&installed, &available); err != nil {
		return err
	}
	switch {
	case installed == 0 && available == 0:
		d.vectorNote = "pgvector is not installed on the server"
		return nil
	case installed == 0:
		if _, err := tx.ExecContext(ctx, "SAVEPOINT pgvector"); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "CREATE EXTENSION IF NOT EXISTS vector"); err != nil {
			d.vectorNote = "pgvector is installed on the server but could not be created here (" + firstLineOf(err.Error()) + "); CREATE EXTENSION vector as a superuser"
			_, rerr := tx.ExecContext(ctx, "ROLLBACK TO SAVEPOINT pgvector")
			return rerr
		}
		if _, err := tx.ExecContext(ctx, "RELEASE SAVEPOINT pgvector"); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS note_pgvectors (
		note_id bigint PRIMARY KEY REFERENCES note_vectors(note_id) ON DELETE CASCADE,
		vec     vector NOT NULL)`); err != nil {
		return err
	}
	d.pgvector, d.vectorNote = true, ""
	return nil
}

// backfillVectors gives every stored embedding its pgvector value (after
// pgvector arrived, or after a copy), a batch per write transaction.
func (d *pgDialect) backfillVectors(ctx context.Context, s *Store) error {
	for d.pgvector {
		done := 0
		err := s.inTx(ctx, func(tx *txn) error {
			rows, err := tx.QueryContext(ctx, `SELECT v.note_id, v.embedding FROM note_vectors v
				WHERE NOT EXISTS (SELECT 1 FROM note_pgvectors p WHERE p.note_id = v.note_id) LIMIT 500`)
			if err != nil {
				return err
			}
			type row struct {
				id  int64
				vec string
			}
			var batch []row
			for rows.Next() {
				var r row
				var raw []byte
				if err := rows.Scan(&r.id, &raw); err != nil {
					rows.Close()
					return err
				}
				r.vec = vectorLiteral(decodeVector(raw))
				batch = append(batch, r)
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
			for _, r := range batch {
				if _, err := tx.ExecContext(ctx, "INSERT INTO note_pgvectors(note_id, vec) VALUES (?, ?::vector)", r.id, r.vec); err != nil {
					return err
				}
			}
			done = len(batch)
			return nil
		})
		if err != nil {
			return fmt.Errorf("fill pgvector values: %w", err)
		}
		if done == 0 {
			return nil
		}
	}
	return nil
}

// vectorMethod says how vectors are compared: by pgvector, or in the
// process and why.
func (d *pgDialect) vectorMethod(context.Context, *Store) string {
	if d.pgvector {
		return "pgvector: cosine distance in the database (exact up to 4096 candidates, then over a sign-bit shortlist)"
	}
	return "exact scan in the process (" + d.vectorNote + ")"
}
