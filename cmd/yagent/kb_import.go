package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/spf13/cobra"
)

// kbImportOptions are the inputs of `yagent kb import`.
type kbImportOptions struct {
	Dir     string
	Project string
	JSON    bool
}

// NewCmdKBImport builds `yagent kb import`.
func NewCmdKBImport(f *Factory) *cobra.Command {
	opts := &kbImportOptions{}
	cmd := &cobra.Command{
		Use:   "import DIR --project H",
		Short: "Import a folder of Markdown files into a project (again: only what changed)",
		Long: `Import every .md file under DIR into a project. Front matter gives the type,
tags and aliases (other fields are kept); [[links]] become typed links
(forward references until their target exists); subfolders become folders.
A file is known by its path under DIR and its content, so importing again
creates what is new, updates what changed and skips the rest. A file that
fails is reported and the others go on (exit code 1 then).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dir = args[0]
			return kbImportRun(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Project, "project", "", "project handle to import into (required)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON: {created, updated, skipped, errors: [{path, message}], embedded}")
	required(cmd, "project")
	return cmd
}

func kbImportRun(ctx context.Context, f *Factory, opts *kbImportOptions) error {
	if fi, err := os.Stat(opts.Dir); err != nil || !fi.IsDir() {
		return usagef("import: %s is not a directory", opts.Dir)
	}
	store, person, err := kbOpen(ctx, f)
	if err != nil {
		return err
	}
	bar := &progressBar{w: f.IO.ErrOut, on: f.IO.ErrTTY && !opts.JSON}
	rep, err := store.Import(ctx, person, opts.Dir, opts.Project, bar.update)
	bar.clear()
	if err != nil {
		return err
	}
	// Notes whose vectors could not be made during the import (endpoint
	// down) are embedded now; search works without them meanwhile.
	embedded, embErr := store.EmbedPending(ctx, math.MaxInt32)
	if opts.JSON {
		if err := writeJSON(f.IO.Out, struct {
			Created  int `json:"created"`
			Updated  int `json:"updated"`
			Skipped  int `json:"skipped"`
			Errors   any `json:"errors"`
			Embedded int `json:"embedded"`
		}{rep.Created, rep.Updated, rep.Skipped, nonNil(rep.Errors), embedded}); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(f.IO.Out, "imported %s into %s: %d created, %d updated, %d skipped, %d failed\n",
			opts.Dir, opts.Project, rep.Created, rep.Updated, rep.Skipped, len(rep.Errors))
		for _, e := range rep.Errors {
			fmt.Fprintf(f.IO.ErrOut, "  %s: %s\n", e.Path, e.Message)
		}
	}
	if embErr != nil {
		fmt.Fprintf(f.IO.ErrOut, "warning: embeddings: %v (search runs on full text until they are made)\n", embErr)
	}
	if len(rep.Errors) > 0 {
		return fmt.Errorf("%d of %d files failed to import; fix them and import again (the rest is skipped)", len(rep.Errors), rep.Created+rep.Updated+rep.Skipped+len(rep.Errors))
	}
	return nil
}

// progressBar draws "[█████░░░] 12/40 files" on a terminal, nothing
// elsewhere.
type progressBar struct {
	w    io.Writer
	on   bool
	seen bool
}

func (b *progressBar) update(done, total int) {
	if !b.on || total == 0 {
		return
	}
	const width = 24
	filled := done * width / total
	fmt.Fprintf(b.w, "\r\x1b[K[%s%s] %d/%d files", strings.Repeat("█", filled), strings.Repeat("░", width-filled), done, total)
	b.seen = true
}

func (b *progressBar) clear() {
	if b.seen {
		io.WriteString(b.w, "\r\x1b[K")
	}
}
