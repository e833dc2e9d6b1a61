package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/yagent/yagent/chat"
	"github.com/yagent/yagent/memory"
	"github.com/yagent/yagent/notebook"
)

// notesOptions are the inputs of the `yagent notes` commands.
type notesOptions struct {
	Target      sessionTarget
	JSON        bool
	Name        string
	Description string // put
	Pin         bool   // put
	Off         bool   // pin
}

// register adds the flags every notes command has.
func (o *notesOptions) register(cmd *cobra.Command, jsonHelp string) {
	o.Target.register(cmd)
	if jsonHelp != "" {
		cmd.Flags().BoolVar(&o.JSON, "json", false, jsonHelp)
	}
}

// openNotebook opens the selected session's notebook.
func openNotebook(ctx context.Context, f *Factory, t *sessionTarget) (*notebook.Book, memory.Info, error) {
	cfg, err := f.Config()
	if err != nil {
		return nil, memory.Info{}, err
	}
	if !cfg.Notes.Enabled {
		return nil, memory.Info{}, notebook.ErrOff
	}
	in, err := t.find(ctx, f)
	if err != nil {
		return nil, memory.Info{}, err
	}
	st, err := f.Sessions(ctx)
	if err != nil {
		return nil, memory.Info{}, err
	}
	return notebook.Open(st.DB, in.ID, cfg.Notes), in, nil
}

// NewCmdNotes builds `yagent notes`.
func NewCmdNotes(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "notes",
		Short: "Read and edit the lead's notebook of a session",
		Long: `The notebook is what the director decided not to lose in a session: it
survives compaction and /clear, and sub-agents never see it. These commands
act as the person, outside any turn; the same limits apply.`,
		Example: `  yagent notes ls
  yagent notes show goal`,
	}
	cmd.AddCommand(NewCmdNotesLs(f), NewCmdNotesShow(f), NewCmdNotesPut(f), NewCmdNotesRm(f), NewCmdNotesPin(f), NewCmdNotesRestore(f))
	return cmd
}

