package skills

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/internal/yamlstrict"
)

// FileName is the file that makes a directory a skill.
const FileName = "SKILL.md"

// Skill is one skill: its front matter and where it lives. The body is
// read again when the skill is loaded (Body), so an edit is seen without a
// restart.
type Skill struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// AllowedTools is the front matter's allowed-tools as written (an
	// experimental field of the spec; yagent shows it, grants nothing).
	AllowedTools string `json:"allowed_tools,omitempty"`
	// Dir is the skill's directory; Source its SKILL.md.
	Dir    string `json:"dir"`
	Source string `json:"source"`
	Scope  string `json:"scope"` // project or user
	// Warnings are what was tolerated (a name that differs from the
	// directory's, the skill of the same name this one shadows).
	Warnings []string `json:"warnings,omitempty"`
}

// frontMatter is SKILL.md's front matter; fields the spec or Claude Code
// add (license, compatibility, metadata, model…) are accepted and ignored.
type frontMatter struct {
	Name         string    `yaml:"name"`
	Description  string    `yaml:"description"`
	AllowedTools yaml.Node `yaml:"allowed-tools"`
}

// Limits of the spec.
const (
	maxName        = 64
	maxDescription = 1024
)

// Parse reads a SKILL.md's front matter and body. dirName is the name of
// the skill's directory: the name when the front matter has none (as
// Claude Code does). The error says what to fix.
func Parse(data []byte, dirName string) (s Skill, body string, err error) {
	if !utf8.Valid(data) {
		return Skill{}, "", errors.New("not UTF-8 text")
	}
	head, rest, ok := blackboard.SplitFrontMatter(data)
	if !ok {
		return Skill{}, "", errors.New("no YAML front matter (start the file with --- and name:, description:, then ---)")
	}
	var fm frontMatter
	if err := yaml.Unmarshal(head, &fm); err != nil {
		return Skill{}, "", fmt.Errorf("front matter: %w (quote a value that contains \": \", e.g. description: \"…\")", err)
	}
	body = strings.TrimSpace(string(rest))
	s = Skill{Name: strings.TrimSpace(fm.Name), Description: strings.Join(strings.Fields(fm.Description), " ")}
	if s.Name == "" {
		s.Name = dirName
	}
	if err := ValidName(s.Name); err != nil {
		return Skill{}, "", err
	}
	if s.Name != dirName && dirName != "" {
		s.Warnings = append(s.Warnings, fmt.Sprintf("name %q differs from its directory %q (the spec wants them equal)", s.Name, dirName))
	}
	if s.Description == "" {
		return Skill{}, "", errors.New("description is missing (agents choose a skill by it: say what it does and when to use it)")
	}
	if n := utf8.RuneCountInString(s.Description); n > maxDescription {
		return Skill{}, "", fmt.Errorf("description is %d characters; the spec allows %d", n, maxDescription)
	}
	tools, err := yamlstrict.List(&fm.AllowedTools, "tool names")
	if err != nil {
		return Skill{}, "", fmt.Errorf("allowed-tools: %w", err)
	}
	s.AllowedTools = strings.Join(tools, " ")
	return s, body, nil
}

// ValidName reports why name is not a skill name: 1–64 lower-case
// letters, digits and hyphens, no hyphen at either end, none doubled.
func ValidName(name string) error {
	bad := func(why string) error {
		return fmt.Errorf("name %q: %s (use 1-%d lower-case letters, digits and single hyphens, e.g. pdf-processing)", name, why, maxName)
	}
	switch {
	case name == "":
		return bad("empty")
	case len(name) > maxName:
		return bad("too long")
	case strings.HasPrefix(name, "-") || strings.HasSuffix(name, "-"):
		return bad("a hyphen at an end")
	case strings.Contains(name, "--"):
		return bad("two hyphens in a row")
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return bad(fmt.Sprintf("%q is not allowed", r))
		}
	}
	return nil
}
