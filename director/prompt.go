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
	"github.com/yagent/yagent/internal/prompt"
)

//go:embed prompts/*.md
var promptFS embed.FS

func render(name string, vars map[string]string) string { return prompt.Render(promptFS, name, vars) }

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
	return agents.SystemPrompt(render("director", map[string]string{"workspace": workspace}), catalogText(c), notebookRules, project)
}
