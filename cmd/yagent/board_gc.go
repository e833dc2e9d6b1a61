package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/change"
)

// boardGCOptions are the inputs of `yagent board gc`.
type boardGCOptions struct {
	DryRun bool
	JSON   bool
}

// NewCmdBoardGC builds `yagent board gc`.
func NewCmdBoardGC(f *Factory) *cobra.Command {
	opts := &boardGCOptions{}
	cmd := &cobra.Command{
		Use:   "gc [--dry-run]",
		Short: "Remove expired boards and notes over the count cap",
		Long: `Remove boards whose newest note is older than blackboard.ttl, the oldest
notes of boards over blackboard.max_notes_per_board, and temporary files left
by crashed writers, and the worktrees and branches of writing delegations
no note claims any more (yagent changes ls --stale lists them). Symlinks are never followed. ttl "0" and a cap of 0
disable each rule.`,
		Example: `  # What would be removed, without removing it
  yagent board gc --dry-run

  yagent board gc`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return boardGCRun(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.DryRun, "dry-run", false, "print what would be removed, remove nothing")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON: {boards: [id], notes: [board/ref], temps: [path], isolations: [{board, note, branch, dir, git_dir}], dry_run}")
	return cmd
}

func boardGCRun(ctx context.Context, f *Factory, opts *boardGCOptions) error {
	cfg, err := f.Config()
	if err != nil {
		return err
	}
	store, err := f.Board()
	if err != nil {
		return err
	}
	gcOpts := blackboard.GCOptionsFromConfig(cfg.Blackboard)
	gcOpts.DryRun = opts.DryRun
	rep, err := store.GC(gcOpts, f.Now())
	if err != nil {
		return blackboard.Advise(err)
	}
	x, err := openChanges(f, &changesOptions{})
	if err != nil {
		return err
	}
	collect := x.Collect
	if opts.DryRun {
		collect = x.Stale
	}
	isolations, err := collect(ctx)
	if err != nil {
		return err
	}
	if opts.JSON {
		return writeJSON(f.IO.Out, struct {
			blackboard.GCReport
			Isolations []change.Leftover `json:"isolations"`
			DryRun     bool              `json:"dry_run"`
		}{rep, nonNil(isolations), opts.DryRun})
	}
	verb := "removed"
	if opts.DryRun {
		verb = "would remove"
	}
	for _, b := range rep.Boards {
		fmt.Fprintf(f.IO.Out, "%s board %s (expired)\n", verb, b)
	}
	for _, n := range rep.Notes {
		fmt.Fprintf(f.IO.Out, "%s note %s (over the count cap)\n", verb, n)
	}
	for _, t := range rep.Temps {
		fmt.Fprintf(f.IO.Out, "%s temp file %s\n", verb, t)
	}
	for _, l := range isolations {
		fmt.Fprintf(f.IO.Out, "%s isolation %s/%s %s (no note claims it)\n", verb, l.Board, l.Note, strings.Join(strings.Fields(l.Branch+" "+l.Dir+" "+l.GitDir), " "))
	}
	fmt.Fprintf(f.IO.ErrOut, "gc: %s %d boards, %d notes, %d temp files, %d isolations\n", verb, len(rep.Boards), len(rep.Notes), len(rep.Temps), len(isolations))
	return nil
}
