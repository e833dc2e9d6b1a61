package agents

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Context files (issue 31 item 4): the instructions a project and the
// person keep for agents, read as Codex and Claude Code read them.
const (
	// maxContextBytes bounds the whole text of the context files.
	maxContextBytes = 32 << 10
	// maxImportDepth is how many @imports deep a file may pull others
	// (Claude Code's bound).
	maxImportDepth = 5
	// maxContextFileBytes bounds one file read (a larger one is not an
	// instructions file).
	maxContextFileBytes = 1 << 20
)

// ContextOptions say which context files a run reads.
type ContextOptions struct {
	// Dir is the directory the agent works in: the workspace, or a
	// delegation's worktree. The project's root is the nearest directory
	// at or above it holding .git (else Dir itself); every directory from
	// the root down to Dir gives its AGENTS.md, or its CLAUDE.md when it
	// has none.
	Dir string
	// User are the person's files, in order; the first that exists is
	// read ($YAGENT_HOME/AGENTS.md, then ~/.claude/CLAUDE.md).
	User []string
	// Home is the person's home directory, for @~/ imports ("": none).
	Home string
	// Max bounds the text in bytes (0: 32 KiB).
	Max int
}

// ContextFile is one file a Context read.
type ContextFile struct {
	// Path is where it is: relative to the project's root for the
	// project's files, absolute for the person's.
	Path string `json:"path"`
	// ImportedBy is the file whose @import pulled it in ("" for none).
	ImportedBy string `json:"imported_by,omitempty"`
	Bytes      int    `json:"bytes"`
	// Cut is set when the cap kept only the file's start, or none of it.
	Cut bool `json:"cut,omitempty"`
}

// Context is the context files of a directory, framed for a prompt.
type Context struct {
	Text  string
	Files []ContextFile
	// Notes say what was not read and why (an import refused, the cap),
	// for the person; Text carries the cap's note too.
	Notes []string
}

type contextPart struct {
	file ContextFile
	head string
	text string
}

// LoadContext reads the context files of o.Dir. It never fails: a file
// that cannot be read is left out with a note.
func LoadContext(o ContextOptions) Context {
	var c Context
	var parts []contextPart
	for _, p := range o.User {
		p = abs(p)
		l := &contextLoader{confine: filepath.Dir(p), home: o.Home, show: func(abs string) string { return abs }, notes: &c.Notes}
		data, err := l.read(p)
		if err != nil {
			continue
		}
		parts = append(parts, l.file(p, data, "", " (the person's)", nil, 0)...)
		break
	}
	dir := abs(o.Dir)
	root := projectRoot(dir)
	l := &contextLoader{confine: root, home: o.Home, notes: &c.Notes, show: func(abs string) string {
		if rel, err := filepath.Rel(root, abs); err == nil {
			return filepath.ToSlash(rel)
		}
		return abs
	}}
	for _, d := range chain(root, dir) {
		for _, name := range []string{"AGENTS.md", "CLAUDE.md"} {
			p := filepath.Join(d, name)
			data, err := l.read(p)
			if err != nil {
				continue
			}
			applies := ""
			if d != root {
				applies = " (applies to " + l.show(d) + "/ and below)"
			}
			parts = append(parts, l.file(p, data, "", applies, nil, 0)...)
			break
		}
	}
	if len(parts) == 0 {
		return c
	}
	max := o.Max
	if max <= 0 {
		max = maxContextBytes
	}
	var b strings.Builder
	b.WriteString("Instructions from context files (AGENTS.md, or CLAUDE.md where a directory has none; a file applies to its directory and everything below it):")
	var cut []string
	for _, p := range parts {
		block := "\n\n## " + p.head + "\n" + p.text
		if room := max - b.Len(); len(cut) > 0 || len(block) > room {
			p.file.Cut = true
			if len(cut) == 0 && room > len(p.head)+64 {
				b.WriteString(block[:validCut(block, room)])
				cut = append(cut, "the end of "+p.file.Path)
			} else {
				cut = append(cut, p.file.Path)
			}
		} else {
			b.WriteString(block)
		}
		c.Files = append(c.Files, p.file)
	}
	if len(cut) > 0 {
		note := fmt.Sprintf("context files cut at %d bytes: %s not included (read them with read_file)", max, strings.Join(cut, ", "))
		b.WriteString("\n\n… [" + note + "]")
		c.Notes = append(c.Notes, note)
	}
	c.Text = b.String()
	return c
}

// validCut is the largest n <= max at which s can be cut without
// splitting a UTF-8 sequence.
func validCut(s string, max int) int {
	for max > 0 && max < len(s) && s[max]&0xC0 == 0x80 {
		max--
	}
	return max
}

func abs(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// projectRoot is the nearest directory at or above dir holding .git (a
// directory or a worktree's file), else dir.
func projectRoot(dir string) string {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		up := filepath.Dir(d)
		if up == d {
			return dir
		}
		d = up
	}
}

