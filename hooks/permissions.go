package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"slices"
	"strings"
)

// Claude Code's permission rules (the "permissions" object of the same
// settings files: allow, deny and ask lists of rules such as `Bash`,
// `Bash(git diff:*)`, `Read(./secrets/**)`, `mcp__github__create_issue`)
// parsed into what yagent's approvals can act on. Parsing decides nothing:
// agents applies the rules to a call (deny > ask > allow) and refuses
// what it cannot judge. Rules yagent has no counterpart for, and every
// rule of an untrusted file, are listed as Skipped with why, never
// dropped silently.

// Decision is the list a rule is in.
type Decision string

// The three lists, strongest first.
const (
	Deny  Decision = "deny"
	Ask   Decision = "ask"
	Allow Decision = "allow"
)

// Stronger reports whether d wins over e (deny > ask > allow > "").
func (d Decision) Stronger(e Decision) bool { return d.rank() > e.rank() }

func (d Decision) rank() int {
	switch d {
	case Deny:
		return 3
	case Ask:
		return 2
	case Allow:
		return 1
	}
	return 0
}

// Rule is one permission rule as loaded.
type Rule struct {
	Decision Decision
	Text     string // as written: Bash(git diff:*)
	Source   string // the settings file
	// Tool is the Claude Code tool the rule names (Bash, Read, Edit,
	// Write, MultiEdit, Glob, Grep, LS, or an mcp__server[__tool] name).
	Tool string
	// Command is a Bash rule's specifier (nil: every command).
	Command *CommandPattern
	// Path is a Read/Edit/Write/MultiEdit rule's specifier (nil: every
	// path).
	Path *PathPattern
}

// String is the rule as a person reads it in a message.
func (r Rule) String() string { return fmt.Sprintf("%s rule %q of %s", r.Decision, r.Text, r.Source) }

// ruleTools are the Claude Code tools whose rules yagent maps, and the
// yagent tools each stands for. Edit rules apply to every tool that
// edits files (Claude Code's own reading); a Read rule to every reading
// tool that takes a path.
var ruleTools = map[string][]string{
	"Bash":      {"shell"},
	"Read":      {"read_file", "list_dir", "grep", "glob"},
	"Edit":      {"write_file", "edit_file"},
	"Write":     {"write_file"},
	"MultiEdit": {"edit_file"},
	"Glob":      {"glob"},
	"Grep":      {"grep"},
	"LS":        {"list_dir"},
}

// unmapped says why the rules of Claude Code's other tools are skipped.
var unmapped = map[string]string{
	"WebFetch":     "yagent has no web fetch tool",
	"WebSearch":    "yagent has no web search tool",
	"NotebookEdit": "yagent has no notebook (.ipynb) tool",
	"NotebookRead": "yagent has no notebook (.ipynb) tool",
	"Task":         "yagent's delegate tool is not gated by permission rules (agents' own tools lists are)",
	"Agent":        "yagent's delegate tool is not gated by permission rules (agents' own tools lists are)",
	"Skill":        "yagent has no skills yet",
	"SlashCommand": "yagent has no custom commands yet",
	"TodoWrite":    "yagent has no todo tool",
	"BashOutput":   "yagent's shell has no background commands",
	"KillShell":    "yagent's shell has no background commands",
	"KillBash":     "yagent's shell has no background commands",
	"ExitPlanMode": "yagent has no plan mode",
}

// AppliesTo reports whether r is about yagent's tool (an external MCP
// server's tool by the Claude Code name it maps to: mcp_s__t is
// mcp__s__t).
func (r Rule) AppliesTo(tool string) bool {
	if ts, ok := ruleTools[r.Tool]; ok {
		return slices.Contains(ts, tool)
	}
	name := ClaudeToolName(tool)
	if !strings.HasPrefix(name, "mcp__") {
		return false
	}
	if server, ok := strings.CutSuffix(r.Tool, "__*"); ok {
		return strings.HasPrefix(name, server+"__")
	}
	return name == r.Tool || strings.HasPrefix(name, r.Tool+"__") && strings.Count(r.Tool, "__") == 1
}

// Permissions are the rules loaded from the settings files, in file order,
// and what was not loaded.
type Permissions struct {
	Rules   []Rule
	skipped []Skipped
}

// Skipped is every entry not applied, and why.
func (p *Permissions) Skipped() []Skipped {
	if p == nil {
		return nil
	}
	return p.skipped
}

// permissionsFile is the part of a settings file permissions read.
type permissionsFile struct {
	Permissions map[string]json.RawMessage `json:"permissions"`
}

// Why a whole list or key is skipped.
const (
	whyAdditionalDirs = "yagent's file tools stay inside the workspace; agents.sandbox_writable widens what commands may write"
	whyUnknownKey     = "not one of Claude Code's permission settings yagent reads (allow, deny, ask, defaultMode, additionalDirectories)"
)

// whyMode says why a defaultMode is not taken over ("" for default).
var whyMode = map[string]string{
	"default":           "",
	"acceptEdits":       "yagent does not ask before writes unless --approval untrusted; this mode changes nothing",
	"plan":              "yagent has no plan mode: give the agent no writing tools instead",
	"auto":              "yagent has no classifier mode",
	"dontAsk":           "yagent refuses what it cannot ask about only when nobody is there: not taken from a settings file",
	"bypassPermissions": "yagent's --approval never is chosen on the command line or in config.yaml, not taken from a settings file",
}

