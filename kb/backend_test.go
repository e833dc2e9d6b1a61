package kb

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yagent/yagent/internal/pgtest"
)

// TestMain stops the throwaway PostgreSQL server of the postgres backend
// when the tests end.
func TestMain(m *testing.M) { os.Exit(pgtest.Run(m)) }

// backend is one way to store a knowledge base. The conformance suite is
// every test that runs through eachBackend: the same test, the same
// expectations, on each backend.
type backend struct {
	name string
	// open returns a new, empty store and its reopen target (a path or a
	// DSN for Reopen).
	open func(t testing.TB, opts Options) (*Store, string)
}

var (
	sqliteBackend = backend{"sqlite", func(t testing.TB, opts Options) (*Store, string) {
		path := filepath.Join(t.TempDir(), "kb.db")
		s, err := Open(context.Background(), path, opts)
		if err != nil {
			t.Fatal(err)
		}
		return s, path
	}}
	postgresBackend = backend{"postgres", func(t testing.TB, opts Options) (*Store, string) {
		dsn := pgtest.New(t)
		s, err := OpenPostgres(context.Background(), dsn, opts)
		if err != nil {
			t.Fatal(err)
		}
		return s, dsn
	}}
	backends = []backend{sqliteBackend, postgresBackend}
	// postgresExactBackend compares vectors in the process even where the
	// server has pgvector, so both of PostgreSQL's vector paths are tested.
	postgresExactBackend = backend{"postgres-exact", func(t testing.TB, opts Options) (*Store, string) {
		s, dsn := postgresBackend.open(t, opts)
		pd := s.d.(*pgDialect)
		pd.pgvector, pd.vectorNote = false, "pgvector turned off by the test"
		return s, dsn
	}}
)

// reopen opens another store on the same database as the backend's open
// gave (another process, or another gateway replica).
func (be backend) reopen(t testing.TB, target string, opts Options) *Store {
	t.Helper()
	var s *Store
	var err error
	if strings.HasPrefix(be.name, "postgres") {
		s, err = OpenPostgres(context.Background(), target, opts)
		if err == nil && be.name == "postgres-exact" {
			pd := s.d.(*pgDialect)
			pd.pgvector, pd.vectorNote = false, "pgvector turned off by the test"
		}
	} else {
		s, err = Open(context.Background(), target, opts)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// eachVectorBackend is eachBackend with PostgreSQL's in-process vector
// comparison as a third backend.
func eachVectorBackend(t *testing.T, fn func(t *testing.T, be backend)) {
	t.Helper()
	for _, be := range append(backends, postgresExactBackend) {
		t.Run(be.name, func(t *testing.T) {
			t.Parallel()
			fn(t, be)
		})
	}
}

// eachBackend runs fn as a subtest per backend, the backends side by side
// (a PostgreSQL test mostly waits for the server).
func eachBackend(t *testing.T, fn func(t *testing.T, be backend)) {
	t.Helper()
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			t.Parallel()
			fn(t, be)
		})
	}
}
