package skills

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Scopes of a skill.
const (
	ScopeProject = "project"
	ScopeUser    = "user"
)

// Sources are the places skills are read from.
type Sources struct {
	// Workspace holds the project's .agents/skills and .claude/skills,
	// read only when Trusted (a skill's text steers the agents, and its
	// scripts are run by them).
	Workspace string
	Trusted   bool
	// Home is $YAGENT_HOME (its skills/); UserHome the person's home
	// directory (~/.agents/skills, ~/.claude/skills; "" skips them).
	Home     string
	UserHome string
}

type dir struct{ path, scope string }

// dirs lists the skill directories, lowest precedence first. As in Claude
// Code the person's skills win over a project's of the same name; within
// a scope yagent's own directory wins over the shared .agents one, which
// wins over Claude Code's.
func (s Sources) dirs() (out []dir) {
	if s.Workspace != "" {
		out = append(out, dir{filepath.Join(s.Workspace, ".claude", "skills"), ScopeProject}, dir{filepath.Join(s.Workspace, ".agents", "skills"), ScopeProject})
	}
	if s.UserHome != "" {
		out = append(out, dir{filepath.Join(s.UserHome, ".claude", "skills"), ScopeUser}, dir{filepath.Join(s.UserHome, ".agents", "skills"), ScopeUser})
	}
	if s.Home != "" {
		out = append(out, dir{filepath.Join(s.Home, "skills"), ScopeUser})
	}
	return out
}

// Problem is a skill (or a skills directory) that was skipped, and why.
type Problem struct {
	Source  string `json:"source"`
	Message string `json:"message"`
}

// Catalog is the skills a run may use.
type Catalog struct {
	skills   map[string]*Skill
	problems []Problem
	skipped  []string
}

// maxSkillBytes bounds a SKILL.md (instructions, not a data file).
const maxSkillBytes = 1 << 20

// Load reads every skill of src. It never fails: a skill that cannot be
// used is in Problems, a directory of an untrusted workspace that holds
// skills is in Skipped. A directory that is one of the person's (a
// workspace in $HOME) is read once, as theirs.
func Load(src Sources) *Catalog {
	c := &Catalog{skills: map[string]*Skill{}}
	all := src.dirs()
	for i, d := range all {
		if d.scope == ScopeProject && sameAsAny(d.path, all[i+1:]) {
			continue
		}
		entries, err := os.ReadDir(d.path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			c.problems = append(c.problems, Problem{Source: d.path, Message: fmt.Sprintf("read skills: %v", err)})
			continue
		}
		if d.scope == ScopeProject && !src.Trusted {
			if len(entries) > 0 {
				c.skipped = append(c.skipped, d.path)
			}
			continue
		}
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".") {
				continue
			}
			sdir := filepath.Join(d.path, e.Name())
			if fi, err := os.Stat(sdir); err != nil || !fi.IsDir() {
				continue // a file beside the skills, or a broken link
			}
			s, err := readSkill(sdir)
			if err != nil {
				c.problems = append(c.problems, Problem{Source: filepath.Join(sdir, FileName), Message: err.Error()})
				continue
			}
			s.Scope = d.scope
			if prev, ok := c.skills[s.Name]; ok {
				s.Warnings = append(s.Warnings, fmt.Sprintf("shadows the %s skill of %s", prev.Scope, prev.Source))
			}
			c.skills[s.Name] = s
		}
	}
	return c
}

func sameAsAny(p string, others []dir) bool {
	a, err := os.Stat(p)
	if err != nil {
		return false
	}
	for _, o := range others {
		if b, err := os.Stat(o.path); err == nil && os.SameFile(a, b) {
			return true
		}
	}
	return false
}

// readSkill reads sdir/SKILL.md (through the directory's root: a SKILL.md
// that is a link out of it is refused).
func readSkill(sdir string) (*Skill, error) {
	data, err := readIn(sdir, FileName, maxSkillBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no %s in this directory (a skill is a directory holding one)", FileName)
	}
	if err != nil {
		return nil, err
	}
	s, _, err := Parse(data, filepath.Base(sdir))
	if err != nil {
		return nil, err
	}
	s.Dir, s.Source = sdir, filepath.Join(sdir, FileName)
	return &s, nil
}

// All returns the skills by name.
func (c *Catalog) All() []*Skill {
	if c == nil {
		return nil
	}
	out := make([]*Skill, 0, len(c.skills))
	for _, s := range c.skills {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b *Skill) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Get returns the skill of that name.
func (c *Catalog) Get(name string) (*Skill, bool) {
	if c == nil {
		return nil, false
	}
	s, ok := c.skills[name]
	return s, ok
}

// Problems returns the skills that were skipped, in load order.
func (c *Catalog) Problems() []Problem {
	if c == nil {
		return nil
	}
	return slices.Clone(c.problems)
}

// Skipped returns the untrusted workspace's skill directories that were
// not read.
func (c *Catalog) Skipped() []string {
	if c == nil {
		return nil
	}
	return slices.Clone(c.skipped)
}

// Notices are the lines a run starts with about what did not load ("":
// none): the skipped skills and an untrusted workspace's directories.
func (c *Catalog) Notices(workspace string) []string {
	var out []string
	if n := len(c.Problems()); n > 0 {
		var parts []string
		for _, p := range c.problems {
			parts = append(parts, p.Source+" ("+p.Message+")")
		}
		out = append(out, fmt.Sprintf("warning: %d %s skipped: %s (yagent skills ls shows them)", n, plural(n, "skill", "skills"), strings.Join(parts, "; ")))
	}
	for _, d := range c.Skipped() {
		out = append(out, fmt.Sprintf("warning: not reading the skills of %s: this directory is not trusted; if you trust it, run `yagent trust %s`", d, workspace))
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
