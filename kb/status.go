package kb

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"
)

// Status describes a store: where it is, its schema, how it searches, and
// how many rows each table holds.
type Status struct {
	Backend       string `json:"backend" jsonschema:"sqlite or postgres"`
	Location      string `json:"location" jsonschema:"the SQLite file, or the PostgreSQL DSN with its password masked"`
	SchemaVersion int    `json:"schemaVersion"`
	FullText      string `json:"fullText" jsonschema:"how full-text search works here"`
	Vectors       string `json:"vectors" jsonschema:"how vectors are compared here"`
	// Rows counts each table's rows, by table name (dataTables).
	Rows map[string]int64 `json:"rows"`
}

// dataTables are the tables holding the knowledge base's data, parents
// before children: what Status counts and CopyTo copies. The FTS indexes,
// schema_version and vector_changes are derived or kept by each backend.
var dataTables = []string{
	"principals", "spaces", "projects", "project_aliases", "members", "domains", "tokens", "token_projects",
	"notes", "note_tags", "title_aliases", "attachments", "links", "revisions", "activity", "visits",
	"note_vectors", "note_vector_bits",
}

// Status reports the store's backend, schema and size.
func (s *Store) Status(ctx context.Context) (Status, error) {
	st := Status{Backend: s.d.name(), Location: s.path, Vectors: s.d.vectorMethod(ctx, s), Rows: map[string]int64{}}
	switch s.d.name() {
	case "postgres":
		st.FullText = "tsvector (configuration kb_text: Russian and English Snowball stemmers, ё folded to е), BM25 over ts_rank_cd frequencies"
		st.SchemaVersion = PostgresSchemaVersion()
	default:
		st.FullText = "FTS5 (porter unicode61, ё folded to е), BM25"
		st.SchemaVersion = SchemaVersion()
	}
	if err := s.db.QueryRowContext(ctx, "SELECT max(version) FROM schema_version").Scan(&st.SchemaVersion); err != nil {
		return Status{}, fmt.Errorf("kb status: %w", err)
	}
	for _, t := range dataTables {
		var n int64
		if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM "+t).Scan(&n); err != nil {
			return Status{}, fmt.Errorf("kb status: count %s: %w", t, err)
		}
		st.Rows[t] = n
	}
	return st, nil
}

// Write prints st as `yagent kb status` shows it: one aligned line per
// fact.
func (st Status) Write(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "backend:\t%s\n", st.Backend)
	fmt.Fprintf(tw, "location:\t%s\n", st.Location)
	fmt.Fprintf(tw, "schema version:\t%d\n", st.SchemaVersion)
	fmt.Fprintf(tw, "full text:\t%s\n", st.FullText)
	fmt.Fprintf(tw, "vectors:\t%s\n", st.Vectors)
	fmt.Fprintf(tw, "notes:\t%d (%d revisions, %d links, %d vectors)\n", st.Rows["notes"], st.Rows["revisions"], st.Rows["links"], st.Rows["note_vectors"])
	fmt.Fprintf(tw, "projects:\t%d\n", st.Rows["projects"])
	fmt.Fprintf(tw, "principals:\t%d (%d tokens)\n", st.Rows["principals"], st.Rows["tokens"])
	return tw.Flush()
}