// LoadPermissions reads the permission rules of files, in order (the
// files Load reads). A missing file is no error; a file that cannot be
// read or parsed is an error naming it, and the files after it still
// load. An untrusted file's rules are all Skipped, none applies.
func LoadPermissions(files []File) (*Permissions, error) {
	p := &Permissions{}
	var errs []error
	for _, f := range files {
		data, err := os.ReadFile(f.Path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("read permissions of %s: %w", f.Path, err))
			continue
		}
		if err := p.add(f, data); err != nil {
			errs = append(errs, err)
		}
	}
	return p, errors.Join(errs...)
}

// add parses one settings file's permissions into p.
func (p *Permissions) add(f File, data []byte) error {
	var pf permissionsFile
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(&pf); err != nil {
		return fmt.Errorf("permissions of %s: %w (fix the JSON; its rules are not applied)", f.Path, jsonWhere(data, err))
	}
	keys := make([]string, 0, len(pf.Permissions))
	for k := range pf.Permissions {
		keys = append(keys, k)
	}
	slices.SortStableFunc(keys, func(a, b string) int {
		if c := keyOrder(a) - keyOrder(b); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	var errs []error
	for _, k := range keys {
		raw := pf.Permissions[k]
		switch k {
		case "deny", "ask", "allow":
			var list []string
			if err := json.Unmarshal(raw, &list); err != nil {
				errs = append(errs, fmt.Errorf("permissions of %s: %s is not a list of strings (fix it; its rules are not applied)", f.Path, k))
				continue
			}
			for _, text := range list {
				what := fmt.Sprintf("%s %s", k, text)
				if !f.Trusted {
					p.skipped = append(p.skipped, Skipped{Source: f.Path, Event: "permissions", What: what, Why: WhyUntrusted})
					continue
				}
				r, why := ParseRule(text)
				if why != "" {
					p.skipped = append(p.skipped, Skipped{Source: f.Path, Event: "permissions", What: what, Why: why})
					continue
				}
				r.Decision, r.Source = Decision(k), f.Path
				p.Rules = append(p.Rules, r)
			}
		case "defaultMode":
			var mode string
			if json.Unmarshal(raw, &mode) != nil {
				errs = append(errs, fmt.Errorf("permissions of %s: defaultMode is not a string (fix it)", f.Path))
				continue
			}
			why, known := whyMode[mode]
			if !known {
				why = "not one of Claude Code's modes (default, acceptEdits, plan, auto, dontAsk, bypassPermissions)"
			}
			if why != "" {
				p.skipped = append(p.skipped, Skipped{Source: f.Path, Event: "permissions", What: "defaultMode " + mode, Why: why})
			}
		case "additionalDirectories":
			p.skipped = append(p.skipped, Skipped{Source: f.Path, Event: "permissions", What: "additionalDirectories " + compact(raw), Why: whyAdditionalDirs})
		default:
			p.skipped = append(p.skipped, Skipped{Source: f.Path, Event: "permissions", What: k, Why: whyUnknownKey})
		}
	}
	return errors.Join(errs...)
}

// keyOrder lists a file's permission keys deny, ask, allow first (the
// order rules are judged in), the rest by name.
func keyOrder(k string) int {
	switch k {
	case "deny":
		return 0
	case "ask":
		return 1
	case "allow":
		return 2
	}
	return 3
}

func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

var toolName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]*\*?$`)

// ParseRule reads one rule, `Tool` or `Tool(specifier)`; why says why
// yagent skips it ("" = it maps). The Decision and Source are the
// caller's.
func ParseRule(text string) (r Rule, why string) {
	r.Text = text
	name, spec, hasSpec := strings.Cut(strings.TrimSpace(text), "(")
	if hasSpec {
		var ok bool
		if spec, ok = strings.CutSuffix(spec, ")"); !ok {
			return r, "a rule is Tool or Tool(specifier): the ( is not closed at the end"
		}
	}
	name = strings.TrimSpace(name)
	if !toolName.MatchString(name) {
		return r, "a rule is Tool or Tool(specifier): no tool name before it"
	}
	r.Tool = name
	if why, ok := unmapped[name]; ok {
		return r, why
	}
	if strings.HasPrefix(name, "mcp__") {
		switch {
		case hasSpec:
			return r, "an MCP tool's rule takes no (specifier)"
		case len(name) == len("mcp__") || strings.HasPrefix(name, "mcp____"):
			return r, "an MCP rule names a server: mcp__server or mcp__server__tool"
		case strings.Contains(strings.TrimSuffix(name, "__*"), "*") || strings.Count(name, "__") > 2:
			return r, "an MCP rule is mcp__server, mcp__server__* or mcp__server__tool"
		}
		return r, ""
	}
	if _, ok := ruleTools[name]; !ok {
		return r, "not one of Claude Code's tools yagent maps (Bash, Read, Edit, Write, MultiEdit, Glob, Grep, LS, mcp__server__tool)"
	}
	if !hasSpec {
		return r, ""
	}
	switch name {
	case "Bash":
		c, why := parseCommand(spec)
		if why != "" {
			return r, why
		}
		r.Command = c
	case "Read", "Edit", "Write", "MultiEdit":
		p, why := ParsePath(spec)
		if why != "" {
			return r, why
		}
		r.Path = p
	default:
		return r, fmt.Sprintf("a %s rule takes no (specifier) in yagent: write %s alone", name, name)
	}
	return r, ""
}
