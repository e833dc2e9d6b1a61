package main

import "github.com/spf13/cobra"

// NewCmdHooks builds `yagent hooks` and `yagent hooks ls` (app's
// WriteHooks: the table is the hooks package's).
func NewCmdHooks(f *Factory) *cobra.Command {
	cmd := &cobra.Command{Use: "hooks", Short: "Inspect the person's hooks (Claude Code's settings files)", Example: "  yagent hooks ls"}
	cmd.AddCommand(&cobra.Command{Use: "ls", Short: "List the active hooks and their files, and the skipped ones with why", Args: cobra.NoArgs,
		Example: "  # What runs where, from which settings file; what does not, and why\n  yagent hooks ls",
		RunE:    func(*cobra.Command, []string) error { return f.WriteHooks(f.IO.Out, f.IO.ErrOut) }})
	return cmd
}
