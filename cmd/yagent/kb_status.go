package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
)

// kbStatusOptions are the inputs of `yagent kb status`.
type kbStatusOptions struct {
	JSON bool
}

// NewCmdKBStatus builds `yagent kb status`.
func NewCmdKBStatus(f *Factory) *cobra.Command {
	opts := &kbStatusOptions{}
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show the knowledge base's backend, schema, search methods and sizes",
		Long: `Show where the knowledge base is (the SQLite file kb.path, or the PostgreSQL
database kb.dsn with its password masked), its schema version, how full
text is searched and how vectors are compared (on PostgreSQL: whether
pgvector is there), and how many rows each table holds.`,
		Example: `  yagent kb status

  yagent kb status --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return kbStatusRun(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON: {backend, location, schemaVersion, fullText, vectors, rows}")
	return cmd
}

func kbStatusRun(ctx context.Context, f *Factory, opts *kbStatusOptions) error {
	store, err := f.KB(ctx)
	if err != nil {
		return fmt.Errorf("knowledge base: %w", err)
	}
	st, err := store.Status(ctx)
	if err != nil {
		return err
	}
	if opts.JSON {
		return writeJSON(f.IO.Out, st)
	}
	return st.Write(f.IO.Out)
}
