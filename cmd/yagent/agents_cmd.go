package main

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/toolspec"
)

// NewCmdAgents builds `yagent agents`.
func NewCmdAgents(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "agents",
		Short:   "Inspect the sub-agents the director can delegate to",
		Example: `  yagent agents ls`,
	}
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
		Short: "List sub-agent definitions and the files that were skipped",
		Long: `List the sub-agents the director can delegate to. Definitions come from,
lowest precedence first: the built-ins; the user's ~/.claude/agents/ and
$YAGENT_HOME/agents/; the project's .claude/agents/ and .yagent/agents/.
A definition shadows one of the same name from an earlier source, with a
warning. A file that cannot be used is skipped and listed under "problems"
on stderr (in --json: errors); the others still load.`,
		Example: `  # The sub-agents the director can delegate to, and files that were skipped
  yagent agents ls

  # As JSON: names and tools
  yagent agents ls --json | jq -r '.agents[] | .name + " " + (.tools | tostring)'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return agentsLsRun(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON: {agents: [{name, description, tools, model, max_steps, source, scope, warnings}], errors: [{source, message}]}; tools null = every tool, [] = none")
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
	catalog := agents.LoadCatalog(agents.Sources{Workspace: dir, Home: cfg.Home, UserHome: cfg.UserHome}, known)
	defs, problems := catalog.All(), catalog.Problems()
	if opts.JSON {
		return writeJSON(f.IO.Out, struct {
			Agents []*agents.Definition `json:"agents"`
			Errors []agents.Problem     `json:"errors"`
		}{defs, nonNil(problems)})
	}
	if _, err := io.WriteString(f.IO.Out, agents.DefinitionsTable(defs)); err != nil {
		return err
	}
	_, err = io.WriteString(f.IO.ErrOut, agents.DefinitionsNotes(defs, problems))
	return err
}
