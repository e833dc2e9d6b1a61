package chat

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/internal/yamlstrict"
)

// CustomCommand is a slash command written as a Markdown file, in Claude
// Code's format: the body is the prompt, `$ARGUMENTS` and `$1`…`$9` the
// words typed after the name; the front matter (optional) gives
// `description`, `argument-hint`, `allowed-tools` and `model`.
type CustomCommand struct {
	Name         string
	Description  string
	ArgumentHint string
	// AllowedTools and Model are read and shown; yagent does not apply
	// them yet (a run of the command says so).
	AllowedTools string
	Model        string
	Body         string
	Source       string
	Scope        string // project or user
}

type customFront struct {
	Description  string    `yaml:"description"`
	ArgumentHint string    `yaml:"argument-hint"`
	AllowedTools yaml.Node `yaml:"allowed-tools"`
	Model        string    `yaml:"model"`
}

// ParseCustom reads a command file; front matter is optional (as in
// Claude Code), and without a description the body's first line is one.
func ParseCustom(name string, data []byte) (CustomCommand, error) {
	if !utf8.Valid(data) {
		return CustomCommand{}, errors.New("not UTF-8 text")
	}
	c := CustomCommand{Name: "/" + name}
	body := data
	if head, rest, ok := blackboard.SplitFrontMatter(data); ok {
		var fm customFront
		if err := yaml.Unmarshal(head, &fm); err != nil {
			return CustomCommand{}, fmt.Errorf("front matter: %w (quote a value that contains \": \")", err)
		}
		c.Description, c.ArgumentHint, c.Model = oneLine(fm.Description), oneLine(fm.ArgumentHint), strings.TrimSpace(fm.Model)
		tools, err := yamlstrict.List(&fm.AllowedTools, "tool names")
		if err != nil {
			return CustomCommand{}, fmt.Errorf("allowed-tools: %w", err)
		}
		c.AllowedTools = strings.Join(tools, ", ")
		body = rest
	}
	c.Body = strings.TrimSpace(string(body))
	if c.Body == "" {
		return CustomCommand{}, errors.New("the body (the prompt) is empty")
	}
	if c.Description == "" {
		c.Description = oneLine(strings.SplitN(c.Body, "\n", 2)[0])
	}
	return c, nil
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

var positional = regexp.MustCompile(`\$[1-9]`)

// Expand is the prompt of the command typed with args: $ARGUMENTS is
// args, $1…$9 its words (missing ones empty); a body that uses neither
// gets the arguments appended, as Claude Code does.
func (c CustomCommand) Expand(args string) string {
	args = strings.TrimSpace(args)
	words := strings.Fields(args)
	used := strings.Contains(c.Body, "$ARGUMENTS") || positional.MatchString(c.Body)
	out := strings.ReplaceAll(c.Body, "$ARGUMENTS", args)
	out = positional.ReplaceAllStringFunc(out, func(m string) string {
		if i := int(m[1] - '1'); i < len(words) {
			return words[i]
		}
		return ""
	})
	if !used && args != "" {
		out += "\n\nARGUMENTS: " + args
	}
	return out
}

// validCustomName is a command name: letters, digits, '-', '_', '.'.
var validCustomName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// LoadCustom reads the custom commands of a chat in workspace: the
// person's ($YAGENT_HOME/commands, ~/.claude/commands) and, once the
// workspace is trusted, its .yagent/commands and .claude/commands; a
// project's command wins over the person's of the same name (Claude
// Code's order), a built-in command over both. What is skipped is a
// warning naming the file and why.
func LoadCustom(cfg *config.Config, workspace string) (cmds []CustomCommand, warnings []string) {
	if ws, err := filepath.Abs(cmp.Or(workspace, ".")); err == nil {
		workspace = ws
	}
	trusted := false
	if dir, err := config.TrustDir(workspace); err == nil {
		if list, err := config.ReadTrust(cfg.Home); err == nil {
			trusted = list.Has(dir)
		}
	}
	type source struct{ dir, scope string }
	var dirs []source
	if cfg.UserHome != "" {
		dirs = append(dirs, source{filepath.Join(cfg.UserHome, ".claude", "commands"), "user"})
	}
	if cfg.Home != "" {
		dirs = append(dirs, source{filepath.Join(cfg.Home, "commands"), "user"})
	}
	dirs = append(dirs, source{filepath.Join(workspace, ".claude", "commands"), "project"}, source{filepath.Join(workspace, ".yagent", "commands"), "project"})
	byName := map[string]CustomCommand{}
	for _, d := range dirs {
		entries, err := os.ReadDir(d.dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("warning: custom commands: %v", err))
			continue
		}
		if d.scope == "project" && !trusted {
			if len(entries) > 0 {
				warnings = append(warnings, fmt.Sprintf("warning: not reading the commands of %s: this directory is not trusted; if you trust it, run `yagent trust %s`", d.dir, workspace))
			}
			continue
		}
		for _, e := range entries {
			name, ok := strings.CutSuffix(e.Name(), ".md")
			if !ok || e.IsDir() || strings.HasPrefix(name, ".") {
				continue
			}
			p := filepath.Join(d.dir, e.Name())
			if !validCustomName.MatchString(name) {
				warnings = append(warnings, fmt.Sprintf("warning: custom command %s skipped: use letters, digits, '.', '-' and '_' in its name", p))
				continue
			}
			if _, builtin := findSlash("/" + name); builtin {
				warnings = append(warnings, fmt.Sprintf("warning: custom command %s skipped: /%s is yagent's own", p, name))
				continue
			}
			data, err := os.ReadFile(p)
			if err == nil && len(data) > 256<<10 {
				err = errors.New("larger than 256 KiB")
			}
			var c CustomCommand
			if err == nil {
				c, err = ParseCustom(name, data)
			}
			if err != nil {
				warnings = append(warnings, fmt.Sprintf("warning: custom command %s skipped: %v", p, err))
				continue
			}
			c.Source, c.Scope = p, d.scope
			byName[c.Name] = c
		}
	}
	for _, c := range byName {
		cmds = append(cmds, c)
	}
	slices.SortFunc(cmds, func(a, b CustomCommand) int { return strings.Compare(a.Name, b.Name) })
	return cmds, warnings
}

