package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/yagent/yagent/memory"
	"github.com/yagent/yagent/notebook"
)

// notesTarget selects the session whose notebook a command works on.
type notesTarget struct {
	Session string
	Last    bool
	JSON    bool
}

func (t *notesTarget) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&t.Session, "session", "", "the session (id, id prefix or name); default: this directory's newest")
	cmd.Flags().BoolVar(&t.Last, "last", false, "this directory's newest session (the default)")
	cmd.Flags().BoolVar(&t.JSON, "json", false, "print JSON")
}

func (t *notesTarget) open(ctx context.Context, f *Factory) (*notebook.Book, memory.Info, error) {
	cfg, err := f.Config()
	if err != nil {
		return nil, memory.Info{}, err
	}
	if !cfg.Notes.Enabled {
		return nil, memory.Info{}, usagef("the notebook is off (notes.enabled: false)")
	}
	st, err := f.Sessions(ctx)
	if err != nil {
		return nil, memory.Info{}, err
	}
	var in memory.Info
	if t.Session != "" {
		in, err = st.Get(ctx, t.Session)
	} else {
		cwd, werr := workspaceDir(f, &agentFlags{})
		if werr != nil {
			return nil, memory.Info{}, werr
		}
		in, err = st.Last(ctx, cwd)
	}
	if err != nil {
		return nil, memory.Info{}, &usageError{err}
	}
	return notebook.Open(st.DB, in.ID, cfg.Notes), in, nil
}

// notebookErr maps refusals (limits, missing notes) to exit code 2.
func notebookErr(err error) error {
	if notebook.IsRefusal(err) {
		return &usageError{err}
	}
	return err
}

// NewCmdNotes builds `yagent notes`.
func NewCmdNotes(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "notes",
		Short: "Read and edit the lead's notebook of a session",
		Long: `The notebook is what the director decided not to lose in a session: it
survives compaction and /clear, and sub-agents never see it. These commands
act as the person, outside any turn; the same limits apply.`,
		Args: cobra.ArbitraryArgs, RunE: groupRunE,
	}
	cmd.AddCommand(newCmdNotesLs(f), newCmdNotesShow(f), newCmdNotesPut(f), newCmdNotesRm(f), newCmdNotesPin(f), newCmdNotesRestore(f))
	return cmd
}

func newCmdNotesLs(f *Factory) *cobra.Command {
	t := &notesTarget{}
	cmd := &cobra.Command{
		Use:   "ls [--session ID|--last] [--json]",
		Short: "List the notes; * marks the ones changed since you last looked",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			book, in, err := t.open(cmd.Context(), f)
			if err != nil {
				return err
			}
			notes, err := book.List(cmd.Context())
			if err != nil {
				return err
			}
			if err := book.MarkSeen(cmd.Context()); err != nil {
				return err
			}
			if t.JSON {
				if notes == nil {
					notes = []notebook.Note{}
				}
				return writeJSON(f.IO.Out, notes)
			}
			printNotes(f.IO.Out, f.IO.ErrOut, in, notes)
			return nil
		},
	}
	t.register(cmd)
	cmd.Flags().Lookup("json").Usage = "print JSON: [{name, description, body, prev_body, pinned, created, updated, new}]"
	return cmd
}

func printNotes(out, errOut io.Writer, in memory.Info, notes []notebook.Note) {
	if len(notes) == 0 {
		fmt.Fprintf(errOut, "the notebook of session %s is empty\n", in.ID)
		return
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, " \tNAME\tPIN\tCHARS\tUPDATED\tDESCRIPTION")
	for _, n := range notes {
		mark, pin := " ", ""
		if n.New {
			mark = "*"
		}
		if n.Pinned {
			pin = "pinned"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", mark, n.Name, pin, len([]rune(n.Body)), n.Updated.Local().Format(time.DateTime), oneLine(n.Description, 80))
	}
	tw.Flush()
}

func newCmdNotesShow(f *Factory) *cobra.Command {
	t := &notesTarget{}
	cmd := &cobra.Command{
		Use:   "show NAME [--session ID|--last] [--json]",
		Short: "Print a note, with what changed in its last edit",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			book, _, err := t.open(cmd.Context(), f)
			if err != nil {
				return err
			}
			n, err := book.Get(cmd.Context(), args[0])
			if err != nil {
				return notebookErr(err)
			}
			if t.JSON {
				return writeJSON(f.IO.Out, n)
			}
			pin := ""
			if n.Pinned {
				pin = " (pinned)"
			}
			fmt.Fprintf(f.IO.Out, "## %s | %s%s\n%s\n", n.Name, n.Description, pin, strings.TrimRight(n.Body, "\n"))
			if n.PrevBody != "" && n.PrevBody != n.Body {
				fmt.Fprintln(f.IO.ErrOut, "last edit:")
				for _, l := range lineDiff(n.PrevBody, n.Body) {
					fmt.Fprintln(f.IO.ErrOut, "  "+l)
				}
			}
			return nil
		},
	}
	t.register(cmd)
	return cmd
}

