package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/yagent/yagent/blackboard"
)

// NewCmdBoard builds `yagent board`.
func NewCmdBoard(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "board",
		Short: "Inspect and maintain blackboards of handoff notes",
		Args:  cobra.ArbitraryArgs,
		RunE:  groupRunE,
		Long: `A board holds one note per finished delegation:
$YAGENT_NOTES_ROOT (default ~/.yagent/notes)/{board}/{agent}/{stem}.md.
A note's ref is {agent}/{stem}. With --json every command prints stable
field names (see README.md, "Board JSON").`,
	}
	cmd.AddCommand(
		NewCmdBoardBoards(f, nil),
		NewCmdBoardLs(f, nil),
		NewCmdBoardShow(f, nil),
		NewCmdBoardIndex(f, nil),
		NewCmdBoardPut(f, nil),
		NewCmdBoardGC(f, nil),
		NewCmdBoardPath(f, nil),
	)
	return cmd
}

// openBoard validates a board id given by a person and opens the store. An
// id that would be changed by sanitising (a path escape, a slash) is refused
// rather than silently mapped to another board.
func openBoard(f *Factory, board string, mustExist bool) (*blackboard.Store, error) {
	if err := blackboard.CheckBoardID(board); err != nil {
		return nil, &usageError{err}
	}
	store, err := f.Board()
	if err != nil {
		return nil, err
	}
	if mustExist && !store.BoardExists(board) {
		return nil, usagef("board %q does not exist under %s: `yagent board boards` lists the boards", board, store.Root())
	}
	return store, nil
}

