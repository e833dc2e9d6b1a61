package agents

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync/atomic"
	"unicode"

	"github.com/yagent/yagent/sandbox"
)

// Workspace confines file tools to one directory tree. Reads go through an
// os.Root, so neither "..", absolute paths nor symlinks that point outside
// can reach beyond it; writes walk the tree from the root's descriptor
// without letting the kernel follow a link (beneath.go), so what they
// write is what was checked.
type Workspace struct {
	dir  string // absolute, symlinks resolved
	root *os.Root
	top  *os.File // the root directory, where the walks of writes start

	// openat2 is sysOpenat2; a test replaces it to force the fallback.
	openat2   func(dirfd int, name string, flags int) (int, error)
	noOpenat2 atomic.Bool // openat2 is missing or refused: openat(O_NOFOLLOW)
}

// OpenWorkspace opens dir as the workspace root.
func OpenWorkspace(dir string) (*Workspace, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", dir, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("open workspace %s: %w", abs, err)
	}
	top, err := os.Open(abs)
	if err != nil {
		root.Close()
		return nil, fmt.Errorf("open workspace %s: %w", abs, err)
	}
	return &Workspace{dir: abs, root: root, top: top, openat2: sysOpenat2}, nil
}

// Dir returns the workspace's absolute path.
func (w *Workspace) Dir() string { return w.dir }

// Root returns the confining root.
func (w *Workspace) Root() *os.Root { return w.root }

// Close releases the root.
func (w *Workspace) Close() error {
	w.top.Close()
	return w.root.Close()
}

// errOutside is the message a model gets for a path outside the workspace.
func (w *Workspace) errOutside(p string) error {
	return fmt.Errorf("path %q is outside the workspace %s: use a path relative to the workspace root", p, w.dir)
}

// Rel turns a path the model gave into a clean path relative to the root.
// Absolute paths are accepted only inside the workspace; ".." may not climb
// out. Symlinks are checked by the os.Root at access time.
func (w *Workspace) Rel(p string) (string, error) {
	p = strings.TrimSpace(p)
	if p == "" {
		p = "."
	}
	if filepath.IsAbs(p) {
		rel, err := filepath.Rel(w.dir, filepath.Clean(p))
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return "", w.errOutside(p)
		}
		return rel, nil
	}
	clean := filepath.Clean(p)
	if clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return "", w.errOutside(p)
	}
	return clean, nil
}

// explain turns an os.Root error into a message the model can act on.
func (w *Workspace) explain(p string, err error) error {
	var pe *fs.PathError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, errLeadsOutside), strings.Contains(err.Error(), "escapes from parent") || strings.Contains(err.Error(), "path escapes"):
		return fmt.Errorf("path %q leads outside the workspace %s (through a symlink or ..): refused", p, w.dir)
	case errors.Is(err, errIsSymlink), errors.Is(err, errPathChanged), errors.Is(err, errKeepsChanging), errors.Is(err, errBecameProtected):
		return fmt.Errorf("%s: %w", p, err)
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s does not exist in the workspace", p)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("%s: permission denied", p)
	case errors.As(err, &pe):
		return fmt.Errorf("%s: %v", p, pe.Err)
	}
	return fmt.Errorf("%s: %v", p, err)
}

// Protected paths: file tools never change these without the person's
// explicit approval, whatever the approval policy (a refusal when nobody can
// be asked). Each either runs code the next time the person uses another
// tool, or decides what yagent and other agents may do here. Names are
// compared case-insensitively and with the characters some filesystems
// ignore removed (HFS+ drops zero-width joiners, NTFS trailing dots and
// spaces: ".Git", ".g\u200cit" and ".git." are all .git there), on every
// filesystem: over-protecting a ".GIT" on a case-sensitive one costs a
// question, missing it where it is .git costs the person's machine.
//
// protectedPatterns is the README's "Protected paths" list, in its own
// notation, matched anywhere in the workspace: "NAME/**" is a directory of
// that name and everything beneath it, "a/b" the last names of a path, "*"
// any part of one name. It is the sandbox's list, read from one place:
// sandbox.ProtectedPatterns.
func protectedPatterns() []string {
	return sandbox.ProtectedPatterns
}

// Why each protected path is protected, as the person and the model read it.
const (
	whyGit   = "git's own files: a hook or a config entry (core.fsmonitor, core.hooksPath, an alias) runs code on the person's next git command"
	whyHooks = "git's hooks (core.hooksPath %s): git runs them on the person's next git command"
	whyOther = "listed under \"Protected paths\" in yagent's README"
)

