// Package director is the lead agent: it assembles the lead's prompt,
// injects a freshly rebuilt board index into every one of its model calls,
// offers the delegate tool that hands tasks to sub-agents, and runs batch
// plans.
package director

import (
	"embed"
	"fmt"
	"strings"

	"github.com/yagent/yagent/agents"
)

//go:embed prompts/*.md
var promptFS embed.FS

func prompt(name string, vars map[string]string) string {
	data, err := promptFS.ReadFile("prompts/" + name + ".md")
	if err != nil {
		panic(fmt.Sprintf("director: no embedded prompt %q", name))
	}
	s := string(data)
	for k, v := range vars {
		s = strings.ReplaceAll(s, "{{"+k+"}}", v)
	}
	return strings.TrimSpace(s)
}

// catalogText lists the sub-agents for the director's stable prefix.
func catalogText(c *agents.Catalog) string {
	var b strings.Builder
	b.WriteString("Sub-agents you can delegate to:")
	for _, d := range c.All() {
		fmt.Fprintf(&b, "\n- %s: %s", d.Name, d.Description)
	}
	return b.String()
}

// SystemPrompt is the director's stable prefix: its rules, the catalog and
// the project's instructions. It changes only when those do.
func SystemPrompt(workspace string, c *agents.Catalog, notebookRules, project string) string {
	return agents.SystemPrompt(prompt("director", map[string]string{"workspace": workspace}), catalogText(c), notebookRules, project)
}
