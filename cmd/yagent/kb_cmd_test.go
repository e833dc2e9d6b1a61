package main

import (
	"testing"

	"github.com/spf13/cobra"
)

// TestKBCommandsTakeJSON pins `yagent kb`'s promise (its --help says so)
// that every command takes --json.
func TestKBCommandsTakeJSON(t *testing.T) {
	f := kbFactory(t, "")
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if !c.HasSubCommands() || c.Name() == "projects" {
			if c.Flags().Lookup("json") == nil {
				t.Errorf("%s has no --json", c.CommandPath())
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(NewCmdKB(f))
}