var protectedWhy = map[string]string{
	".git/**":                whyGit,
	".yagent/**":             "yagent's workspace settings and agent definitions",
	".claude/settings*.json": "Claude Code's settings: its permissions and hooks",
	".mcp.json":              "the MCP servers other agents start from this directory",
	".envrc":                 "direnv runs it when the person enters the directory",
}

// foldName is a name as a case-insensitive filesystem that ignores some
// characters would compare it: ignorable characters dropped, each letter
// replaced by the lower case of the smallest rune it folds with (so "ſ"
// and "S" are "s", the Kelvin sign is "k"), trailing dots and spaces cut.
func foldName(name string) string {
	name = strings.Map(func(r rune) rune {
		switch {
		case r >= 0x200b && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x206a && r <= 0x206f, r == 0xfeff:
			return -1
		}
		m := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			m = min(m, f)
		}
		return unicode.ToLower(m)
	}, name)
	return strings.TrimRight(name, ". ")
}

// matchPattern reports whether the names of a path match a pattern of
// protectedPatterns.
func matchPattern(pattern string, parts []string) bool {
	segs := strings.Split(pattern, "/")
	if n := len(segs); n > 1 && segs[n-1] == "**" {
		dir := segs[:n-1]
		for i := 0; i+len(dir) <= len(parts); i++ {
			if matchNames(dir, parts[i:i+len(dir)]) {
				return true
			}
		}
		return false
	}
	return len(segs) <= len(parts) && matchNames(segs, parts[len(parts)-len(segs):])
}

// matchNames matches names against pattern segments, folded.
func matchNames(segs, names []string) bool {
	for i, s := range segs {
		if ok, err := path.Match(foldName(s), foldName(names[i])); err != nil || !ok {
			return false
		}
	}
	return true
}

// hasFoldedPrefix reports whether parts starts with prefix, names folded.
func hasFoldedPrefix(parts, prefix []string) bool {
	if len(prefix) > len(parts) {
		return false
	}
	for i, p := range prefix {
		if foldName(p) != foldName(parts[i]) {
			return false
		}
	}
	return true
}

// protectedReason says why writing the file rel (a clean path relative to
// the root, as given and as resolved) would change a protected path, or
// "". Besides the patterns: the git directory a .git file names and the
// hooks directories of core.hooksPath (sandbox.Protected and
// sandbox.HooksPaths), when they are inside the workspace.
func (w *Workspace) protectedReason(paths ...string) string {
	type dir struct {
		parts []string
		why   string
	}
	var dirs []dir
	add := func(abs []string, why func(string) string) {
		for _, a := range abs {
			if r, err := filepath.Rel(w.dir, a); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
				dirs = append(dirs, dir{splitRel(r), why(r)})
			}
		}
	}
	add(sandbox.Protected(w.dir), func(string) string { return whyGit })
	add(sandbox.HooksPaths(w.dir), func(r string) string { return fmt.Sprintf(whyHooks, filepath.ToSlash(r)) })
	for _, p := range paths {
		parts := splitRel(p)
		if len(parts) == 0 {
			continue
		}
		for _, pat := range protectedPatterns() {
			if matchPattern(pat, parts) {
				if why, ok := protectedWhy[pat]; ok {
					return why
				}
				return whyOther
			}
		}
		for _, d := range dirs {
			if hasFoldedPrefix(parts, d.parts) {
				return d.why
			}
		}
	}
	return ""
}

// checked is a write's path as it was checked (and perhaps approved):
// the write happens only if it still resolves to the same place.
type checked struct {
	rel      string // clean, relative to the root, as the model gave it
	resolved string // the real path it led to
	why      string // why it is protected; "" when it is not
}

// check resolves rel (a clean path relative to the root, not the root)
// and says whether writing it would change a protected path; see
// checkFound.
func (w *Workspace) check(rel string) (checked, error) {
	t, err := w.findFile(rel, nil)
	if err != nil {
		return checked{}, err
	}
	defer t.close()
	return w.checkFound(rel, t), nil
}

// checkFound says whether writing rel, found as t, would change a
// protected path. The path is checked as given and as resolved, so a link
// to .git (or into it) is .git, and a protected name that is a link
// protects where it leads.
func (w *Workspace) checkFound(rel string, t fileTarget) checked {
	c := checked{rel: rel, resolved: t.resolved()}
	c.why = w.protectedReason(rel, c.resolved)
	if c.why != "" && c.resolved != rel {
		c.why += fmt.Sprintf(" (%s leads to %s)", filepath.ToSlash(rel), filepath.ToSlash(c.resolved))
	}
	return c
}

// Protected reports whether writing rel (a clean path relative to the
// root) would change a protected path, and why; see check.
func (w *Workspace) Protected(rel string) (string, bool) {
	c, err := w.check(rel)
	return c.why, err == nil && c.why != ""
}
