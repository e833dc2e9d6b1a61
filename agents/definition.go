package agents

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/internal/yamlstrict"
)

//go:embed builtin/*.md
var builtinFS embed.FS

// Scopes of definitions, lowest precedence first: a project's definition
// shadows a user's, a user's shadows a built-in.
const (
	ScopeBuiltin = "builtin"
	ScopeUser    = "user"
	ScopeProject = "project"
)

// Definition is a sub-agent definition: Markdown with YAML front matter
// (name, description, tools, model, max_steps, isolation) whose body is the system
// prompt. The format is Claude Code's, so .claude/agents/ files work.
type Definition struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Tools is the whitelist. nil (JSON null): the front matter has no
	// tools key, every tool a sub-agent may have; empty: no tools at all.
	Tools    []string `json:"tools"`
	Model    string   `json:"model,omitempty"`
	MaxSteps int      `json:"max_steps,omitempty"`
	// Isolation is none or worktree when the definition sets it (issue
	// 28); "" leaves it to agents.isolation.
	Isolation string `json:"isolation,omitempty"`
	// Skills are the skills whose text is preloaded into the sub-agent's
	// prompt (Claude Code's `skills:`), as written.
	Skills []string `json:"skills,omitempty"`
	Prompt string   `json:"-"`
	Source string   `json:"source"` // "builtin" or the file path
	Scope  string   `json:"scope"`  // builtin, user or project
	// Warnings are things that were ignored (Claude-only tools) and the
	// definitions of the same name this one shadows.
	Warnings []string `json:"warnings,omitempty"`
}

// Problem is a definition file that was skipped, and why.
type Problem struct {
	Source  string `json:"source"`
	Message string `json:"message"`
}

// frontMatter is the on-disk shape; tools may be a YAML list or Claude's
// comma-separated string.
type frontMatter struct {
	Name        string    `yaml:"name"`
	Description string    `yaml:"description"`
	Tools       yaml.Node `yaml:"tools"`
	Model       string    `yaml:"model"`
	MaxSteps    int       `yaml:"max_steps"`
	Isolation   string    `yaml:"isolation"`
	Skills      yaml.Node `yaml:"skills"`
}

// claudeTools maps Claude Code tool names to yagent's.
var claudeTools = map[string][]string{
	"Read": {"read_file"}, "Write": {"write_file"}, "Edit": {"edit_file"}, "MultiEdit": {"edit_file"},
	"Bash": {"shell"}, "Grep": {"grep"}, "Glob": {"glob"}, "LS": {"list_dir"},
}

// maxAgentName is the longest agent name (a board directory name).
const maxAgentName = 64

// ParseDefinition parses one definition file. known tells which tool names
// exist; unknown ones are dropped with a warning rather than failing, so a
// Claude definition that names WebFetch still loads. The error of a file
// that cannot be used names source.
func ParseDefinition(source string, data []byte, known func(string) bool) (*Definition, error) {
	d, err := parseDefinition(source, data, known)
	if err != nil {
		return nil, fmt.Errorf("agent definition %s: %w", source, err)
	}
	return d, nil
}

