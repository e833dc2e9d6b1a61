package agents

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/adrg/frontmatter"
)

//go:embed builtin/*.md
var builtinFS embed.FS

// Definition is a sub-agent definition: Markdown with YAML front matter
// (name, description, tools, model, max_steps) whose body is the system
// prompt. The format is Claude Code's, so .claude/agents/ files work.
type Definition struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Tools       []string `json:"tools"` // nil: every tool a sub-agent may have
	Model       string   `json:"model,omitempty"`
	MaxSteps    int      `json:"max_steps,omitempty"`
	Prompt      string   `json:"-"`
	Source      string   `json:"source"` // "builtin" or the file path
	// Warnings are things that were ignored, e.g. Claude-only tools.
	Warnings []string `json:"warnings,omitempty"`
}

// frontMatter is the on-disk shape; tools may be a YAML list or Claude's
// comma-separated string.
type frontMatter struct {
	Name        string    `yaml:"name"`
	Description string    `yaml:"description"`
	Tools       yaml.Node `yaml:"tools"`
	Model       string    `yaml:"model"`
	MaxSteps    int       `yaml:"max_steps"`
	Color       string    `yaml:"color"` // Claude Code; ignored
}

// claudeTools maps Claude Code tool names to yagent's.
var claudeTools = map[string][]string{
	"Read": {"read_file"}, "Write": {"write_file"}, "Edit": {"edit_file"}, "MultiEdit": {"edit_file"},
	"Bash": {"shell"}, "Grep": {"grep"}, "Glob": {"glob"}, "LS": {"list_dir"},
}

// ParseDefinition parses one definition file. known tells which tool names
// exist; unknown ones are dropped with a warning rather than failing, so a
// Claude definition that names WebFetch still loads.
func ParseDefinition(source string, data []byte, known func(string) bool) (*Definition, error) {
	var fm frontMatter
	body, err := frontmatter.MustParse(bytes.NewReader(data), &fm, frontmatter.NewFormat("---", "---", yaml.Unmarshal))
	if err != nil {
		if errors.Is(err, frontmatter.ErrNotFound) {
			return nil, fmt.Errorf("agent definition %s: no YAML front matter (start the file with --- and name:, description:)", source)
		}
		return nil, fmt.Errorf("agent definition %s: front matter: %w", source, err)
	}
	d := &Definition{Name: strings.TrimSpace(fm.Name), Description: strings.TrimSpace(fm.Description),
		Model: strings.TrimSpace(fm.Model), MaxSteps: fm.MaxSteps, Prompt: strings.TrimSpace(string(body)), Source: source}
	switch {
	case d.Name == "":
		return nil, fmt.Errorf("agent definition %s: name is missing", source)
	case !validAgentName(d.Name):
		return nil, fmt.Errorf("agent definition %s: name %q: use lower-case letters, digits, '-' and '_'", source, d.Name)
	case d.Name == "director":
		return nil, fmt.Errorf("agent definition %s: the name director is reserved for the lead", source)
	case d.Description == "":
		return nil, fmt.Errorf("agent definition %s: description is missing (the director picks agents by it)", source)
	case d.MaxSteps < 0:
		return nil, fmt.Errorf("agent definition %s: max_steps must be positive", source)
	case d.Prompt == "":
		return nil, fmt.Errorf("agent definition %s: the body (the agent's system prompt) is empty", source)
	}
	if d.Model == "inherit" {
		d.Model = ""
	}
	tools, err := toolList(&fm.Tools)
	if err != nil {
		return nil, fmt.Errorf("agent definition %s: tools: %w", source, err)
	}
	if tools != nil {
		d.Tools = []string{}
		for _, t := range tools {
			names, isClaude := claudeTools[t]
			if !isClaude {
				names = []string{t}
			}
			for _, n := range names {
				switch {
				case known == nil || known(n) || strings.ContainsAny(n, "*?[") || strings.HasPrefix(n, "family:") || strings.HasPrefix(n, "mcp_"):
					if !slices.Contains(d.Tools, n) {
						d.Tools = append(d.Tools, n)
					}
				default:
					d.Warnings = append(d.Warnings, fmt.Sprintf("tool %q does not exist in yagent; ignored", t))
				}
			}
		}
	}
	return d, nil
}

func toolList(n *yaml.Node) ([]string, error) {
	switch n.Kind {
	case 0:
		return nil, nil
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return nil, nil
		}
		var out []string
		for _, part := range strings.Split(n.Value, ",") {
			if p := strings.TrimSpace(part); p != "" {
				out = append(out, p)
			}
		}
		return out, nil
	case yaml.SequenceNode:
		var out []string
		if err := n.Decode(&out); err != nil {
			return nil, fmt.Errorf("line %d: want a list of tool names", n.Line)
		}
		return out, nil
	}
	return nil, fmt.Errorf("line %d: want a list of tool names or a comma-separated string", n.Line)
}

func validAgentName(s string) bool {
	if len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// Catalog is the set of sub-agents, by name.
type Catalog struct {
	defs map[string]*Definition
}

// Get returns a definition by name.
func (c *Catalog) Get(name string) (*Definition, bool) {
	d, ok := c.defs[name]
	return d, ok
}

// All returns the definitions sorted by name.
func (c *Catalog) All() []*Definition {
	out := make([]*Definition, 0, len(c.defs))
	for _, d := range c.defs {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// LoadCatalog loads the built-in definitions, then .claude/agents/ of the
// workspace, then $YAGENT_HOME/agents/, then .yagent/agents/ of the
// workspace; a later source overrides an agent of the same name. A broken
// file is an error naming it.
func LoadCatalog(workspace, home string, known func(string) bool) (*Catalog, error) {
	c := &Catalog{defs: map[string]*Definition{}}
	entries, _ := fs.ReadDir(builtinFS, "builtin")
	for _, e := range entries {
		data, _ := builtinFS.ReadFile("builtin/" + e.Name())
		d, err := ParseDefinition("builtin", data, nil)
		if err != nil {
			return nil, err
		}
		c.defs[d.Name] = d
	}
	dirs := []string{filepath.Join(workspace, ".claude", "agents")}
	if home != "" {
		dirs = append(dirs, filepath.Join(home, "agents"))
	}
	dirs = append(dirs, filepath.Join(workspace, ".yagent", "agents"))
	for _, dir := range dirs {
		files, err := filepath.Glob(filepath.Join(dir, "*.md"))
		if err != nil {
			return nil, err
		}
		sort.Strings(files)
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				return nil, fmt.Errorf("agent definition %s: %w", f, err)
			}
			d, err := ParseDefinition(f, data, known)
			if err != nil {
				return nil, err
			}
			c.defs[d.Name] = d
		}
	}
	return c, nil
}
