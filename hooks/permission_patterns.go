package hooks

import (
	"path"
	"regexp"
	"strings"
	"unicode/utf8"
)

// whyNotUTF8 is why a rule that is not text is skipped.
const whyNotUTF8 = "the rule is not valid UTF-8"

// CommandKind is how a Bash rule's specifier matches a command.
type CommandKind int

const (
	// Exact: the command and nothing else (`Bash(npm install)`).
	Exact CommandKind = iota + 1
	// Prefix: the words, alone or followed by anything after a space
	// (`Bash(git diff:*)`, `Bash(git diff *)`): `git diff` and
	// `git diff HEAD`, never `git difftool`.
	Prefix
	// Wildcard: a * anywhere stands for any text, spaces included
	// (`Bash(git * main)`, `Bash(npm run test*)`).
	Wildcard
)

// CommandPattern is a Bash rule's specifier. Text is the command (Exact),
// the prefix (Prefix) or the pattern (Wildcard), with its spaces as
// written; agents splits it into words as it splits commands.
type CommandPattern struct {
	Kind CommandKind
	Text string
	re   *regexp.Regexp // Wildcard
}

// normal is a command's text with every run of blanks one space.
func normal(s string) string { return strings.Join(strings.Fields(s), " ") }

// MatchText reports whether a command's text (its words joined by single
// spaces) matches.
func (c *CommandPattern) MatchText(s string) bool {
	s, t := normal(s), normal(c.Text)
	switch c.Kind {
	case Exact:
		return s == t
	case Prefix:
		return s == t || strings.HasPrefix(s, t+" ")
	case Wildcard:
		return c.re.MatchString(s)
	}
	return false
}

// parseCommand reads a Bash rule's specifier; nil (with no why) means
// every command (`Bash(*)`, `Bash(:*)`).
func parseCommand(spec string) (*CommandPattern, string) {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return nil, "an empty Bash() matches nothing: write Bash alone for every command"
	}
	if !utf8.ValidString(spec) {
		return nil, whyNotUTF8
	}
	if body, ok := strings.CutSuffix(spec, ":*"); ok {
		body = strings.TrimSpace(body)
		if !strings.Contains(body, "*") {
			if body == "" {
				return nil, ""
			}
			return &CommandPattern{Kind: Prefix, Text: body}, ""
		}
		spec = body + " *" // :* is the legacy spelling of a trailing " *"
	}
	if !strings.Contains(spec, "*") {
		return &CommandPattern{Kind: Exact, Text: spec}, ""
	}
	if body, ok := strings.CutSuffix(spec, " *"); ok && !strings.Contains(body, "*") {
		if body = strings.TrimSpace(body); body == "" {
			return nil, ""
		}
		return &CommandPattern{Kind: Prefix, Text: body}, ""
	}
	if strings.Trim(spec, "* \t") == "" {
		return nil, ""
	}
	body, tail := normal(spec), ""
	if b, ok := strings.CutSuffix(body, " *"); ok {
		body, tail = b, "(?: .*)?" // a trailing " *" also matches nothing
	}
	parts := strings.Split(body, "*")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return &CommandPattern{Kind: Wildcard, Text: spec, re: regexp.MustCompile("^" + strings.Join(parts, ".*") + tail + "$")}, ""
}

// PathBase is the directory a path rule is written from.
type PathBase int

const (
	// FromProject: `/path` (the project root), `./path` and `path` (the
	// working directory): for yagent both are the run's workspace.
	FromProject PathBase = iota + 1
	// FromHome: `~/path`.
	FromHome
	// FromRoot: `//path`, an absolute path.
	FromRoot
)

// PathPattern is a Read/Edit/Write rule's specifier: a gitignore-style
// pattern below Base — `*` and `?` within one name, `**` any number of
// directories, a pattern with no / but a trailing one matching a name at
// any depth — which also covers everything inside a directory it matches.
type PathPattern struct {
	Base PathBase
	Glob string // slash-separated, no leading /, no . or .. element; "" = all of Base
	re   *regexp.Regexp
}

// ParsePath reads a path rule's specifier; why says why it is skipped.
func ParsePath(spec string) (*PathPattern, string) {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return nil, "an empty path matches nothing: write the tool alone for every path"
	}
	if !utf8.ValidString(spec) {
		return nil, whyNotUTF8
	}
	if strings.ContainsAny(spec, `\[]`) {
		return nil, "character classes ([…]) and escapes (\\) in path rules are not read yet"
	}
	p := &PathPattern{Base: FromProject}
	g, anchored := spec, true
	switch {
	case strings.HasPrefix(spec, "//"):
		p.Base, g = FromRoot, spec[2:]
	case spec == "~" || strings.HasPrefix(spec, "~/"):
		p.Base, g = FromHome, strings.TrimPrefix(spec[1:], "/")
	case strings.HasPrefix(spec, "~"):
		return nil, "~user paths are not read: write //absolute or ~/path"
	case strings.HasPrefix(spec, "/"):
		g = spec[1:]
	case strings.HasPrefix(spec, "./"):
		g = spec[2:]
	default:
		anchored = strings.Contains(strings.TrimSuffix(spec, "/"), "/")
	}
	var elems []string
	for _, e := range strings.Split(g, "/") {
		switch e {
		case "", ".":
		case "..":
			return nil, "a path rule with .. is not read: write the place it means (//absolute or ~/path)"
		default:
			elems = append(elems, e)
		}
	}
	p.Glob = strings.Join(elems, "/")
	var re strings.Builder
	re.WriteString("^")
	if !anchored {
		re.WriteString("(?:[^/]+/)*")
	}
	if len(elems) == 0 {
		re.WriteString(".*")
	}
	for i, e := range elems {
		last := i == len(elems)-1
		if e == "**" {
			if last {
				re.WriteString(".*")
			} else {
				re.WriteString("(?:[^/]+/)*")
			}
			continue
		}
		for _, r := range e {
			switch r {
			case '*':
				re.WriteString("[^/]*")
			case '?':
				re.WriteString("[^/]")
			default:
				re.WriteString(regexp.QuoteMeta(string(r)))
			}
		}
		if !last {
			re.WriteString("/")
		}
	}
	re.WriteString("$")
	p.re = regexp.MustCompile(re.String())
	return p, ""
}

// Match reports whether rel — a clean slash-separated path relative to
// the pattern's Base, "." for Base itself — or a directory it is in
// matches. A path outside Base (.. first) never does.
func (p *PathPattern) Match(rel string) bool {
	rel = path.Clean(rel)
	if rel == ".." || strings.HasPrefix(rel, "../") || strings.HasPrefix(rel, "/") {
		return false
	}
	if rel == "." || rel == "" {
		return p.Glob == ""
	}
	for c := rel; ; c = path.Dir(c) {
		if p.re.MatchString(c) {
			return true
		}
		if !strings.Contains(c, "/") {
			return false
		}
	}
}
