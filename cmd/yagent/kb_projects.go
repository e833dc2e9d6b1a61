package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/yagent/yagent/kb"
)

// kbProjectsOptions are the inputs of `yagent kb projects`.
type kbProjectsOptions struct {
	JSON bool
}

// NewCmdKBProjects builds `yagent kb projects` (list) and its `create`.
func NewCmdKBProjects(f *Factory) *cobra.Command {
	opts := &kbProjectsOptions{}
	cmd := &cobra.Command{
		Use:   "projects",
		Short: "List your projects (create one with `projects create`)",
		Example: `  yagent kb projects

  yagent kb projects create acme/web --name "Acme web"`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return kbProjectsRun(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON: [{handle, name, space, access}]")
	cmd.AddCommand(NewCmdKBProjectsCreate(f))
	return cmd
}

func kbProjectsRun(ctx context.Context, f *Factory, opts *kbProjectsOptions) error {
	store, person, err := f.KBAsPerson(ctx)
	if err != nil {
		return err
	}
	out, err := store.GetMyProjects(ctx, person, kb.GetMyProjectsInput{})
	if err != nil {
		return err
	}
	if opts.JSON {
		return writeJSON(f.IO.Out, out.Projects)
	}
	if len(out.Projects) == 0 {
		fmt.Fprintln(f.IO.ErrOut, "no projects yet: yagent kb projects create SPACE/SLUG")
		return nil
	}
	_, err = io.WriteString(f.IO.Out, kb.ProjectsTable(out.Projects))
	return err
}

// kbProjectsCreateOptions are the inputs of `yagent kb projects create`.
type kbProjectsCreateOptions struct {
	Handle string
	Name   string
	JSON   bool
}

// NewCmdKBProjectsCreate builds `yagent kb projects create`.
func NewCmdKBProjectsCreate(f *Factory) *cobra.Command {
	opts := &kbProjectsCreateOptions{}
	cmd := &cobra.Command{
		Use:   "create HANDLE [--name N]",
		Short: "Create a project (only a person can; agents cannot)",
		Long: `Create a project. HANDLE is "space/slug", or "space" for the space's root
project: lowercase letters, digits, '.', '_' and '-'. You become its first
member. Agents take the handle verbatim from get_my_projects.`,
		Example: `  yagent kb projects create acme/web --name "Acme web"`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Handle = args[0]
			return kbProjectsCreateRun(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Name, "name", "", "human name (default: the handle)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON: {handle, name, space, access}")
	return cmd
}

func kbProjectsCreateRun(ctx context.Context, f *Factory, opts *kbProjectsCreateOptions) error {
	store, person, err := f.KBAsPerson(ctx)
	if err != nil {
		return err
	}
	p, err := store.CreateProject(ctx, person, opts.Handle, opts.Name)
	if err != nil {
		return err
	}
	if opts.JSON {
		return writeJSON(f.IO.Out, p)
	}
	fmt.Fprintf(f.IO.Out, "created project %s (%s)\n", p.Handle, p.Name)
	return nil
}
