package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
)

// kbMigrateOptions are the inputs of `yagent kb migrate`.
type kbMigrateOptions struct {
	To   string
	JSON bool
}

// NewCmdKBMigrate builds `yagent kb migrate`.
func NewCmdKBMigrate(f *Factory) *cobra.Command {
	opts := &kbMigrateOptions{}
	cmd := &cobra.Command{
		Use:   "migrate --to postgres://USER@HOST:PORT/DB",
		Short: "Copy the SQLite knowledge base into an empty PostgreSQL database",
		Long: `Copy the SQLite knowledge base (kb.path, default $YAGENT_HOME/kb.db) into
the PostgreSQL database --to names: principals, spaces, projects, members,
tokens, notes, revisions, links, aliases, attachments, the trash, visits,
activity and vectors, ids kept, in one transaction; then every table's row
count is checked against the file. The file is only read. The database
must hold no knowledge base yet (its schema yagent_kb is created). Put the
password in PGPASSWORD or ~/.pgpass rather than on the command line. Then
set kb.dsn to the same URL and run as many ` + "`yagent mcp serve --http`" + ` replicas
as you like on it.`,
		Example: `  # Copy the SQLite knowledge base into an empty PostgreSQL database
  yagent kb migrate --to postgres://yagent@db:5432/kb`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return kbMigrateRun(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().StringVar(&opts.To, "to", "", "the PostgreSQL database to copy into (postgres://…)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON: {rows: {table: count}}")
	cmd.MarkFlagRequired("to")
	return cmd
}

func kbMigrateRun(ctx context.Context, f *Factory, opts *kbMigrateOptions) error {
	from, dest, rep, err := f.MigrateKB(ctx, opts.To, func(table string, rows int64) {
		if !opts.JSON {
			fmt.Fprintf(f.IO.ErrOut, "copied %s: %d rows\n", table, rows)
		}
	})
	if err != nil {
		return err
	}
	if opts.JSON {
		return writeJSON(f.IO.Out, rep)
	}
	fmt.Fprintf(f.IO.Out, "copied %s to %s: %d notes, %d revisions, %d links, %d projects, %d tokens, %d vectors; row counts match\n",
		from, dest, rep.Rows["notes"], rep.Rows["revisions"], rep.Rows["links"], rep.Rows["projects"], rep.Rows["tokens"], rep.Rows["note_vectors"])
	fmt.Fprintf(f.IO.Out, "set kb.dsn: %s to use it\n", dest)
	return nil
}
