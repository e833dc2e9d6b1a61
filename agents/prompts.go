package agents

import (
	"embed"
	"strings"

	"github.com/yagent/yagent/internal/prompt"
)

//go:embed prompts/*.md
var promptFS embed.FS

// Prompt returns an embedded prompt file (prompts/NAME.md) with {{key}}
// placeholders replaced. Prompts live as files beside the code, never as
// strings scattered through it.
func Prompt(name string, vars map[string]string) string {
	return prompt.Render(promptFS, name, vars) // TestPromptsExist
}

// SystemPrompt joins the parts of a stable prefix with blank lines.
func SystemPrompt(parts ...string) string {
	var kept []string
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, "\n\n")
}