func boardErr(err error) error {
	if errors.Is(err, blackboard.ErrDisabled) {
		return fmt.Errorf("%w: unset it to use the board", err)
	}
	return err
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// BoardBoardsOptions are the inputs of `yagent board boards`.
type BoardBoardsOptions struct {
	IO   *IOStreams
	JSON bool
	f    *Factory
}

// NewCmdBoardBoards builds `yagent board boards`.
func NewCmdBoardBoards(f *Factory, runF func(*BoardBoardsOptions) error) *cobra.Command {
	opts := &BoardBoardsOptions{IO: f.IO, f: f}
	cmd := &cobra.Command{
		Use:   "boards",
		Short: "List boards with note counts, newest note time and size",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return boardBoardsRun(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON: [{id, notes, newest, bytes}]")
	return cmd
}

func boardBoardsRun(opts *BoardBoardsOptions) error {
	store, err := opts.f.Board()
	if err != nil {
		return err
	}
	boards, err := store.Boards()
	if err != nil {
		return boardErr(err)
	}
	if opts.JSON {
		if boards == nil {
			boards = []blackboard.BoardInfo{}
		}
		return writeJSON(opts.IO.Out, boards)
	}
	if len(boards) == 0 {
		fmt.Fprintf(opts.IO.ErrOut, "no boards under %s\n", store.Root())
		return nil
	}
	tw := tabwriter.NewWriter(opts.IO.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "BOARD\tNOTES\tNEWEST\tSIZE")
	for _, b := range boards {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\n", b.ID, b.Notes, b.Newest.Format(time.DateTime), humanBytes(b.Bytes))
	}
	return tw.Flush()
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// BoardLsOptions are the inputs of `yagent board ls`.
type BoardLsOptions struct {
	IO    *IOStreams
	Board string
	Agent string
	Limit int
	JSON  bool
	f     *Factory
}

// NewCmdBoardLs builds `yagent board ls`.
func NewCmdBoardLs(f *Factory, runF func(*BoardLsOptions) error) *cobra.Command {
	opts := &BoardLsOptions{IO: f.IO, f: f}
	cmd := &cobra.Command{
		Use:   "ls --board ID [--agent A]",
		Short: "List a board's notes, newest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return boardLsRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Board, "board", "", "board id (required)")
	cmd.Flags().StringVar(&opts.Agent, "agent", "", "only this agent's notes (agent:repo and repo_agent both work)")
	cmd.Flags().IntVar(&opts.Limit, "limit", 0, "only the newest N notes")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON: {notes: [{ref, agent, stem, status, task, conclusion, facts, artifacts, created, body_size, degraded}], skipped}")
	_ = cmd.MarkFlagRequired("board")
	return cmd
}

func boardLsRun(opts *BoardLsOptions) error {
	store, err := openBoard(opts.f, opts.Board, true)
	if err != nil {
		return err
	}
	res, err := store.ListNotes(opts.Board, blackboard.ListOptions{Agent: opts.Agent, Limit: opts.Limit})
	if err != nil {
		return boardErr(err)
	}
	if opts.JSON {
		notes := res.Notes
		if notes == nil {
			notes = []blackboard.NoteMeta{}
		}
		return writeJSON(opts.IO.Out, struct {
			Notes   []blackboard.NoteMeta `json:"notes"`
			Skipped int                   `json:"skipped"`
		}{notes, res.Skipped})
	}
	tw := tabwriter.NewWriter(opts.IO.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "REF\tSTATUS\tCREATED\tBODY\tCONCLUSION")
	for _, m := range res.Notes {
		status := string(m.Status)
		if m.Degraded != "" {
			status += " (" + string(m.Degraded) + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", m.Ref, status, m.Created.Format(time.DateTime), humanBytes(int64(m.BodySize)), oneLine(m.Conclusion, 80))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if res.Skipped > 0 {
		fmt.Fprintf(opts.IO.ErrOut, "%d unreadable notes skipped\n", res.Skipped)
	}
	return nil
}

// oneLine flattens s to one line of at most n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// BoardShowOptions are the inputs of `yagent board show`.
type BoardShowOptions struct {
	IO    *IOStreams
	Board string
	Ref   string
	JSON  bool
	f     *Factory
}

// NewCmdBoardShow builds `yagent board show`.
func NewCmdBoardShow(f *Factory, runF func(*BoardShowOptions) error) *cobra.Command {
	opts := &BoardShowOptions{IO: f.IO, f: f}
	cmd := &cobra.Command{
		Use:   "show REF --board ID",
		Short: "Print a note: its rendered handoff and its full body",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Ref = args[0]
			if runF != nil {
				return runF(opts)
			}
			return boardShowRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Board, "board", "", "board id (required)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON: {meta: {…as in ls}, handoff: {version, status, agent, task, conclusion, reason, facts, artifacts, created, degraded}, body}")
	_ = cmd.MarkFlagRequired("board")
	return cmd
}

func boardShowRun(opts *BoardShowOptions) error {
	store, err := openBoard(opts.f, opts.Board, true)
	if err != nil {
		return err
	}
	if _, err := blackboard.ParseNoteRef(opts.Ref); err != nil {
		return &usageError{err}
	}
	n, err := store.ReadNote(opts.Board, opts.Ref)
	if errors.Is(err, blackboard.ErrNoteNotFound) {
		return usagef("%v: `yagent board ls --board %s` lists the refs", err, opts.Board)
	}
	if err != nil {
		return boardErr(err)
	}
	if opts.JSON {
		return writeJSON(opts.IO.Out, struct {
			Meta    blackboard.NoteMeta `json:"meta"`
			Handoff *blackboard.Handoff `json:"handoff"`
			Body    string              `json:"body"`
		}{n.Meta, n.Handoff, n.Body})
	}
	fmt.Fprintf(opts.IO.Out, "ref: %s\n%s\n\n%s", n.Meta.Ref, n.Handoff.Render(0), n.Body)
	if !strings.HasSuffix(n.Body, "\n") {
		fmt.Fprintln(opts.IO.Out)
	}
	return nil
}

// BoardIndexOptions are the inputs of `yagent board index`.
type BoardIndexOptions struct {
	IO    *IOStreams
	Board string
	f     *Factory
}

// NewCmdBoardIndex builds `yagent board index`.
func NewCmdBoardIndex(f *Factory, runF func(*BoardIndexOptions) error) *cobra.Command {
	opts := &BoardIndexOptions{IO: f.IO, f: f}
	cmd := &cobra.Command{
		Use:   "index --board ID",
		Short: "Print exactly the board index injected into model calls",
		Long: `Print exactly the text that is injected into every director call and
every delegation prefix, header included, with the trailing "skipped" line
when notes are unreadable. Prints nothing for an empty board or when
blackboard.index_max_notes is 0.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return boardIndexRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Board, "board", "", "board id (required)")
	_ = cmd.MarkFlagRequired("board")
	return cmd
}

func boardIndexRun(opts *BoardIndexOptions) error {
	store, err := openBoard(opts.f, opts.Board, true)
	if err != nil {
		return err
	}
	cfg, err := opts.f.Config()
	if err != nil {
		return err
	}
	idx, err := store.BuildIndex(opts.Board, blackboard.IndexOptionsFromConfig(cfg.Blackboard))
	if err != nil {
		return err
	}
	if idx.Text != "" {
		fmt.Fprintln(opts.IO.Out, idx.Text)
	}
	return nil
}

// BoardPathOptions are the inputs of `yagent board path`.
type BoardPathOptions struct {
	IO    *IOStreams
	Board string
	f     *Factory
}

// NewCmdBoardPath builds `yagent board path`.
func NewCmdBoardPath(f *Factory, runF func(*BoardPathOptions) error) *cobra.Command {
	opts := &BoardPathOptions{IO: f.IO, f: f}
	cmd := &cobra.Command{
		Use:   "path [--board ID]",
		Short: "Print the notes root, or a board's directory",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return boardPathRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Board, "board", "", "board id")
	return cmd
}

func boardPathRun(opts *BoardPathOptions) error {
	if opts.Board == "" {
		store, err := opts.f.Board()
		if err != nil {
			return err
		}
		fmt.Fprintln(opts.IO.Out, store.Root())
		return nil
	}
	store, err := openBoard(opts.f, opts.Board, false)
	if err != nil {
		return err
	}
	fmt.Fprintln(opts.IO.Out, store.BoardDir(opts.Board))
	return nil
}

func sortStrings(s []string) { slices.Sort(s) }

func blackboardCheck(board string) error { return blackboard.CheckBoardID(board) }
