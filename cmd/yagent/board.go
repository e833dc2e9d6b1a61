package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/director"
	"github.com/yagent/yagent/internal/termsafe"
	"github.com/yagent/yagent/memory"
)

// NewCmdBoard builds `yagent board`.
func NewCmdBoard(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "board",
		Short: "Inspect and maintain blackboards of handoff notes",
		Long: `A board holds one note per finished delegation:
$YAGENT_NOTES_ROOT (default ~/.yagent/notes)/{board}/{agent}/{stem}.md.
A note's ref is {agent}/{stem}. With --json every command prints stable
field names (see README.md, "Board JSON").`,
		Example: `  yagent board boards
  yagent board ls --board demo
  yagent board show explorer/20261201T101500Z_ab12-4242-000001 --board demo`,
	}
	cmd.AddCommand(
		NewCmdBoardBoards(f),
		NewCmdBoardLs(f),
		NewCmdBoardShow(f),
		NewCmdBoardIndex(f),
		NewCmdBoardPut(f),
		NewCmdBoardGC(f),
		NewCmdBoardFollowUp(f),
		NewCmdBoardRerun(f),
		NewCmdBoardCancel(f),
		NewCmdBoardTasks(f),
		NewCmdBoardPath(f),
	)
	return cmd
}

// openBoard opens the store for a board id a person typed, checked
// (blackboard.Store.CheckBoard).
func openBoard(f *Factory, board string, mustExist bool) (*blackboard.Store, error) {
	store, err := f.Board()
	if err != nil {
		return nil, err
	}
	return store, store.CheckBoard(board, mustExist)
}

// boardBoardsOptions are the inputs of `yagent board boards`.
type boardBoardsOptions struct {
	JSON bool
}

