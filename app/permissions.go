package app

import (
	"fmt"
	"strings"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/hooks"
)

// LoadPermissions loads the person's Claude Code permission rules of a run
// in workspace (issue 31 item 1): the "permissions" of the settings files
// HookFiles names — a workspace's only when it is trusted — compiled for
// tool calls (agents.Rules). What does not apply is said in warnings: a
// broken file, an untrusted workspace's rules (with the command that
// trusts), and per file the rules, modes and directories yagent has no
// counterpart for, each with why. The run goes on with the rest.
func LoadPermissions(cfg *config.Config, workspace string) (*agents.Rules, []string) {
	files, problem := HookFiles(cfg, workspace)
	p, err := hooks.LoadPermissions(files)
	rules, unsafe := agents.NewRules(p, cfg.UserHome)
	var warnings []string
	if err != nil {
		warnings = append(warnings, fmt.Sprintf("warning: %v", err))
	}
	untrusted := map[string]bool{}
	var order []string
	other := map[string][]string{}
	for _, s := range append(p.Skipped(), unsafe...) {
		switch {
		case s.Why == hooks.WhyUntrusted && !untrusted[s.Source]:
			untrusted[s.Source] = true
			warnings = append(warnings, fmt.Sprintf("warning: not applying the permission rules of %s: this directory is not trusted; if you trust it, run `yagent trust %s`", s.Source, workspace))
		case s.Why != hooks.WhyUntrusted:
			if other[s.Source] == nil {
				order = append(order, s.Source)
			}
			other[s.Source] = append(other[s.Source], fmt.Sprintf("%s (%s)", s.What, s.Why))
		}
	}
	for _, src := range order {
		warnings = append(warnings, fmt.Sprintf("warning: not applied from the permissions of %s: %s", src, strings.Join(other[src], "; ")))
	}
	if problem != "" && len(untrusted) > 0 {
		warnings = append(warnings, "warning: the trust list could not be read: "+problem)
	}
	return rules, warnings
}

// withRules puts each tool behind the run's permission rules
// (agents.Rules.Wrap) and returns what to warn about.
func withRules(cfg *config.Config, ws *agents.Workspace, policy agents.ShellPolicy, tools []*agents.Tool) ([]*agents.Tool, []string) {
	rules, warnings := LoadPermissions(cfg, ws.Dir())
	out := make([]*agents.Tool, len(tools))
	for i, t := range tools {
		out[i] = rules.Wrap(t, policy, ws)
	}
	return out, warnings
}
