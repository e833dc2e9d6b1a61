package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/yagent/yagent/director"
	"github.com/yagent/yagent/memory"
)

// NewCmdRewind builds `yagent rewind`: the logic is director.Rewind.
func NewCmdRewind(f *Factory) *cobra.Command {
	var t sessionTarget
	var o director.RewindOptions
	cmd := &cobra.Command{
		Use:   "rewind [--session ID | --last] [--turn N | --delegation REF] [--files-only | --conversation-only] [--force]",
		Short: "Take a session's workspace files and conversation back to before a turn, or revert a delegation's applied change",
		Example: `  # Undo the last turn of this directory's newest session
  yagent rewind
  # Back to before turn 2, the files only
  yagent rewind --turn 2 --files-only`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			in, err := t.find(ctx, f)
			if err != nil {
				return err
			}
			st, err := f.Sessions(ctx)
			cfg, cerr := f.Config()
			board, berr := f.Board()
			if err = errors.Join(err, cerr, berr); err != nil {
				return err
			}
			s, err := st.Resume(ctx, in.ID)
			if err != nil {
				return err
			}
			defer s.Close()
			r, err := director.Rewind(ctx, director.RewindIn{Home: cfg.Home, Workspace: in.Cwd, Session: s, Board: board, MaxBytes: cfg.Agents.IsolationMaxBytes, RewindOptions: o})
			if r != nil {
				fmt.Fprint(f.IO.Out, r.Report())
			}
			if errors.Is(err, director.ErrRewindUsage) || errors.Is(err, memory.ErrNoTurn) {
				return usagef("%v", err)
			}
			return err
		},
	}
	t.register(cmd)
	cmd.Flags().IntVar(&o.Turn, "turn", 0, "back to before turn N (default: the last turn)")
	cmd.Flags().StringVar(&o.Delegation, "delegation", "", "revert this note's delegation, its files only: its applied change, or what it changed in place (isolation: none)")
	for _, s := range director.RewindSwitches() { // /rewind's too
		cmd.Flags().BoolVar(s.Field(&o), s.Name, false, s.Help)
	}
	cmd.MarkFlagsMutuallyExclusive("turn", "delegation")
	cmd.MarkFlagsMutuallyExclusive("files-only", "conversation-only")
	return cmd
}