// CustomNames are the commands' names, for Tab.
func CustomNames(cmds []CustomCommand) []string {
	var out []string
	for _, c := range cmds {
		out = append(out, c.Name)
	}
	return out
}

// customHelp is /help's part for the custom commands ("" without any).
func customHelp(cmds []CustomCommand) string {
	if len(cmds) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n\nyour commands (Markdown files; the words after the name are $ARGUMENTS):")
	for _, c := range cmds {
		use := c.Name
		if c.ArgumentHint != "" {
			use += " " + c.ArgumentHint
		}
		fmt.Fprintf(&b, "\n  %-26s %s (%s)", use, c.Description, c.Scope)
	}
	return b.String()
}

// findCustom is the custom command a typed word names.
func findCustom(cmds []CustomCommand, word string) (CustomCommand, bool) {
	for _, c := range cmds {
		if c.Name == word {
			return c, true
		}
	}
	return CustomCommand{}, false
}

// expand is the prompt a custom command line stands for, and a note to
// show first ("" for none); ok is false for any other line.
func (c *Chat) expand(line string) (prompt, note string, ok bool) {
	name, args, _ := strings.Cut(strings.TrimSpace(line), " ")
	cmd, ok := findCustom(c.custom, name)
	if !ok {
		return "", "", false
	}
	var ignored []string
	if cmd.Model != "" {
		ignored = append(ignored, "model: "+cmd.Model)
	}
	if cmd.AllowedTools != "" {
		ignored = append(ignored, "allowed-tools: "+cmd.AllowedTools)
	}
	if len(ignored) > 0 {
		note = fmt.Sprintf("note: %s's %s not applied (yagent does not support them in commands yet)", cmd.Name, strings.Join(ignored, "; "))
	}
	return cmd.Expand(args), note, true
}
