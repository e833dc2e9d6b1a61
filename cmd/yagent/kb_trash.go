package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/kb"
)

// NewCmdKBTrash builds `yagent kb trash`.
func NewCmdKBTrash(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "trash",
		Short: "List, restore or empty the trash (agents' delete_note moves notes there)",
		Example: `  yagent kb trash ls
  yagent kb trash restore n12`,
	}
	cmd.AddCommand(NewCmdKBTrashLs(f), NewCmdKBTrashRestore(f), NewCmdKBTrashEmpty(f))
	return cmd
}

// kbTrashLsOptions are the inputs of `yagent kb trash ls`.
type kbTrashLsOptions struct {
	Project string
	JSON    bool
}

// NewCmdKBTrashLs builds `yagent kb trash ls`.
func NewCmdKBTrashLs(f *Factory) *cobra.Command {
	opts := &kbTrashLsOptions{}
	cmd := &cobra.Command{
		Use:   "ls [--project H]",
		Short: "List trashed notes, newest first, with who deleted them",
		Example: `  yagent kb trash ls

  yagent kb trash ls --project acme/web`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return kbTrashLsRun(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Project, "project", "", "only this project's trash")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON: [{id, title, project, path, class, deletedAt, deletedBy}]")
	return cmd
}

func kbTrashLsRun(ctx context.Context, f *Factory, opts *kbTrashLsOptions) error {
	store, person, err := f.KBAsPerson(ctx)
	if err != nil {
		return err
	}
	notes, err := store.TrashListProject(ctx, person, opts.Project)
	if err != nil {
		return err
	}
	if opts.JSON {
		return writeJSON(f.IO.Out, notes)
	}
	if len(notes) == 0 {
		fmt.Fprintln(f.IO.ErrOut, "the trash is empty")
		return nil
	}
	_, err = io.WriteString(f.IO.Out, kb.TrashTable(notes))
	return err
}

// kbTrashRestoreOptions are the inputs of `yagent kb trash restore`.
type kbTrashRestoreOptions struct {
	ID   string
	JSON bool
}

// NewCmdKBTrashRestore builds `yagent kb trash restore`.
func NewCmdKBTrashRestore(f *Factory) *cobra.Command {
	opts := &kbTrashRestoreOptions{}
	cmd := &cobra.Command{
		Use:     "restore ID",
		Short:   "Bring a trashed note back where it was",
		Example: `  yagent kb trash restore n12`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ID = args[0]
			return kbTrashRestoreRun(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON: {id, path, versionToken}")
	return cmd
}

func kbTrashRestoreRun(ctx context.Context, f *Factory, opts *kbTrashRestoreOptions) error {
	store, person, err := f.KBAsPerson(ctx)
	if err != nil {
		return err
	}
	v, err := store.TrashRestore(ctx, person, opts.ID)
	if err != nil {
		return err
	}
	if opts.JSON {
		return writeJSON(f.IO.Out, v)
	}
	fmt.Fprintf(f.IO.Out, "restored %s\n", v.ID)
	return nil
}

// kbTrashEmptyOptions are the inputs of `yagent kb trash empty`.
type kbTrashEmptyOptions struct {
	Project string
	JSON    bool
}

// NewCmdKBTrashEmpty builds `yagent kb trash empty`.
func NewCmdKBTrashEmpty(f *Factory) *cobra.Command {
	opts := &kbTrashEmptyOptions{}
	cmd := &cobra.Command{
		Use:     "empty [--project H]",
		Short:   "Delete trashed notes for good (with their revisions and links)",
		Example: `  yagent kb trash empty --project acme/web`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return kbTrashEmptyRun(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Project, "project", "", "only this project's trash (default: all you can reach)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON: {purged}")
	return cmd
}

func kbTrashEmptyRun(ctx context.Context, f *Factory, opts *kbTrashEmptyOptions) error {
	store, person, err := f.KBAsPerson(ctx)
	if err != nil {
		return err
	}
	n, err := store.TrashEmpty(ctx, person, opts.Project)
	if err != nil {
		return err
	}
	if opts.JSON {
		return writeJSON(f.IO.Out, struct {
			Purged int `json:"purged"`
		}{n})
	}
	fmt.Fprintf(f.IO.Out, "deleted %s for good\n", agents.Count(n, "note", "notes"))
	return nil
}