func newCmdNotesPut(f *Factory) *cobra.Command {
	t := &notesTarget{}
	var desc string
	var pin bool
	cmd := &cobra.Command{
		Use:   "put NAME --description D [--pin] < body",
		Short: "Write a note as the person (body on stdin)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			book, _, err := t.open(cmd.Context(), f)
			if err != nil {
				return err
			}
			body, err := readBody(&BoardPutOptions{IO: f.IO})
			if err != nil {
				return err
			}
			res, err := book.Save(cmd.Context(), args[0], desc, body)
			if err != nil {
				return notebookErr(err)
			}
			if pin {
				if _, err := book.Pin(cmd.Context(), args[0], true); err != nil {
					return notebookErr(err)
				}
			}
			if t.JSON {
				return writeJSON(f.IO.Out, res.Note)
			}
			verb := "saved"
			if res.Created {
				verb = "created"
			}
			fmt.Fprintf(f.IO.Out, "📝 %s %s\n", verb, args[0])
			for _, l := range lineDiff(res.Note.PrevBody, res.Note.Body) {
				fmt.Fprintln(f.IO.ErrOut, "   "+l)
			}
			return nil
		},
	}
	t.register(cmd)
	cmd.Flags().StringVar(&desc, "description", "", "one line, at most 120 characters (required)")
	cmd.Flags().BoolVar(&pin, "pin", false, "pin the note")
	_ = cmd.MarkFlagRequired("description")
	return cmd
}

func newCmdNotesRm(f *Factory) *cobra.Command {
	t := &notesTarget{}
	cmd := &cobra.Command{
		Use:   "rm NAME [--session ID|--last]",
		Short: "Delete a note",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			book, _, err := t.open(cmd.Context(), f)
			if err != nil {
				return err
			}
			if _, err := book.Delete(cmd.Context(), args[0]); err != nil {
				return notebookErr(err)
			}
			fmt.Fprintf(f.IO.Out, "📝 deleted %s\n", args[0])
			return nil
		},
	}
	t.register(cmd)
	return cmd
}

func newCmdNotesPin(f *Factory) *cobra.Command {
	t := &notesTarget{}
	var off bool
	cmd := &cobra.Command{
		Use:   "pin NAME [--off] [--session ID|--last]",
		Short: "Pin a note (shown verbatim in every mode), or unpin it with --off",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			book, _, err := t.open(cmd.Context(), f)
			if err != nil {
				return err
			}
			if _, err := book.Pin(cmd.Context(), args[0], !off); err != nil {
				return notebookErr(err)
			}
			verb := "pinned"
			if off {
				verb = "unpinned"
			}
			fmt.Fprintf(f.IO.Out, "📝 %s %s\n", verb, args[0])
			return nil
		},
	}
	t.register(cmd)
	cmd.Flags().BoolVar(&off, "off", false, "unpin")
	return cmd
}

func newCmdNotesRestore(f *Factory) *cobra.Command {
	t := &notesTarget{}
	cmd := &cobra.Command{
		Use:   "restore [--session ID|--last]",
		Short: "Bring back the notebook archived before the last rebuild (the current one is archived in its place)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			book, _, err := t.open(cmd.Context(), f)
			if err != nil {
				return err
			}
			notes, err := book.Restore(cmd.Context())
			if err != nil {
				return notebookErr(err)
			}
			if t.JSON {
				return writeJSON(f.IO.Out, notes)
			}
			fmt.Fprintf(f.IO.Out, "📝 restored %d notes\n", len(notes))
			return nil
		},
	}
	t.register(cmd)
	return cmd
}
