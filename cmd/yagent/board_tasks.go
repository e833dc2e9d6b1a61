package main

import (
	"github.com/spf13/cobra"

	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/queue"
)

// NewCmdBoardTasks builds `yagent board tasks`: the task list and who
// holds what (blackboard.TaskList.Table).
func NewCmdBoardTasks(f *Factory) *cobra.Command {
	var board string
	var asJSON bool
	cmd := &cobra.Command{Use: "tasks --board ID", Short: "List a board's team tasks, their state and who holds each", Args: cobra.NoArgs,
		Example: `  yagent board tasks --board demo`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			store, err := openBoard(f, board, true)
			if err != nil {
				return err
			}
			if cfg, _ := f.Config(); cfg != nil { // queue.dsn: the claims are its rows
				defer queue.UseClaims(cmd.Context(), queue.OptionsFromConfig(cfg.Queue, "", f.IO.ErrOut), store)()
			}
			l, err := store.Tasks(board)
			if err != nil {
				return blackboard.Advise(err)
			}
			return l.Write(f.IO.Out, asJSON)
		},
	}
	cmd.Flags().StringVar(&board, "board", "", "board id (required)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON: {tasks: [{ref, title, body, team, assignee, depends_on, author, created, state, claim, conclusion, waiting}], unreadable}")
	required(cmd, "board")
	return cmd
}
