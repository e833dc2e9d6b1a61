package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/toolspec"
)

// NewCmdAgents builds `yagent agents`.
func NewCmdAgents(f *Factory) *cobra.Command {
	cmd := &cobra.Command{Use: "agents", Short: "Inspect the sub-agents the director can delegate to"}
	cmd.AddCommand(NewCmdAgentsLs(f))
	return cmd
}

// agentsLsOptions are the inputs of `yagent agents ls`.
type agentsLsOptions struct {
	JSON bool
}

// NewCmdAgentsLs builds `yagent agents ls`.
func NewCmdAgentsLs(f *Factory) *cobra.Command {
	opts := &agentsLsOptions{}
	cmd := &cobra.Command{
		Use:   "ls [--json]",
		Short: "List sub-agent definitions: built-in, .claude/agents, $YAGENT_HOME/agents, .yagent/agents",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return agentsLsRun(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON: [{name, description, tools, model, max_steps, source, warnings}]")
	return cmd
}

func agentsLsRun(ctx context.Context, f *Factory, opts *agentsLsOptions) error {
	cfg, err := f.Config()
	if err != nil {
		return err
	}
	dir := f.Dir
	if dir == "" {
		dir = "."
	}
	known := func(name string) bool { _, ok := toolspec.Lookup(name); return ok }
	catalog, err := loadCatalog(dir, cfg.Home, known)
	if err != nil {
		return err
	}
	defs := catalog.All()
	if opts.JSON {
		for _, d := range defs {
			if d.Tools == nil {
				d.Tools = []string{}
			}
		}
		return writeJSON(f.IO.Out, defs)
	}
	tw := tabwriter.NewWriter(f.IO.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSOURCE\tTOOLS\tDESCRIPTION")
	for _, d := range defs {
		tools := "all"
		if d.Tools != nil {
			tools = strings.Join(d.Tools, ",")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", d.Name, d.Source, oneLine(tools, 50), oneLine(d.Description, 70))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, d := range defs {
		for _, w := range d.Warnings {
			fmt.Fprintf(f.IO.ErrOut, "warning: %s: %s\n", d.Source, w)
		}
	}
	return nil
}

// loadCatalog loads the sub-agent definitions of the workspace and home.
// A definition that does not parse is the person's file, so bad input;
// agents.LoadCatalog does not give that error an identity yet (agents is
// another lane), so this is the one place that says so.
func loadCatalog(dir, home string, known func(string) bool) (*agents.Catalog, error) {
	c, err := agents.LoadCatalog(dir, home, known)
	if err != nil {
		return nil, &usageError{err: err}
	}
	return c, nil
}
