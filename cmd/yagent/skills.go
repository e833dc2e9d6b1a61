package main

import "github.com/spf13/cobra"

// NewCmdSkills builds `yagent skills ls|show` (app's WriteSkills and
// ShowSkill: the table and the text are the skills package's).
func NewCmdSkills(f *Factory) *cobra.Command {
	cmd := &cobra.Command{Use: "skills", Short: "Inspect the skills (SKILL.md) the agents can load", Example: "  yagent skills ls\n  yagent skills show pdf-forms"}
	var asJSON bool
	ls := &cobra.Command{Use: "ls [--json]", Short: "List the skills and where each comes from; the skipped ones with why", Args: cobra.NoArgs,
		Example: "  yagent skills ls\n  yagent skills ls --json | jq -r '.skills[].name'",
		RunE:    func(*cobra.Command, []string) error { return f.WriteSkills(f.IO.Out, f.IO.ErrOut, asJSON) }}
	ls.Flags().BoolVar(&asJSON, "json", false, "print JSON: {skills: [{name, description, allowed_tools, dir, source, scope, warnings}], errors: [{source, message}], skipped: [dir]}")
	cmd.AddCommand(ls, &cobra.Command{Use: "show NAME", Short: "Print a skill as the skill tool loads it: its instructions and its files", Args: cobra.ExactArgs(1),
		Example: "  yagent skills show pdf-forms",
		RunE:    func(_ *cobra.Command, args []string) error { return f.ShowSkill(f.IO.Out, f.IO.ErrOut, args[0]) }})
	return cmd
}
