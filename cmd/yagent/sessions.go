package main

import (
	"context"
	"fmt"
	"os"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/memory"
)

// NewCmdSessions builds `yagent sessions`.
func NewCmdSessions(f *Factory) *cobra.Command {
	cmd := &cobra.Command{Use: "sessions", Short: "List, inspect and remove sessions", Args: cobra.ArbitraryArgs, RunE: groupRunE}
	cmd.AddCommand(newCmdSessionsLs(f), newCmdSessionsShow(f), newCmdSessionsRm(f))
	return cmd
}

// sessionRow is a session as listed: the row plus its board's size.
type sessionRow struct {
	memory.Info
	BoardNotes int `json:"board_notes"`
}

func listSessions(ctx context.Context, f *Factory, all bool, limit int) ([]sessionRow, error) {
	st, err := f.Sessions(ctx)
	if err != nil {
		return nil, err
	}
	cwd, err := workspaceDir(f, &agentFlags{})
	if err != nil {
		return nil, err
	}
	list, err := st.List(ctx, memory.ListOptions{Cwd: cwd, All: all, Limit: limit})
	if err != nil {
		return nil, err
	}
	board, err := f.Board()
	if err != nil {
		return nil, err
	}
	rows := make([]sessionRow, len(list))
	for i, in := range list {
		rows[i] = sessionRow{Info: in}
		if idx, err := board.BuildIndex(in.BoardID, blackboard.IndexOptions{MaxNotes: 1, LineChars: 40}); err == nil {
			rows[i].BoardNotes = idx.Total
		}
	}
	return rows, nil
}

func printSessions(w *tabwriter.Writer, rows []sessionRow, numbered bool) {
	if numbered {
		fmt.Fprint(w, "#\t")
	}
	fmt.Fprintln(w, "UPDATED\tID\tNAME\tKIND\tTURNS\tNOTES\tTITLE")
	for i, r := range rows {
		if numbered {
			fmt.Fprintf(w, "%d\t", i+1)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%d\t%d\t%s\n", r.Updated.Local().Format(time.DateTime), r.ID, dash(r.Name), r.Kind, r.Turns, r.BoardNotes, oneLine(r.Title, 60))
	}
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func newCmdSessionsLs(f *Factory) *cobra.Command {
	var all, asJSON bool
	var limit int
	cmd := &cobra.Command{
		Use:   "ls [--all] [--json]",
		Short: "List sessions of this directory (--all: every directory), newest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			rows, err := listSessions(cmd.Context(), f, all, limit)
			if err != nil {
				return err
			}
			if asJSON {
				if rows == nil {
					rows = []sessionRow{}
				}
				return writeJSON(f.IO.Out, rows)
			}
			if len(rows) == 0 {
				fmt.Fprintln(f.IO.ErrOut, "no sessions here yet (yagent sessions ls --all lists every directory)")
				return nil
			}
			tw := tabwriter.NewWriter(f.IO.Out, 0, 4, 2, ' ', 0)
			printSessions(tw, rows, false)
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "every directory's sessions")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON: [{id, kind, title, name, cwd, model, parent_id, rollout, created, updated, board_id, turns, summary_upto, notes_mode, notes_nudged_upto, wrap_nudged_upto, board_notes}]")
	cmd.Flags().IntVar(&limit, "limit", 50, "at most this many")
	return cmd
}

func newCmdSessionsShow(f *Factory) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show ID [--json]",
		Short: "Show a session: its row and its spend by label",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			st, err := f.Sessions(ctx)
			if err != nil {
				return err
			}
			in, err := st.Get(ctx, args[0])
			if err != nil {
				return &usageError{err}
			}
			spend, err := st.Spend(ctx, in.ID)
			if err != nil {
				return err
			}
			if asJSON {
				if spend == nil {
					spend = []memory.SpendRow{}
				}
				return writeJSON(f.IO.Out, struct {
					Session memory.Info       `json:"session"`
					Spend   []memory.SpendRow `json:"spend"`
				}{in, spend})
			}
			w := f.IO.Out
			fmt.Fprintf(w, "id:       %s\nname:     %s\nkind:     %s\ntitle:    %s\ncwd:      %s\nmodel:    %s\nboard:    %s\nturns:    %d\ncreated:  %s\nupdated:  %s\nrollout:  %s\n",
				in.ID, dash(in.Name), in.Kind, in.Title, in.Cwd, in.Model, in.BoardID, in.Turns,
				in.Created.Local().Format(time.DateTime), in.Updated.Local().Format(time.DateTime), in.Rollout)
			if in.ParentID != "" {
				fmt.Fprintf(w, "parent:   %s\n", in.ParentID)
			}
			fmt.Fprintln(w, "\nspend:")
			tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "LABEL\tREQUESTS\tPROMPT\tCACHED\tCOMPLETION")
			for _, r := range spend {
				fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\n", r.Label, r.Requests, r.PromptTokens, r.CachedTokens, r.CompletionTokens)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON: {session: {…as in ls}, spend: [{label, requests, prompt_tokens, cached_tokens, completion_tokens}]}")
	return cmd
}

func newCmdSessionsRm(f *Factory) *cobra.Command {
	var withBoard bool
	cmd := &cobra.Command{
		Use:   "rm ID [--board]",
		Short: "Remove a session: its rollout, its sub-agents' sessions, its notebook and stats (the board only with --board)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			st, err := f.Sessions(ctx)
			if err != nil {
				return err
			}
			removed, err := st.Delete(ctx, args[0])
			if err != nil {
				return &usageError{err}
			}
			main := removed[len(removed)-1]
			fmt.Fprintf(f.IO.Out, "removed session %s (%d sub-agent sessions)\n", main.ID, len(removed)-1)
			if withBoard {
				board, err := f.Board()
				if err != nil {
					return err
				}
				if err := blackboard.CheckBoardID(main.BoardID); err == nil {
					if err := os.RemoveAll(board.BoardDir(main.BoardID)); err != nil {
						return fmt.Errorf("remove board %s: %w", main.BoardID, err)
					}
					fmt.Fprintf(f.IO.Out, "removed board %s\n", main.BoardID)
				}
			} else {
				fmt.Fprintf(f.IO.ErrOut, "board %s kept (yagent sessions rm --board removes it too)\n", main.BoardID)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&withBoard, "board", false, "remove the session's board too")
	return cmd
}
