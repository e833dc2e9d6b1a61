package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/yagent/yagent/app"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/change"
	"github.com/yagent/yagent/internal/termsafe"
)

// changesOptions are the inputs of `yagent changes` and its subcommands.
type changesOptions struct {
	Board, Ref       string
	All, Stale, JSON bool
}

// NewCmdChanges builds `yagent changes` (ls, show, apply, discard): the
// person's side of app.Changes, which the director's apply_change and
// discard_change share. The person typed the command, so nothing is asked.
func NewCmdChanges(f *Factory) *cobra.Command {
	cmd := &cobra.Command{Use: "changes", Short: "List, show, apply or discard the changes writing delegations left on a board",
		Example: "  yagent changes ls --board demo\n  yagent changes apply coder/20261201T101500Z_ab12-4242-000001 --board demo"}
	sub := func(use, short, example string, args cobra.PositionalArgs, run func(context.Context, *Factory, *app.Changes, *changesOptions) error) *cobra.Command {
		opts := &changesOptions{}
		c := &cobra.Command{Use: use, Short: short, Example: example, Args: args, RunE: func(c *cobra.Command, a []string) error {
			if len(a) == 1 {
				opts.Ref = a[0]
			}
			if opts.Board == "" && !opts.Stale {
				return usagef("--board is required (`yagent board boards` lists them)")
			}
			x, err := openChanges(f, opts)
			if err != nil {
				return err
			}
			return run(c.Context(), f, x, opts)
		}}
		c.Flags().StringVar(&opts.Board, "board", "", "board id (required)")
		c.Flags().BoolVar(&opts.JSON, "json", false, "print JSON (README.md, \"Parallel writers\")")
		if use == "ls" {
			c.Flags().BoolVar(&opts.All, "all", false, "every change, applied and discarded too")
			c.Flags().BoolVar(&opts.Stale, "stale", false, "the worktrees and branches no note claims (board gc removes them)")
			c.MarkFlagsMutuallyExclusive("all", "stale")
		}
		return c
	}
	cmd.AddCommand(
		sub("ls", "List a board's pending changes", "  yagent changes ls --board demo\n  yagent changes ls --stale", cobra.NoArgs, changesLsRun),
		sub("show REF", "Print a change: its diffstat and its patch", "  yagent changes show coder/20261201T101500Z_ab12-4242-000001 --board demo", cobra.ExactArgs(1), changesShowRun),
		sub("apply REF", "Merge a pending change into this workspace", "  yagent changes apply coder/20261201T101500Z_ab12-4242-000001 --board demo", cobra.ExactArgs(1), changesApplyRun),
		sub("discard REF", "Drop a pending change, its branch and worktree", "  yagent changes discard coder/20261201T101500Z_ab12-4242-000001 --board demo", cobra.ExactArgs(1), changesDiscardRun))
	return cmd
}

// openChanges opens the board's changes over the working directory.
func openChanges(f *Factory, opts *changesOptions) (*app.Changes, error) {
	cfg, err := f.Config()
	if err != nil {
		return nil, err
	}
	store, err := f.Board()
	if opts.Board != "" {
		store, err = openBoard(f, opts.Board, true)
	}
	if err != nil {
		return nil, err
	}
	return &app.Changes{Board: store, Workspace: cmp.Or(f.Dir, "."), Root: app.ChangeWorktrees(cfg.Home)}, nil
}

func changesLsRun(ctx context.Context, f *Factory, x *app.Changes, opts *changesOptions) error {
	if opts.Stale {
		stale, err := x.Stale(ctx)
		if err != nil || opts.JSON {
			return jsonUnless(err, f, nonNil(stale))
		}
		for _, l := range stale {
			fmt.Fprintf(f.IO.Out, "%s/%s\t%s\n", termsafe.Line(l.Board), termsafe.Line(l.Note), strings.Join(strings.Fields(l.Branch+" "+l.Dir+" "+l.GitDir), " "))
		}
		return nil
	}
	notes, err := x.List(opts.Board, opts.All)
	if err != nil || opts.JSON {
		return jsonUnless(blackboard.Advise(err), f, nonNil(notes))
	}
	_, err = io.WriteString(f.IO.Out, blackboard.ChangesTable(notes))
	return err
}

func changesShowRun(ctx context.Context, f *Factory, x *app.Changes, opts *changesOptions) error {
	n, err := x.Board.ReadNote(opts.Board, opts.Ref)
	if err != nil {
		return blackboard.Advise(err)
	}
	if n.Meta.Change == nil {
		return fmt.Errorf("%s: %w (`yagent changes ls --board %s` lists the changes)", opts.Ref, blackboard.ErrNoChange, opts.Board)
	}
	patch, err := x.Board.ReadPatch(opts.Board, opts.Ref)
	if err != nil || opts.JSON {
		return jsonUnless(err, f, struct {
			Ref    string                 `json:"ref"`
			Change *blackboard.NoteChange `json:"change"`
			Patch  string                 `json:"patch"`
		}{n.Meta.Ref, n.Meta.Change, string(patch)})
	}
	c := n.Meta.Change
	fmt.Fprintf(f.IO.Out, "ref: %s\nchange: %s, %s, %d files +%d -%d\n", termsafe.Line(n.Meta.Ref), c.State, termsafe.Line(c.Branch), len(c.Files), c.Insertions, c.Deletions)
	for _, file := range c.Files {
		fmt.Fprintf(f.IO.Out, "  %s\n", termsafe.Line(file))
	}
	_, err = fmt.Fprintf(f.IO.Out, "\n%s", termsafe.Text(string(patch)))
	return err
}

func changesApplyRun(ctx context.Context, f *Factory, x *app.Changes, opts *changesOptions) error {
	done, err := x.Apply(ctx, opts.Board, opts.Ref, nil)
	if conflict, ok := errors.AsType[*change.ConflictError](err); ok {
		fmt.Fprint(f.IO.ErrOut, termsafe.Text(app.ConflictHunks(conflict)))
	}
	if err != nil {
		return err
	}
	if opts.JSON {
		return writeJSON(f.IO.Out, struct {
			Ref     string   `json:"ref"`
			Branch  string   `json:"branch"`
			Written []string `json:"written"`
			Already bool     `json:"already"`
		}{opts.Ref, done.Branch, nonNil(done.Written), done.Already})
	}
	if done.Already {
		fmt.Fprintf(f.IO.Out, "the workspace holds the change of %s already: nothing written; marked applied\n", opts.Ref)
		return nil
	}
	fmt.Fprintf(f.IO.Out, "applied the change of %s: wrote %s (unstaged; HEAD and the index unchanged)\n", opts.Ref, termsafe.Line(strings.Join(done.Written, ", ")))
	return nil
}

func changesDiscardRun(ctx context.Context, f *Factory, x *app.Changes, opts *changesOptions) error {
	branch, err := x.Discard(ctx, opts.Board, opts.Ref)
	if err != nil || opts.JSON {
		return jsonUnless(err, f, map[string]string{"ref": opts.Ref, "branch": branch})
	}
	fmt.Fprintf(f.IO.Out, "discarded the change of %s: %s is gone\n", opts.Ref, termsafe.Line(branch))
	return nil
}

// jsonUnless returns err, or prints v as JSON when there is none.
func jsonUnless(err error, f *Factory, v any) error {
	if err != nil {
		return err
	}
	return writeJSON(f.IO.Out, v)
}