// NewCmdNotesLs builds `yagent notes ls`.
func NewCmdNotesLs(f *Factory) *cobra.Command {
	opts := &notesOptions{}
	cmd := &cobra.Command{
		Use:   "ls [--session ID|--last] [--json]",
		Short: "List the notes; * marks the ones changed since you last looked",
		Example: `  # The notebook of this directory's newest session
  yagent notes ls

  yagent notes ls --session 20261201T101500-3f2a1c --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return notesLsRun(cmd.Context(), f, opts) },
	}
	opts.register(cmd, "print JSON: [{name, description, body, prev_body, pinned, pinned_at, created, updated, new}] (pinned_at only on pinned notes)")
	return cmd
}

func notesLsRun(ctx context.Context, f *Factory, opts *notesOptions) error {
	book, in, err := openNotebook(ctx, f, &opts.Target)
	if err != nil {
		return err
	}
	notes, err := book.Look(ctx)
	if err != nil {
		return err
	}
	if opts.JSON {
		return writeJSON(f.IO.Out, nonNil(notes))
	}
	return chat.PrintNotes(f.IO.Out, f.IO.ErrOut, in, notes)
}

// NewCmdNotesShow builds `yagent notes show`.
func NewCmdNotesShow(f *Factory) *cobra.Command {
	opts := &notesOptions{}
	cmd := &cobra.Command{
		Use:     "show NAME [--session ID|--last] [--json]",
		Short:   "Print a note, with what changed in its last edit",
		Example: `  yagent notes show goal`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			return notesShowRun(cmd.Context(), f, opts)
		},
	}
	opts.register(cmd, "print JSON: {name, description, body, prev_body, pinned, pinned_at, created, updated, new} (pinned_at only on a pinned note)")
	return cmd
}

func notesShowRun(ctx context.Context, f *Factory, opts *notesOptions) error {
	book, _, err := openNotebook(ctx, f, &opts.Target)
	if err != nil {
		return err
	}
	n, err := book.Get(ctx, opts.Name)
	if err != nil {
		return err
	}
	if opts.JSON {
		return writeJSON(f.IO.Out, n)
	}
	notebook.WriteShown(f.IO.Out, f.IO.ErrOut, n)
	return nil
}

// NewCmdNotesPut builds `yagent notes put`.
func NewCmdNotesPut(f *Factory) *cobra.Command {
	opts := &notesOptions{}
	cmd := &cobra.Command{
		Use:   "put NAME --description D [--pin] < body",
		Short: "Write a note as the person (body on stdin)",
		Example: `  # Write a note as the person, pinned so every mode sees it
  echo "Ship on Friday; no schema changes." | yagent notes put goal --description "the goal" --pin`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			return notesPutRun(cmd.Context(), f, opts)
		},
	}
	opts.register(cmd, "print the note as JSON (fields as in ls)")
	cmd.Flags().StringVar(&opts.Description, "description", "", "one line, at most 120 characters (required)")
	cmd.Flags().BoolVar(&opts.Pin, "pin", false, "pin the note")
	required(cmd, "description")
	return cmd
}

func notesPutRun(ctx context.Context, f *Factory, opts *notesOptions) error {
	book, _, err := openNotebook(ctx, f, &opts.Target)
	if err != nil {
		return err
	}
	body, err := readBody(f.IO, "")
	if err != nil {
		return err
	}
	res, err := book.Put(ctx, opts.Name, opts.Description, body, opts.Pin)
	if err != nil {
		return err
	}
	if opts.JSON {
		return writeJSON(f.IO.Out, res.Note)
	}
	notebook.WriteSaved(f.IO.Out, f.IO.ErrOut, res)
	return nil
}

// NewCmdNotesRm builds `yagent notes rm`.
func NewCmdNotesRm(f *Factory) *cobra.Command {
	opts := &notesOptions{}
	cmd := &cobra.Command{
		Use:     "rm NAME [--session ID|--last]",
		Short:   "Delete a note",
		Example: `  yagent notes rm goal`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			return notesRmRun(cmd.Context(), f, opts)
		},
	}
	opts.register(cmd, "print JSON: {deleted}")
	return cmd
}

func notesRmRun(ctx context.Context, f *Factory, opts *notesOptions) error {
	book, _, err := openNotebook(ctx, f, &opts.Target)
	if err != nil {
		return err
	}
	if _, err := book.Delete(ctx, opts.Name); err != nil {
		return err
	}
	d := notebook.Deleted{Name: opts.Name}
	if opts.JSON {
		return writeJSON(f.IO.Out, d)
	}
	fmt.Fprintln(f.IO.Out, d.Text())
	return nil
}

// NewCmdNotesPin builds `yagent notes pin`.
func NewCmdNotesPin(f *Factory) *cobra.Command {
	opts := &notesOptions{}
	cmd := &cobra.Command{
		Use:   "pin NAME [--off] [--session ID|--last]",
		Short: "Pin a note (shown verbatim in every mode), or unpin it with --off",
		Example: `  yagent notes pin goal

  yagent notes pin goal --off`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			return notesPinRun(cmd.Context(), f, opts)
		},
	}
	opts.register(cmd, "print the note as JSON (fields as in ls)")
	cmd.Flags().BoolVar(&opts.Off, "off", false, "unpin")
	return cmd
}

func notesPinRun(ctx context.Context, f *Factory, opts *notesOptions) error {
	book, _, err := openNotebook(ctx, f, &opts.Target)
	if err != nil {
		return err
	}
	n, err := book.Pin(ctx, opts.Name, !opts.Off)
	if err != nil {
		return err
	}
	if opts.JSON {
		return writeJSON(f.IO.Out, n)
	}
	notebook.WritePinned(f.IO.Out, n)
	return nil
}

// NewCmdNotesRestore builds `yagent notes restore`.
func NewCmdNotesRestore(f *Factory) *cobra.Command {
	opts := &notesOptions{}
	cmd := &cobra.Command{
		Use:   "restore [--session ID|--last]",
		Short: "Bring back the notebook archived before the last rebuild (the current one is archived in its place)",
		Example: `  # Bring back the notebook from before the last rebuild
  yagent notes restore --session 20261201T101500-3f2a1c`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return notesRestoreRun(cmd.Context(), f, opts) },
	}
	opts.register(cmd, "print the restored notes as JSON (fields as in ls)")
	return cmd
}

func notesRestoreRun(ctx context.Context, f *Factory, opts *notesOptions) error {
	book, _, err := openNotebook(ctx, f, &opts.Target)
	if err != nil {
		return err
	}
	notes, err := book.Restore(ctx)
	if err != nil {
		return err
	}
	book.WarnRestored(f.IO.ErrOut, notes)
	if opts.JSON {
		return writeJSON(f.IO.Out, nonNil(notes))
	}
	fmt.Fprintf(f.IO.Out, "📝 restored %d notes\n", len(notes))
	return nil
}