func parseDefinition(source string, data []byte, known func(string) bool) (*Definition, error) {
	if !utf8.Valid(data) {
		return nil, errors.New("not UTF-8 text")
	}
	var fm frontMatter
	head, body, ok := blackboard.SplitFrontMatter(data)
	if !ok {
		return nil, errors.New("no YAML front matter (start the file with --- and name:, description:)")
	}
	if err := yaml.Unmarshal(head, &fm); err != nil {
		return nil, fmt.Errorf("front matter: %w (quote a value that contains \": \", e.g. description: \"…\")", err)
	}
	d := &Definition{Name: strings.TrimSpace(fm.Name), Description: strings.TrimSpace(fm.Description),
		Model: strings.TrimSpace(fm.Model), MaxSteps: fm.MaxSteps, Isolation: strings.TrimSpace(fm.Isolation), Prompt: strings.TrimSpace(string(body)), Source: source}
	switch {
	case d.Name == "":
		return nil, errors.New("name is missing")
	case !ValidAgentName(d.Name):
		return nil, fmt.Errorf("name %q: use lower-case letters, digits, '.', '-' and '_', starting with a letter or digit (at most %d)", d.Name, maxAgentName)
	case d.Name == "director":
		return nil, errors.New("the name director is reserved for the lead")
	case d.Description == "":
		return nil, errors.New("description is missing (the director picks agents by it)")
	case d.MaxSteps < 0:
		return nil, errors.New("max_steps must be positive")
	case d.Isolation != "" && d.Isolation != IsolationNone && d.Isolation != IsolationWorktree:
		return nil, fmt.Errorf("isolation %q: want none or worktree (or leave it out: agents.isolation decides)", d.Isolation)
	case d.Prompt == "":
		return nil, errors.New("the body (the agent's system prompt) is empty")
	}
	if d.Model == "inherit" {
		d.Model = ""
	}
	tools, err := yamlstrict.List(&fm.Tools, "tool names")
	if err != nil {
		return nil, fmt.Errorf("tools: %w", err)
	}
	if d.Skills, err = yamlstrict.List(&fm.Skills, "skill names"); err != nil {
		return nil, fmt.Errorf("skills: %w", err)
	}
	if tools != nil {
		d.Tools = []string{}
		for _, t := range tools {
			names, warning := toolNames(t)
			if warning != "" {
				d.Warnings = append(d.Warnings, warning)
			}
			for _, n := range names {
				switch {
				case known == nil || known(n) || isToolPattern(n):
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

// isToolPattern reports whether a whitelist entry names tools that may
// only exist at run time: a glob, a family or an MCP server's tool.
func isToolPattern(n string) bool {
	return strings.ContainsAny(n, "*?[") || strings.HasPrefix(n, "family:") || strings.HasPrefix(n, "mcp_")
}

// toolNames translates one whitelist entry into yagent's names: Claude's
// built-in tools to their yagent equivalents, Claude's MCP spelling
// mcp__server__tool to yagent's mcp_server__tool (mcp__server alone is the
// whole server), anything else as written. A Claude permission rule with
// arguments (Bash(git:*)) cannot be enforced, so it is dropped with a
// warning rather than widened to the whole tool.
func toolNames(t string) ([]string, string) {
	if names, ok := claudeTools[t]; ok {
		return names, ""
	}
	if i := strings.IndexByte(t, '('); i > 0 && strings.HasSuffix(t, ")") {
		return nil, fmt.Sprintf("tool %q limits the tool's arguments, which yagent cannot enforce; ignored (list %s alone to allow it)", t, t[:i])
	}
	if rest, ok := strings.CutPrefix(t, "mcp__"); ok {
		server, tool, hasTool := strings.Cut(rest, "__")
		switch {
		case server == "":
			return nil, fmt.Sprintf("tool %q names no MCP server; ignored", t)
		case !hasTool || tool == "" || tool == "*":
			return []string{"family:mcp_" + sanitizeMCPName(server)}, ""
		}
		return []string{MCPToolName(server, tool)}, ""
	}
	return []string{t}, ""
}

// ValidAgentName reports whether s is a usable agent name:
// [a-z0-9][a-z0-9._-]*, at most 64 bytes (a board directory name).
func ValidAgentName(s string) bool {
	if s == "" || len(s) > maxAgentName {
		return false
	}
	for i, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
		case i > 0 && (r == '.' || r == '-' || r == '_'):
		default:
			return false
		}
	}
	return true
}

// Catalog is the set of sub-agents, by name, with the files that were
// skipped on the way.
type Catalog struct {
	defs     map[string]*Definition
	problems []Problem
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

// Problems returns the definition files that were skipped, in load order.
func (c *Catalog) Problems() []Problem { return slices.Clone(c.problems) }

// Notice is one line for the start of a session about what went wrong
// while loading the catalog ("" when nothing did): the skipped files and
// how many definitions shadow others.
func (c *Catalog) Notice() string {
	shadowing := 0
	for _, d := range c.defs {
		for _, w := range d.Warnings {
			if strings.HasPrefix(w, shadowsPrefix) {
				shadowing++
			}
		}
	}
	if len(c.problems) == 0 && shadowing == 0 {
		return ""
	}
	var parts []string
	if n := len(c.problems); n > 0 {
		var files []string
		for _, p := range c.problems {
			files = append(files, p.Source+" ("+p.Message+")")
		}
		parts = append(parts, fmt.Sprintf("%d agent definition %s skipped: %s", n, plural(n, "file", "files"), strings.Join(files, "; ")))
	}
	if shadowing > 0 {
		parts = append(parts, fmt.Sprintf("%d %s another of the same name", shadowing, plural(shadowing, "definition shadows", "definitions shadow")))
	}
	return strings.Join(parts, "; ") + " (yagent agents ls shows the details)"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

const shadowsPrefix = "shadows "

// Sources are the places definitions are read from.
type Sources struct {
	// Workspace holds the project's .yagent/agents/ and .claude/agents/.
	Workspace string
	// Home is $YAGENT_HOME, holding the user's agents/.
	Home string
	// UserHome is the user's home directory, holding ~/.claude/agents/;
	// "" skips it.
	UserHome string
}

// dirs lists the definition directories, lowest precedence first: within a
// scope yagent's own directory shadows Claude Code's.
func (s Sources) dirs() []struct{ dir, scope string } {
	var out []struct{ dir, scope string }
	add := func(dir, scope string) { out = append(out, struct{ dir, scope string }{dir, scope}) }
	if s.UserHome != "" {
		add(filepath.Join(s.UserHome, ".claude", "agents"), ScopeUser)
	}
	if s.Home != "" {
		add(filepath.Join(s.Home, "agents"), ScopeUser)
	}
	if s.Workspace != "" {
		add(filepath.Join(s.Workspace, ".claude", "agents"), ScopeProject)
		add(filepath.Join(s.Workspace, ".yagent", "agents"), ScopeProject)
	}
	return out
}

// LoadCatalog loads the built-in definitions, then the user's
// (~/.claude/agents/, then $YAGENT_HOME/agents/), then the project's
// (.claude/agents/, then .yagent/agents/ of the workspace). A later source
// shadows an agent of the same name, and the winner carries a warning naming
// the definition it shadows. A file that cannot be used is skipped and
// listed in Problems: loading never fails. The built-ins are part of the
// binary; one that does not parse is a defect of the build, which panics
// (TestBuiltinDefinitions parses them all).
func LoadCatalog(src Sources, known func(string) bool) *Catalog {
	c := &Catalog{defs: map[string]*Definition{}}
	entries, _ := fs.ReadDir(builtinFS, "builtin")
	for _, e := range entries {
		data, _ := builtinFS.ReadFile("builtin/" + e.Name())
		d, err := ParseDefinition("builtin", data, nil)
		if err != nil {
			panic(fmt.Sprintf("agents: built-in definition %s: %v", e.Name(), err))
		}
		d.Scope = ScopeBuiltin
		c.defs[d.Name] = d
	}
	for _, dir := range src.dirs() {
		files, err := definitionFiles(dir.dir)
		if err != nil {
			c.problems = append(c.problems, Problem{Source: dir.dir, Message: err.Error()})
			continue
		}
		// Within one directory the first file (by name) of a name wins.
		seen := map[string]string{}
		for _, f := range files {
			d, err := readDefinition(f, known)
			if err != nil {
				c.problems = append(c.problems, Problem{Source: f, Message: err.Error()})
				continue
			}
			if other, dup := seen[d.Name]; dup {
				c.problems = append(c.problems, Problem{Source: f, Message: fmt.Sprintf("agent %q is already defined by %s in the same directory; rename one", d.Name, other)})
				continue
			}
			seen[d.Name] = f
			d.Scope = dir.scope
			if prev, ok := c.defs[d.Name]; ok {
				what := prev.Source
				if prev.Scope == ScopeBuiltin {
					what = "the built-in"
				}
				d.Warnings = append(d.Warnings, fmt.Sprintf("%s%s %s definition of %q", shadowsPrefix, what, prev.Scope, d.Name))
			}
			c.defs[d.Name] = d
		}
	}
	return c
}

// definitionFiles lists dir's *.md files by name; a missing directory has
// none.
func definitionFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read agent definitions: %w", err)
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || !strings.EqualFold(filepath.Ext(name), ".md") || e.IsDir() {
			continue
		}
		out = append(out, filepath.Join(dir, name))
	}
	return out, nil
}

// maxDefinitionBytes bounds a definition file (a system prompt).
const maxDefinitionBytes = 1 << 20

func readDefinition(path string, known func(string) bool) (*Definition, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	if fi.Size() > maxDefinitionBytes {
		return nil, fmt.Errorf("%d bytes is more than %d; a system prompt that long is a mistake", fi.Size(), maxDefinitionBytes)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseDefinition(path, data, known)
}

// maxToolName is the longest tool name the OpenAI API accepts.
const maxToolName = 64

// MCPToolName is the registry name of an MCP server's tool:
// mcp_<server>__<tool>, every character outside [a-zA-Z0-9_-] turned into
// '_', at most 64 bytes (a longer name keeps its start and gets a hash of
// the whole, so it stays unique). mcp.ToolName must agree with it
// (TestMCPToolNameAgreesWithClient).
func MCPToolName(server, tool string) string {
	name := "mcp_" + sanitizeMCPName(server) + "__" + sanitizeMCPName(tool)
	if len(name) <= maxToolName {
		return name
	}
	sum := sha256.Sum256([]byte(server + "\x00" + tool))
	return name[:maxToolName-9] + "-" + hex.EncodeToString(sum[:4])
}

// sanitizeMCPName turns every character outside [a-zA-Z0-9_-] into '_'.
func sanitizeMCPName(s string) string {
	return strings.Map(func(c rune) rune {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' {
			return c
		}
		return '_'
	}, s)
}
