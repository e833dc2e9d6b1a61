package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Bounds of the git configuration HooksPaths reads.
const (
	gitConfigMaxBytes = 1 << 20 // per file
	gitIncludeDepth   = 10      // git's own limit (MAX_INCLUDE_DEPTH)
)

// HooksPaths returns the directories git runs hooks from, besides the git
// directory's own hooks/, for the repository whose work tree is workspace:
// every value of core.hooksPath (husky: `git config core.hooksPath
// .husky/_`), absolute and cleaned — a relative value is relative to the
// work tree, "~/" to the home directory — and, when it differs, the same
// path with the symbolic links of its existing part resolved.
//
// git is not run: the repository's config is read (for a .git file — a
// linked worktree or submodule — the config and config.worktree of the git
// directory it names and of that directory's common directory), and the
// files its include.path and includeIf.*.path name, whatever their
// condition. Every value set counts, not only the one git would use: a
// directory protected for nothing costs a question, a missed one runs code
// on the person's next git command. A workspace without .git has none; so
// does one whose git directory is above it (the hooks are outside then).
func HooksPaths(workspace string) []string {
	var files []string
	dot := filepath.Join(workspace, ".git")
	fi, err := os.Stat(dot)
	switch {
	case err != nil:
		return nil
	case fi.Mode().IsRegular():
		for _, d := range gitFileDirs(workspace, dot) {
			files = append(files, filepath.Join(d, "config"), filepath.Join(d, "config.worktree"))
		}
	case fi.IsDir():
		files = []string{filepath.Join(dot, "config"), filepath.Join(dot, "config.worktree")}
	}
	home, _ := os.UserHomeDir()
	var values []string
	seen := map[string]bool{}
	var read func(file string, depth int)
	read = func(file string, depth int) {
		if depth > gitIncludeDepth || seen[file] {
			return
		}
		seen[file] = true
		data, err := readSmall(file, gitConfigMaxBytes)
		if err != nil {
			return
		}
		// A bad line stops git too; the values before it still count.
		_ = parseGitConfig(data, func(name, value string) {
			switch {
			case name == "core.hookspath":
				values = append(values, value)
			case name == "include.path", strings.HasPrefix(name, "includeif.") && strings.HasSuffix(name, ".path"):
				if p := expandGitPath(value, filepath.Dir(file), home); p != "" {
					read(p, depth+1)
				}
			}
		})
	}
	for _, f := range files {
		read(f, 0)
	}
	var out []string
	for _, v := range values {
		p := expandGitPath(v, workspace, home)
		if p == "" {
			continue
		}
		out = append(out, p)
		if real := resolveExisting(p); real != p {
			out = append(out, real)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// expandGitPath turns a pathname value of git's configuration into an
// absolute path: "~/" is the home directory, a relative path is relative
// to base; "" for what cannot be placed ("~user/", "%(prefix)/", no home).
func expandGitPath(v, base, home string) string {
	switch {
	case v == "":
		return ""
	case v == "~" || strings.HasPrefix(v, "~/"):
		if home == "" {
			return ""
		}
		return filepath.Join(home, v[1:])
	case strings.HasPrefix(v, "~"), strings.HasPrefix(v, "%(prefix)/"):
		return ""
	case filepath.IsAbs(v):
		return filepath.Clean(v)
	}
	return filepath.Join(base, v)
}

// readSmall reads a regular file of at most limit bytes (a config that is
// a FIFO or /dev/zero is not read).
func readSmall(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	return io.ReadAll(io.LimitReader(f, limit))
}

// errGitConfig is a line git itself refuses ("bad config line").
var errGitConfig = errors.New("bad git config line")

// parseGitConfig calls fn for each variable a git config file sets, in
// order: name is "section.key" or "section.subsection.key" with the section
// and key lower-cased (as git compares them) and the subsection as
// written; value has git's quoting, escapes and comments applied (a key
// without "=", a boolean true, has "", as git prints it). It follows git's
// own parser (config.c: get_base_var, get_value, parse_value; checked
// against git by TestParseGitConfigAgreesWithGit) and stops at the first
// line git refuses, returning errGitConfig with its number.
func parseGitConfig(data []byte, fn func(name, value string)) error {
	p := &gitConfigParser{data: data, line: 1}
	if len(data) >= 3 && string(data[:3]) == "\xef\xbb\xbf" {
		p.i = 3
	}
	section := ""
	comment := false
	for {
		c := p.next()
		switch {
		case p.eof:
			return nil
		case c == '\n':
			comment = false
		case comment || isGitSpace(c):
		case c == '#' || c == ';':
			comment = true
		case c == '[':
			s, ok := p.sectionHeader()
			if !ok {
				return p.err()
			}
			section = s
		case isAlpha(c):
			key, value, ok := p.variable(c)
			if !ok {
				return p.err()
			}
			fn(section+"."+key, value)
		default:
			return p.err()
		}
	}
}

type gitConfigParser struct {
	data []byte
	i    int
	line int
	eof  bool
	nl   bool // the last byte read ended a line
}

// err is errGitConfig with the number git gives the line: a refusal at
// the newline that ends a line is that line's.
func (p *gitConfigParser) err() error {
	line := p.line
	if p.nl {
		line--
	}
	return fmt.Errorf("%w %d", errGitConfig, line)
}

// next returns the next byte, "\r\n" as '\n', and '\n' at the end (eof set).
func (p *gitConfigParser) next() byte {
	if p.i >= len(p.data) {
		p.eof = true
		return '\n'
	}
	c := p.data[p.i]
	p.i++
	if c == '\r' && p.i < len(p.data) && p.data[p.i] == '\n' {
		p.i++
		c = '\n'
	}
	p.nl = c == '\n'
	if p.nl {
		p.line++
	}
	return c
}

// sectionHeader reads what follows '[': "name]" (lower-cased, dots kept:
// the old "[section.sub]" form) or `name "subsection"]` (escapes \" and \\).
func (p *gitConfigParser) sectionHeader() (string, bool) {
	var name []byte
	for {
		c := p.next()
		switch {
		case p.eof, (c == ']' || isGitSpace(c)) && len(name) == 0:
			return "", false
		case c == ']':
			return string(name), true
		case isGitSpace(c):
			return p.subsection(string(name), c)
		case !isKeyChar(c) && c != '.':
			return "", false
		}
		name = append(name, toLower(c))
	}
}

func (p *gitConfigParser) subsection(name string, c byte) (string, bool) {
	for isGitSpace(c) {
		if c == '\n' {
			return "", false
		}
		c = p.next()
	}
	if c != '"' {
		return "", false
	}
	sub := []byte(name + ".")
	for {
		c := p.next()
		if c == '\n' {
			return "", false
		}
		if c == '"' {
			break
		}
		if c == '\\' {
			if c = p.next(); c == '\n' {
				return "", false
			}
		}
		sub = append(sub, c)
	}
	if p.next() != ']' {
		return "", false
	}
	return string(sub), true
}

// variable reads a key starting with c and its value ("" without "=").
func (p *gitConfigParser) variable(c byte) (string, string, bool) {
	key := []byte{toLower(c)}
	for {
		c = p.next()
		if p.eof || !isKeyChar(c) {
			break
		}
		key = append(key, toLower(c))
	}
	for c == ' ' || c == '\t' {
		c = p.next()
	}
	if c == '\n' {
		return string(key), "", true
	}
	if c != '=' {
		return "", "", false
	}
	v, ok := p.value()
	return string(key), v, ok
}

// value reads a value up to the end of its line: leading and trailing
// blanks dropped, each inner blank kept as a space, quotes removed, \\ \"
// \n \t \b unescaped, a backslash at the end of a line continues it, #
// and ; outside quotes start a comment.
func (p *gitConfigParser) value() (string, bool) {
	var v []byte
	quote, comment, space := false, false, 0
	for {
		c := p.next()
		switch {
		case c == '\n':
			return string(v), !quote
		case comment:
			continue
		case isGitSpace(c) && !quote:
			if len(v) > 0 {
				space++
			}
			continue
		case !quote && (c == ';' || c == '#'):
			comment = true
			continue
		}
		for ; space > 0; space-- {
			v = append(v, ' ')
		}
		switch c {
		case '\\':
			switch c = p.next(); c {
			case '\n':
				continue // a continued line (at the end of the file: the end)
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			case 'n':
				c = '\n'
			case '\\', '"':
			default:
				return "", false
			}
		case '"':
			quote = !quote
			continue
		}
		v = append(v, c)
	}
}

// isGitSpace is git's isspace (sane_ctype: no \v or \f).
func isGitSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isAlpha(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func isKeyChar(c byte) bool { return isAlpha(c) || '0' <= c && c <= '9' || c == '-' }

func toLower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
