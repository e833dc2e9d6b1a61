package main

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/yagent/yagent/complete"
	"github.com/yagent/yagent/demo"
)

// Shell completion (`yagent completion bash|zsh|fish|powershell`): the
// candidates are the `complete` package's, registered here by flag name
// over the whole tree, and by command path for positional arguments.

// registerCompletions wires the completions into every command of root.
func registerCompletions(root *cobra.Command, f *Factory) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(fl *pflag.Flag) {
			complete, ok := complete.Flags[fl.Name]
			if !ok || fl.Value.Type() == "bool" {
				return
			}
			// A flag registered twice is a bug in this file: the error
			// says so in the completion output rather than crash yagent.
			_ = c.RegisterFlagCompletionFunc(fl.Name, func(c *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
				return complete(c.Context(), completeSources(f), toComplete), cobra.ShellCompDirectiveNoFileComp
			})
		})
		if fl := c.Flags().Lookup("replay"); fl != nil {
			_ = c.RegisterFlagCompletionFunc("replay", func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
				return []string{demo.Replay + "\tthe scripted model bundled in yagent"}, cobra.ShellCompDirectiveDefault // and files
			})
		}
		path := strings.TrimSpace(strings.TrimPrefix(c.CommandPath(), root.Name()))
		if fns, ok := complete.Args[path]; ok {
			c.ValidArgsFunction = func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
				if len(args) >= len(fns) || fns[len(args)] == nil {
					return nil, cobra.ShellCompDirectiveNoFileComp
				}
				return fns[len(args)](c.Context(), completeSources(f), toComplete), cobra.ShellCompDirectiveNoFileComp
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// completeSources are the factory's stores, opened when a completion
// needs them.
func completeSources(f *Factory) complete.Sources {
	return complete.Sources{Config: f.Config, Sessions: f.Sessions, Board: f.Board, Dir: f.Dir}
}
