package main

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/demo"
	"github.com/yagent/yagent/internal/brief"
	"github.com/yagent/yagent/memory"
	"github.com/yagent/yagent/sandbox"
	"github.com/yagent/yagent/toolspec"
)

// Shell completion (`yagent completion bash|zsh|fish|powershell`): the
// values a flag or an argument names are completed from what exists —
// session ids, board ids, agent names, configured models and toolsets —
// and enum flags from their fixed values. A flag means the same thing in
// every command that has it, so completions are registered by flag name,
// over the whole tree. Completing never creates anything: without a state
// database there are no sessions to offer.

// completeFunc lists candidates ("value\tdescription") for what is typed.
type completeFunc func(ctx context.Context, f *Factory, toComplete string) []string

// flagCompletions complete a flag's value, by flag name.
var flagCompletions = map[string]completeFunc{
	"session":  completeSessions,
	"board":    completeBoards,
	"agent":    completeAgents,
	"model":    completeModels,
	"toolset":  completeToolsets,
	"approval": fixed(string(agents.ApproveUntrusted)+"\task before every command and file write", string(agents.ApproveOnRequest)+"\task before every command", string(agents.ApproveNever)+"\tnever ask"),
	"sandbox":  fixed(string(sandbox.WorkspaceWrite)+"\twrite only in the workspace, no network", string(sandbox.ReadOnly)+"\twrite nowhere, no network", string(sandbox.Off)+"\tno confinement"),
	"status":   fixed(string(blackboard.StatusOK), string(blackboard.StatusPartial), string(blackboard.StatusError), string(blackboard.StatusDegraded)),
}

// argCompletions complete positional arguments, by command path: each
// lists what the argument at that position names ("" = no completion).
var argCompletions = map[string][]completeFunc{
	"resume":        {completeSessions},
	"sessions show": {completeSessions},
	"sessions rm":   {completeSessions},
}

// registerCompletions wires the completions into every command of root.
func registerCompletions(root *cobra.Command, f *Factory) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(fl *pflag.Flag) {
			complete, ok := flagCompletions[fl.Name]
			if !ok || fl.Value.Type() == "bool" {
				return
			}
			// A flag registered twice is a bug in this file: the error
			// says so in the completion output rather than crash yagent.
			_ = c.RegisterFlagCompletionFunc(fl.Name, func(c *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
				return complete(c.Context(), f, toComplete), cobra.ShellCompDirectiveNoFileComp
			})
		})
		if fl := c.Flags().Lookup("replay"); fl != nil {
			_ = c.RegisterFlagCompletionFunc("replay", func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
				return []string{demo.Replay + "\tthe scripted model bundled in yagent"}, cobra.ShellCompDirectiveDefault // and files
			})
		}
		path := strings.TrimSpace(strings.TrimPrefix(c.CommandPath(), root.Name()))
		if fns, ok := argCompletions[path]; ok {
			c.ValidArgsFunction = func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
				if len(args) >= len(fns) || fns[len(args)] == nil {
					return nil, cobra.ShellCompDirectiveNoFileComp
				}
				return fns[len(args)](c.Context(), f, toComplete), cobra.ShellCompDirectiveNoFileComp
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// fixed completes one of a flag's fixed values.
func fixed(values ...string) completeFunc {
	return func(_ context.Context, _ *Factory, toComplete string) []string {
		return withPrefix(values, toComplete)
	}
}

// withPrefix keeps the candidates whose value starts with prefix.
func withPrefix(cands []string, prefix string) []string {
	var out []string
	for _, c := range cands {
		if v, _, _ := strings.Cut(c, "\t"); strings.HasPrefix(v, prefix) {
			out = append(out, c)
		}
	}
	return out
}

// completeSessions offers session ids (and names), this directory's first.
func completeSessions(ctx context.Context, f *Factory, toComplete string) []string {
	cfg, err := f.Config()
	if err != nil {
		return nil
	}
	if _, err := os.Stat(filepath.Join(cfg.Home, "state.db")); err != nil {
		return nil // no sessions yet; never create the database here
	}
	st, err := f.Sessions(ctx)
	if err != nil {
		return nil
	}
	cwd, _ := workspaceDir(f, &agentFlags{})
	list, err := st.List(ctx, memory.ListOptions{Cwd: cwd, All: true, Limit: 100})
	if err != nil {
		return nil
	}
	var out []string
	for _, in := range list {
		desc := brief.Line(in.Title, 60)
		if in.Name != "" {
			out = append(out, in.Name+"\t"+in.ID+" · "+desc)
			desc = in.Name + " · " + desc
		}
		out = append(out, in.ID+"\t"+desc)
	}
	return withPrefix(out, toComplete)
}

// completeBoards offers board ids, most recently active first.
func completeBoards(_ context.Context, f *Factory, toComplete string) []string {
	store, err := f.Board()
	if err != nil {
		return nil
	}
	boards, err := store.Boards()
	if err != nil {
		return nil
	}
	out := make([]string, 0, len(boards))
	for _, b := range boards {
		out = append(out, b.ID+"\t"+agents.Count(b.Notes, "note", "notes"))
	}
	return withPrefix(out, toComplete)
}

// completeAgents offers the sub-agents of the catalog (yagent agents ls).
func completeAgents(_ context.Context, f *Factory, toComplete string) []string {
	cfg, err := f.Config()
	if err != nil {
		return nil
	}
	dir := f.Dir
	if dir == "" {
		dir = "."
	}
	known := func(name string) bool { _, ok := toolspec.Lookup(name); return ok }
	catalog := agents.LoadCatalog(agents.Sources{Workspace: dir, Home: cfg.Home, UserHome: cfg.UserHome}, known)
	var out []string
	for _, d := range catalog.All() {
		out = append(out, d.Name+"\t"+brief.Line(d.Description, 60))
	}
	return withPrefix(out, toComplete)
}

// completeModels offers the models configured under models:.
func completeModels(_ context.Context, f *Factory, toComplete string) []string {
	cfg, err := f.Config()
	if err != nil {
		return nil
	}
	var out []string
	for _, name := range slices.Sorted(maps.Keys(cfg.Models)) {
		out = append(out, name+"\t"+cfg.Models[name].Model)
	}
	return withPrefix(out, toComplete)
}

// completeToolsets offers the toolsets configured under toolsets:.
func completeToolsets(_ context.Context, f *Factory, toComplete string) []string {
	cfg, err := f.Config()
	if err != nil {
		return nil
	}
	var out []string
	for _, name := range slices.Sorted(maps.Keys(cfg.Toolsets)) {
		out = append(out, name+"\t"+strconv.Itoa(len(cfg.Toolsets[name]))+" tools")
	}
	return withPrefix(out, toComplete)
}