// chain lists the directories from root down to dir.
func chain(root, dir string) []string {
	rel, err := filepath.Rel(root, dir)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return []string{dir}
	}
	out := []string{root}
	d := root
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		d = filepath.Join(d, part)
		out = append(out, d)
	}
	return out
}

// contextLoader reads files and their @imports inside confine.
type contextLoader struct {
	confine string
	home    string
	show    func(abs string) string
	notes   *[]string
}

// errOutside is an import that would leave the directory its file is
// confined to.
var errOutside = errors.New("outside")

// read reads p through an os.Root of the confinement: no .. or link out.
func (l *contextLoader) read(p string) (string, error) {
	rel, err := filepath.Rel(l.confine, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", errOutside
	}
	r, err := os.OpenRoot(l.confine)
	if err != nil {
		return "", err
	}
	defer r.Close()
	f, err := r.Open(rel)
	if err != nil {
		if strings.Contains(err.Error(), "escapes") {
			return "", errOutside
		}
		return "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return "", fs.ErrNotExist
	}
	if fi.Size() > maxContextFileBytes {
		return "", fmt.Errorf("%d bytes is more than %d", fi.Size(), maxContextFileBytes)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxContextFileBytes))
	if err != nil {
		return "", err
	}
	return string(data), nil
}

// file is the part of p and, after it, those of its imports (depth-first;
// stack holds the files on the way to it, for cycles).
func (l *contextLoader) file(p, text, importedBy, suffix string, stack []string, depth int) []contextPart {
	shown := l.show(p)
	head := shown + suffix
	if importedBy != "" {
		head = shown + " (imported by " + importedBy + ")"
	}
	out := []contextPart{{file: ContextFile{Path: shown, ImportedBy: importedBy, Bytes: len(text)}, head: head, text: strings.TrimSpace(text)}}
	stack = append(stack, p)
	for _, imp := range Imports(text) {
		target := l.resolve(p, imp)
		switch {
		case slices.Contains(stack, target):
			l.note("@%s in %s: an import cycle; not read again", imp, shown)
			continue
		case depth+1 > maxImportDepth:
			l.note("@%s in %s: imports nest deeper than %d; not read", imp, shown, maxImportDepth)
			continue
		}
		data, err := l.read(target)
		switch {
		case errors.Is(err, errOutside):
			l.note("@%s in %s: outside %s; not read", imp, shown, l.confine)
			continue
		case err != nil:
			l.note("@%s in %s: %v; not read", imp, shown, unwrapPath(err))
			continue
		}
		out = append(out, l.file(target, data, shown, "", stack, depth+1)...)
	}
	return out
}

func unwrapPath(err error) error {
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		return pe.Err
	}
	return err
}

func (l *contextLoader) note(format string, args ...any) {
	*l.notes = append(*l.notes, "warning: context files: "+fmt.Sprintf(format, args...))
}

// resolve is an import's absolute path: ~/ from the home directory, an
// absolute path as is, anything else relative to the importing file.
func (l *contextLoader) resolve(from, imp string) string {
	switch {
	case strings.HasPrefix(imp, "~/") && l.home != "":
		return filepath.Join(l.home, filepath.FromSlash(imp[2:]))
	case filepath.IsAbs(imp):
		return filepath.Clean(imp)
	}
	return filepath.Join(filepath.Dir(from), filepath.FromSlash(imp))
}

// Imports returns the @path imports of a context file as Claude Code
// reads them: an @ at the start of a line or after a space, followed by a
// path (one holding a / or a .), outside fenced code blocks and inline
// code spans; trailing punctuation is not part of the path.
func Imports(text string) []string {
	var out []string
	fence := ""
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimLeft(line, " \t")
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = trimmed[:3]
			continue
		}
		for i, part := range strings.Split(line, "`") {
			if i%2 == 1 {
				continue // inside an inline code span
			}
			for _, word := range strings.Fields(part) {
				p, ok := strings.CutPrefix(word, "@")
				if !ok {
					continue
				}
				p = strings.TrimRight(p, ".,;:!?)]}'\"")
				if p == "" || !strings.ContainsAny(p, "/.") || strings.Contains(p, "@") || strings.Trim(p, "./") == "" {
					continue
				}
				out = append(out, p)
			}
		}
	}
	return out
}

// Summary is one line naming the files read, in order ("" for none):
// what /status shows.
func (c Context) Summary() string {
	if len(c.Files) == 0 {
		return ""
	}
	var names []string
	for _, f := range c.Files {
		n := f.Path
		if f.ImportedBy != "" {
			n += " (imported by " + f.ImportedBy + ")"
		}
		if f.Cut {
			n += " (cut)"
		}
		names = append(names, n)
	}
	return "context files: " + strings.Join(names, ", ")
}
