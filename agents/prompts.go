package agents

import (
	"embed"
	"io/fs"
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

// maxProjectInstructions bounds the AGENTS.md text put into the prefix.
const maxProjectInstructions = 16 << 10

// ProjectInstructions returns the workspace's AGENTS.md, framed for the
// stable prefix, or "" when there is none.
func ProjectInstructions(w *Workspace) string {
	data, err := fs.ReadFile(w.root.FS(), "AGENTS.md")
	if err != nil || len(strings.TrimSpace(string(data))) == 0 {
		return ""
	}
	text := string(data)
	if len(text) > maxProjectInstructions {
		text = text[:maxProjectInstructions] + "\n… [AGENTS.md cut: read the file for the rest]"
	}
	return "Project instructions (AGENTS.md of the workspace):\n" + strings.TrimSpace(text)
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
