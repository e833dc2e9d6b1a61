package kb

import (
	"strings"
	"testing"
)

// TestStatus pins what `yagent kb status` shows: the backend, where it is
// (a DSN's password never), the schema version, the row counts, and how
// vectors are compared — on PostgreSQL, pgvector when the server has it
// and the exact scan in the process otherwise.
func TestStatus(t *testing.T) {
	for _, be := range []backend{sqliteBackend, postgresBackend, postgresExactBackend} {
		t.Run(be.name, func(t *testing.T) {
			f := newFixture(t, be, Options{Embedder: HashEmbedder{Dims: 16}})
			f.create(t, "acme/web", "# One\n\nBody.")
			st, err := f.s.Status(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			wantBackend, wantVersion := "sqlite", SchemaVersion()
			if be.name != "sqlite" {
				wantBackend, wantVersion = "postgres", PostgresSchemaVersion()
			}
			if st.Backend != wantBackend || st.SchemaVersion != wantVersion || st.Rows["notes"] != 1 || st.Rows["note_vectors"] != 1 || st.Location == "" {
				t.Errorf("Status = %+v; want %s at version %d with 1 note and its vector", st, wantBackend, wantVersion)
			}
			var want string
			switch {
			case be.name == "sqlite":
				want = "sqlite-vec"
			case f.s.d.(*pgDialect).pgvector:
				want = "pgvector: cosine distance in the database"
			default:
				want = "exact scan in the process ("
			}
			if !strings.HasPrefix(st.Vectors, want) && !strings.Contains(st.Vectors, want) {
				t.Errorf("Status.Vectors = %q; want it to say %q", st.Vectors, want)
			}
			t.Logf("%s: vectors: %s", be.name, st.Vectors)
		})
	}
}
