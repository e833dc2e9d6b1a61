package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/chat"
)

// NewCmdSessions builds `yagent sessions`.
func NewCmdSessions(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sessions",
		Short: "List, inspect and remove sessions",
		Example: `  yagent sessions ls
  yagent sessions show 20261201T101500-3f2a1c`,
	}
	cmd.AddCommand(NewCmdSessionsLs(f), NewCmdSessionsShow(f), NewCmdSessionsRm(f))
	return cmd
}

// listSessions lists the sessions of this directory (all: every
// directory), newest first, with their boards' sizes.
func listSessions(ctx context.Context, f *Factory, all bool, limit int) ([]chat.Row, error) {
	st, err := f.Sessions(ctx)
	if err != nil {
		return nil, err
	}
	cwd, err := workspaceDir(f, &agentFlags{})
	if err != nil {
		return nil, err
	}
	board, err := f.Board()
	if err != nil {
		return nil, err
	}
	return chat.ListSessions(ctx, st, board, cwd, all, limit)
}

// sessionsLsOptions are the inputs of `yagent sessions ls`.
type sessionsLsOptions struct {
	All   bool
	JSON  bool
	Limit int
}

// NewCmdSessionsLs builds `yagent sessions ls`.
func NewCmdSessionsLs(f *Factory) *cobra.Command {
	opts := &sessionsLsOptions{}
	cmd := &cobra.Command{
		Use:   "ls [--all] [--json]",
		Short: "List sessions of this directory (--all: every directory), newest first",
		Example: `  # Sessions of this directory, newest first
  yagent sessions ls

  # Every directory, the newest 50
  yagent sessions ls --all --limit 50`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return sessionsLsRun(cmd.Context(), f, opts) },
	}
	cmd.Flags().BoolVar(&opts.All, "all", false, "every directory's sessions")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON: [{id, kind, title, name, cwd, model, parent_id, rollout, created, updated, board_id, turns, summary_upto, notes_mode, notes_nudged_upto, wrap_nudged_upto, board_notes}]")
	cmd.Flags().IntVar(&opts.Limit, "limit", 50, "at most this many")
	return cmd
}

func sessionsLsRun(ctx context.Context, f *Factory, opts *sessionsLsOptions) error {
	rows, err := listSessions(ctx, f, opts.All, opts.Limit)
	if err != nil {
		return err
	}
	if opts.JSON {
		return writeJSON(f.IO.Out, nonNil(rows))
	}
	return chat.WriteSessions(f.IO.Out, f.IO.ErrOut, rows)
}

// sessionsShowOptions are the inputs of `yagent sessions show`.
type sessionsShowOptions struct {
	Ref  string
	JSON bool
}

// NewCmdSessionsShow builds `yagent sessions show`.
func NewCmdSessionsShow(f *Factory) *cobra.Command {
	opts := &sessionsShowOptions{}
	cmd := &cobra.Command{
		Use:   "show ID [--json]",
		Short: "Show a session: its row and its spend by label",
		Example: `  yagent sessions show 20261201T101500-3f2a1c

  yagent sessions show storage-review --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Ref = args[0]
			return sessionsShowRun(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON: {session: {…as in ls}, spend: [{label, requests, prompt_tokens, cached_tokens, completion_tokens}]}")
	return cmd
}

func sessionsShowRun(ctx context.Context, f *Factory, opts *sessionsShowOptions) error {
	st, err := f.Sessions(ctx)
	if err != nil {
		return err
	}
	in, err := st.Get(ctx, opts.Ref)
	if err != nil {
		return err
	}
	spend, err := st.Spend(ctx, in.ID)
	if err != nil {
		return err
	}
	if opts.JSON {
		return writeJSON(f.IO.Out, in.JSON(spend))
	}
	_, err = io.WriteString(f.IO.Out, in.Text(spend))
	return err
}

// sessionsRmOptions are the inputs of `yagent sessions rm`.
type sessionsRmOptions struct {
	Ref       string
	WithBoard bool
}

// NewCmdSessionsRm builds `yagent sessions rm`.
func NewCmdSessionsRm(f *Factory) *cobra.Command {
	opts := &sessionsRmOptions{}
	cmd := &cobra.Command{
		Use:   "rm ID [--board]",
		Short: "Remove a session: its rollout, its sub-agents' sessions, its notebook and stats (the board only with --board)",
		Example: `  # Remove a session and its board
  yagent sessions rm 20261201T101500-3f2a1c --board`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Ref = args[0]
			return sessionsRmRun(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.WithBoard, "board", false, "remove the session's board too")
	return cmd
}

func sessionsRmRun(ctx context.Context, f *Factory, opts *sessionsRmOptions) error {
	st, err := f.Sessions(ctx)
	if err != nil {
		return err
	}
	removed, err := chat.RemoveSession(ctx, st, opts.Ref) // its checkpoints too
	if err != nil {
		return err
	}
	main := removed[len(removed)-1]
	fmt.Fprintf(f.IO.Out, "removed session %s (%d sub-agent sessions)\n", main.ID, len(removed)-1)
	if !opts.WithBoard {
		fmt.Fprintf(f.IO.ErrOut, "board %s kept (yagent sessions rm --board removes it too)\n", main.BoardID)
		return nil
	}
	board, err := f.Board()
	if err != nil {
		return err
	}
	if err := board.RemoveBoard(main.BoardID); errors.Is(err, blackboard.ErrBadBoardID) {
		fmt.Fprintf(f.IO.ErrOut, "board %s kept: %v\n", main.BoardID, err)
		return nil
	} else if err != nil {
		return err
	}
	fmt.Fprintf(f.IO.Out, "removed board %s\n", main.BoardID)
	x, err := openChanges(f, &changesOptions{})
	if err != nil {
		return err
	}
	x.Workspace = cmp.Or(main.Cwd, x.Workspace) // the session's repository holds its branches
	gone, err := x.Collect(ctx)
	fmt.Fprintf(f.IO.Out, "removed %d isolations no note claims\n", len(gone))
	return err
}
