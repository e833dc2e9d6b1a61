package main

import (
	"context"
	"fmt"
	"math"
	"os"

	"github.com/spf13/cobra"

	"github.com/yagent/yagent/kb"
	"github.com/yagent/yagent/printer"
)

// kbImportOptions are the inputs of `yagent kb import`.
type kbImportOptions struct {
	Dir     string
	Project string
	Prune   bool
	JSON    bool
}

// NewCmdKBImport builds `yagent kb import`.
func NewCmdKBImport(f *Factory) *cobra.Command {
	opts := &kbImportOptions{}
	cmd := &cobra.Command{
		Use:   "import DIR --project H [--prune]",
		Short: "Import a folder of Markdown files (an Obsidian vault, a docs tree) into a project; again: only what changed",
		Long: `Import every .md file under DIR into a project. Subfolders become folders;
a title need only be unique within its folder (a clash gets the file's name
and is reported). Front matter gives the type, tags and aliases (other fields
are kept); [[links]] in Obsidian's forms ([[Note]], [[Folder/Note]],
[[Note#Heading]], [[Note|label]], ![[embeds]]) become links, forward
references until their target exists; embedded files (![[diagram.png]]) are
recorded as attachments. A note is known by its file's path under DIR, so
importing again creates what is new, updates what changed, follows a file
that moved (same content, new path) and skips the rest; --prune moves to the
trash the notes whose files are gone (yagent kb trash restore brings one
back). A file that fails is reported and the others go on (exit code 1 then).`,
		Example: `  # Import an Obsidian vault into a project (again: only what changed)
  yagent kb import ~/vault --project acme/web

  # Also remove notes whose files are gone
  yagent kb import ./docs --project acme/web --prune`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dir = args[0]
			return kbImportRun(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Project, "project", "", "project handle to import into (required)")
	cmd.Flags().BoolVar(&opts.Prune, "prune", false, "move to the trash the notes whose files are no longer in DIR")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON: {created, updated, moved, skipped, warnings: [{path, title, message}], pruned: [{path, id, title}], pendingLinks, errors: [{path, message}], embedded}")
	required(cmd, "project")
	return cmd
}

func kbImportRun(ctx context.Context, f *Factory, opts *kbImportOptions) error {
	if fi, err := os.Stat(opts.Dir); err != nil || !fi.IsDir() {
		return usagef("import: %s is not a directory", opts.Dir)
	}
	store, person, err := f.KBAsPerson(ctx)
	if err != nil {
		return err
	}
	bar := &printer.Progress{W: f.IO.ErrOut, On: f.IO.ErrTTY && !opts.JSON}
	rep, err := store.Import(ctx, person, opts.Dir, opts.Project, kb.ImportOptions{Prune: opts.Prune, Progress: bar.Update})
	bar.Clear()
	if err != nil {
		return err
	}
	// Notes whose vectors could not be made during the import (endpoint
	// down) are embedded now; search works without them meanwhile.
	embedded, embErr := store.EmbedPending(ctx, math.MaxInt32)
	if opts.JSON {
		if err := writeJSON(f.IO.Out, rep.Result(embedded)); err != nil {
			return err
		}
	} else {
		summary, details := rep.Text(opts.Dir, opts.Project, opts.Prune)
		fmt.Fprint(f.IO.Out, summary)
		fmt.Fprint(f.IO.ErrOut, details)
	}
	if embErr != nil {
		fmt.Fprintf(f.IO.ErrOut, "warning: embeddings: %v (search runs on full text until they are made)\n", embErr)
	}
	if len(rep.Errors) > 0 {
		return fmt.Errorf("%d of %d files failed to import; fix them and import again (the rest is skipped)", len(rep.Errors), rep.Created+rep.Updated+rep.Moved+rep.Skipped+len(rep.Errors))
	}
	return nil
}