// NewCmdBoardBoards builds `yagent board boards`.
func NewCmdBoardBoards(f *Factory) *cobra.Command {
	opts := &boardBoardsOptions{}
	cmd := &cobra.Command{
		Use:   "boards",
		Short: "List boards with note counts, newest note time and size",
		Example: `  # Every board, most recently active first
  yagent board boards

  yagent board boards --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return boardBoardsRun(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON: [{id, notes, newest, bytes}]")
	return cmd
}

func boardBoardsRun(ctx context.Context, f *Factory, opts *boardBoardsOptions) error {
	store, err := f.Board()
	if err != nil {
		return err
	}
	boards, err := store.Boards()
	if err != nil {
		return blackboard.Advise(err)
	}
	if opts.JSON {
		return writeJSON(f.IO.Out, nonNil(boards))
	}
	return blackboard.WriteBoards(f.IO.Out, f.IO.ErrOut, store.Root(), boards)
}

// boardLsOptions are the inputs of `yagent board ls`.
type boardLsOptions struct {
	Board string
	Agent string
	Limit int
	JSON  bool
}

// NewCmdBoardLs builds `yagent board ls`.
func NewCmdBoardLs(f *Factory) *cobra.Command {
	opts := &boardLsOptions{}
	cmd := &cobra.Command{
		Use:   "ls [--board ID] [--agent A]",
		Short: "List a board's notes, newest first",
		Long: `List a board's notes, newest first. Without --board, the board of the
newest session in this directory (said on stderr).`,
		Example: `  # The notes of this directory's newest session, newest first
  yagent board ls

  # A board's notes
  yagent board ls --board demo

  # Only the explorer's last five notes
  yagent board ls --board demo --agent explorer --limit 5`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return boardLsRun(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Board, "board", "", "board id (default: the newest session's in this directory)")
	cmd.Flags().StringVar(&opts.Agent, "agent", "", "only this agent's notes (agent:repo and repo_agent both work)")
	cmd.Flags().IntVar(&opts.Limit, "limit", 0, "only the newest N notes")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON: {notes: [{ref, agent, stem, status, task, conclusion, facts, artifacts, created, body_size, degraded, oversized}], skipped, unreadable: [{ref, error}]}")
	return cmd
}

func boardLsRun(ctx context.Context, f *Factory, opts *boardLsOptions) error {
	if opts.Board == "" {
		rows, err := listSessions(ctx, f, false, 1)
		if err != nil {
			return err
		}
		if len(rows) == 0 {
			return usagef("--board is required: no session in this directory yet; `yagent board boards` lists the boards")
		}
		opts.Board = rows[0].BoardID
		fmt.Fprintf(f.IO.ErrOut, "board %s — of the newest session here, %s (--board picks another)\n", opts.Board, rows[0].ID)
	}
	store, err := openBoard(f, opts.Board, true)
	if err != nil {
		return err
	}
	res, err := store.ListNotes(opts.Board, blackboard.ListOptions{Agent: opts.Agent, Limit: opts.Limit})
	if err != nil {
		return blackboard.Advise(err)
	}
	if opts.JSON {
		return writeJSON(f.IO.Out, res.JSON())
	}
	_, err = io.WriteString(f.IO.Out, res.Table())
	res.WriteSkipped(f.IO.ErrOut)
	return err
}

// boardShowOptions are the inputs of `yagent board show`.
type boardShowOptions struct {
	Board string
	Ref   string
	JSON  bool
	Patch bool
}

// NewCmdBoardShow builds `yagent board show`.
func NewCmdBoardShow(f *Factory) *cobra.Command {
	opts := &boardShowOptions{}
	cmd := &cobra.Command{
		Use:   "show REF --board ID",
		Short: "Print a note: its rendered handoff and its full body",
		Example: `  yagent board show explorer/20261201T101500Z_ab12-4242-000001 --board demo

  # Front matter and body as JSON
  yagent board show explorer/20261201T101500Z_ab12-4242-000001 --board demo --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Ref = args[0]
			return boardShowRun(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Board, "board", "", "board id (required)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON: {meta: {…as in ls}, handoff: {version, status, agent, task, conclusion, reason, facts, artifacts, created, degraded}, body}")
	cmd.Flags().BoolVar(&opts.Patch, "patch", false, "print the change's patch after the body even when long (a patch of at most 40 lines always is)")
	required(cmd, "board")
	return cmd
}

func boardShowRun(ctx context.Context, f *Factory, opts *boardShowOptions) error {
	store, err := openBoard(f, opts.Board, true)
	if err != nil {
		return err
	}
	n, err := store.ReadNote(opts.Board, opts.Ref)
	if errors.Is(err, blackboard.ErrNoteNotFound) {
		return fmt.Errorf("%w: `yagent board ls --board %s` lists the refs", err, opts.Board)
	}
	if errors.Is(err, blackboard.ErrNoteTooLarge) && !opts.JSON {
		return blackboard.Advise(store.ShowStream(f.IO.Out, opts.Board, opts.Ref))
	}
	if errors.Is(err, blackboard.ErrNoteTooLarge) {
		return fmt.Errorf("%w; without --json board show streams it", err)
	}
	if err != nil {
		return blackboard.Advise(err)
	}
	if opts.JSON {
		return writeJSON(f.IO.Out, n.JSON())
	}
	patch, _ := store.ReadPatch(opts.Board, opts.Ref)
	return n.Show(f.IO.Out, patch, opts.Patch)
}

// boardIndexOptions are the inputs of `yagent board index`.
type boardIndexOptions struct {
	Board string
}

// NewCmdBoardIndex builds `yagent board index`.
func NewCmdBoardIndex(f *Factory) *cobra.Command {
	opts := &boardIndexOptions{}
	cmd := &cobra.Command{
		Use:   "index --board ID",
		Short: "Print exactly the board index injected into model calls",
		Long: `Print exactly the text that is injected into every director call and
every delegation prefix, header included, with the trailing "skipped" line
when notes are unreadable. Prints nothing for an empty board or when
blackboard.index_max_notes is 0.`,
		Example: `  # What the director sees of the board in its next model call
  yagent board index --board demo`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return boardIndexRun(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Board, "board", "", "board id (required)")
	required(cmd, "board")
	return cmd
}

func boardIndexRun(ctx context.Context, f *Factory, opts *boardIndexOptions) error {
	store, err := openBoard(f, opts.Board, true)
	if err != nil {
		return err
	}
	cfg, err := f.Config()
	if err != nil {
		return err
	}
	idx, err := store.BuildIndex(opts.Board, blackboard.IndexOptionsFromConfig(cfg.Blackboard))
	if err != nil {
		return err
	}
	if idx.Text != "" {
		fmt.Fprintln(f.IO.Out, termsafe.Text(idx.Text)) // control characters shown, not obeyed
	}
	return nil
}

// boardPathOptions are the inputs of `yagent board path`.
type boardPathOptions struct {
	Board string
}

// NewCmdBoardPath builds `yagent board path`.
func NewCmdBoardPath(f *Factory) *cobra.Command {
	opts := &boardPathOptions{}
	cmd := &cobra.Command{
		Use:   "path [--board ID]",
		Short: "Print the notes root, or a board's directory",
		Example: `  # Where boards live
  yagent board path

  # Open a board's directory
  cd "$(yagent board path --board demo)"`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return boardPathRun(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Board, "board", "", "board id")
	return cmd
}

func boardPathRun(ctx context.Context, f *Factory, opts *boardPathOptions) error {
	if opts.Board == "" {
		store, err := f.Board()
		if err != nil {
			return err
		}
		fmt.Fprintln(f.IO.Out, store.Root())
		return nil
	}
	store, err := openBoard(f, opts.Board, false)
	if err != nil {
		return err
	}
	fmt.Fprintln(f.IO.Out, store.BoardDir(opts.Board))
	return nil
}

// boardFollowUpOptions are the inputs of `yagent board follow-up` and
// `yagent board rerun` (Rerun).
type boardFollowUpOptions struct {
	Board, Ref, Message string
	Rerun               bool
	Agent               agentFlags
}

// NewCmdBoardFollowUp builds `yagent board follow-up`: director.FollowUp
// in a new session on the note's board.
func NewCmdBoardFollowUp(f *Factory) *cobra.Command {
	return boardFollowUpCmd(f, &boardFollowUpOptions{}, &cobra.Command{
		Use:     `follow-up REF "MESSAGE" --board ID`,
		Short:   "Continue the sub-agent that wrote a note: its own history plus MESSAGE; its new note supersedes REF",
		Example: `  yagent board follow-up explorer/20261201T101500Z_ab12-4242-000001 "Now list the tests too" --board demo`,
		Args:    cobra.ExactArgs(2),
	})
}

// NewCmdBoardRerun builds `yagent board rerun`: director.Rerun in a new
// session on the note's board.
func NewCmdBoardRerun(f *Factory) *cobra.Command {
	return boardFollowUpCmd(f, &boardFollowUpOptions{Rerun: true}, &cobra.Command{
		Use:     `rerun REF --board ID`,
		Short:   "Run a note's delegation again: a new delegation with the same agent and task (yagent resume offers it for recovered ones)",
		Example: `  yagent board rerun explorer/20261201T101500Z_ab12-4242-000001 --board demo`,
		Args:    cobra.ExactArgs(1),
	})
}

func boardFollowUpCmd(f *Factory, opts *boardFollowUpOptions, cmd *cobra.Command) *cobra.Command {
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		opts.Ref, opts.Message = args[0], args[len(args)-1]
		return boardFollowUpRun(cmd.Context(), f, opts)
	}
	cmd.Flags().StringVar(&opts.Board, "board", "", "board id (required)")
	opts.Agent.register(cmd.Flags())
	required(cmd, "board")
	return cmd
}

func boardFollowUpRun(ctx context.Context, f *Factory, opts *boardFollowUpOptions) error {
	store, err := openBoard(f, opts.Board, true)
	if err != nil {
		return err
	}
	title := "follow-up of " + opts.Ref
	if opts.Rerun {
		title = "re-run of " + opts.Ref
		_, err = director.RerunOf(store, opts.Board, opts.Ref)
	} else {
		_, err = director.FollowUpOf(store, opts.Board, opts.Ref, opts.Message)
	}
	if err != nil {
		return blackboard.Advise(err) // refused before a session is made for it
	}
	s, err := openSession(ctx, f, &opts.Agent, sessionRequest{Kind: memory.KindRun, Board: opts.Board, Title: title})
	if err != nil {
		return err
	}
	defer s.close()
	var out string
	if opts.Rerun {
		out, err = s.d.Rerun(ctx, opts.Ref)
	} else {
		out, err = s.d.FollowUp(ctx, opts.Ref, opts.Message)
	}
	if s.human != nil {
		s.human.Finish()
		fmt.Fprintln(f.IO.Out, termsafe.Text(out))
	}
	return err
}

// boardCancelOptions are the inputs of `yagent board cancel`.
type boardCancelOptions struct{ Board, Ref string }

// NewCmdBoardCancel builds `yagent board cancel`: director.RequestCancel.
func NewCmdBoardCancel(f *Factory) *cobra.Command {
	opts := &boardCancelOptions{}
	cmd := &cobra.Command{
		Use:     "cancel REF --board ID",
		Short:   "Stop a background delegation a running yagent process runs; its note lands degraded",
		Example: `  yagent board cancel explorer/20261201T101500Z_ab12-4242-000001 --board demo`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Ref = args[0]
			return boardCancelRun(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Board, "board", "", "board id (required)")
	required(cmd, "board")
	return cmd
}

func boardCancelRun(ctx context.Context, f *Factory, opts *boardCancelOptions) error {
	cfg, err := f.Config()
	if err != nil {
		return err
	}
	store, err := openBoard(f, opts.Board, false) // no note may have landed yet
	if err != nil {
		return err
	}
	m, err := director.RequestCancel(ctx, cfg.Home, store, opts.Board, opts.Ref, 30*time.Second)
	if err == nil {
		fmt.Fprintf(f.IO.Out, "cancelled %s: %s — %s\n", termsafe.Line(m.Ref), m.Status, termsafe.Line(m.Conclusion))
	}
	return err
}
