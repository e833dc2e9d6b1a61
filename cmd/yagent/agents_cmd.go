package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/toolspec"
)

// NewCmdAgents builds `yagent agents`.
func NewCmdAgents(f *Factory) *cobra.Command {
	cmd := &cobra.Command{Use: "agents", Short: "Inspect the sub-agents the director can delegate to", Args: cobra.ArbitraryArgs, RunE: groupRunE}
	cmd.AddCommand(NewCmdAgentsLs(f, nil))
	return cmd
}

// AgentsLsOptions are the inputs of `yagent agents ls`.
type AgentsLsOptions struct {
	IO   *IOStreams
	JSON bool
	f    *Factory
}

// NewCmdAgentsLs builds `yagent agents ls`.
func NewCmdAgentsLs(f *Factory, runF func(*AgentsLsOptions) error) *cobra.Command {
	opts := &AgentsLsOptions{IO: f.IO, f: f}
	cmd := &cobra.Command{
		Use:   "ls [--json]",
		Short: "List sub-agent definitions: built-in, .claude/agents, $YAGENT_HOME/agents, .yagent/agents",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return agentsLsRun(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON: [{name, description, tools, model, max_steps, source, warnings}]")
	return cmd
}

func agentsLsRun(opts *AgentsLsOptions) error {
	cfg, err := opts.f.Config()
	if err != nil {
		return err
	}
	dir := opts.f.Dir
	if dir == "" {
		dir = "."
	}
	known := func(name string) bool { _, ok := toolspec.Lookup(name); return ok }
	catalog, err := agents.LoadCatalog(dir, cfg.Home, known)
	if err != nil {
		return &usageError{err}
	}
	defs := catalog.All()
	if opts.JSON {
		for _, d := range defs {
			if d.Tools == nil {
				d.Tools = []string{}
			}
		}
		return writeJSON(opts.IO.Out, defs)
	}
	tw := tabwriter.NewWriter(opts.IO.Out, 0, 4, 2, ' ', 0)
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
			fmt.Fprintf(opts.IO.ErrOut, "warning: %s: %s\n", d.Source, w)
		}
	}
	return nil
}
