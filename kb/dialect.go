package kb

import "context"

// dialect is the SQL that differs between the backends. Everything else —
// the 21 tools, tokens, scopes, the version check, trash, links, revisions,
// import — is written once, in SQL both understand (placeholders are
// rebound), and runs on either.
type dialect interface {
	// name is "sqlite" or "postgres".
	name() string
	// rebind turns the shared SQL's ? and ?N placeholders into the
	// backend's.
	rebind(query string) string
	// lockWrites runs first in every write transaction and keeps the
	// other writers out until it ends, in every process.
	lockWrites(ctx context.Context, tx *txn) error
	// migrate checks the schema and brings it up to date; a database it
	// refuses is left untouched.
	migrate(ctx context.Context, s *Store) error
	// fullText ranks the notes in scope holding the query words, best
	// first, at most k; scores are lower for better matches.
	fullText(ctx context.Context, s *Store, words []string, sc scope, k int) ([]hit, error)
	// vectorSearch ranks the notes in scope by cosine distance to qv.
	vectorSearch(ctx context.Context, s *Store, qv []float32, sc scope, k int) ([]int64, error)
	// storedVector runs after a vector of note id was stored (in the same
	// transaction) for what the backend does not do in triggers.
	storedVector(ctx context.Context, tx *txn, id int64, v []float32) error
	// stringAgg is the aggregate joining expr's values with sep (an SQL
	// string literal).
	stringAgg(expr, sep string) string
	// vectorMethod says how vectors are compared, for Status.
	vectorMethod(ctx context.Context, s *Store) string
}

// sqliteDialect is the single-file backend: FTS5 and sqlite-vec.
type sqliteDialect struct{}

func (sqliteDialect) name() string               { return "sqlite" }
func (sqliteDialect) rebind(query string) string { return query }

// lockWrites does nothing: the driver begins every transaction IMMEDIATE.
func (sqliteDialect) lockWrites(context.Context, *txn) error { return nil }

func (sqliteDialect) fullText(ctx context.Context, s *Store, words []string, sc scope, k int) ([]hit, error) {
	plan, err := s.planQuery(ctx, words)
	if err != nil {
		return nil, err
	}
	return s.ftsSearch(ctx, plan, sc, k)
}

func (sqliteDialect) vectorSearch(ctx context.Context, s *Store, qv []float32, sc scope, k int) ([]int64, error) {
	return s.vectorSearch(ctx, qv, sc, k)
}

// storedVector does nothing: triggers keep note_vector_bits in step.
func (sqliteDialect) storedVector(context.Context, *txn, int64, []float32) error { return nil }

func (sqliteDialect) stringAgg(expr, sep string) string {
	return "group_concat(" + expr + ", " + sep + ")"
}

func (sqliteDialect) vectorMethod(context.Context, *Store) string {
	return "sqlite-vec distance functions (exact up to 4096 candidates, then a sign-bit shortlist)"
}
