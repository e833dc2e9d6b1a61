package agents

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"github.com/yagent/yagent/sandbox"
)

// Workspace confines file tools to one directory tree. Every access goes
// through an os.Root, so neither "..", absolute paths nor symlinks that
// point outside can reach beyond it.
type Workspace struct {
	dir  string // absolute, symlinks resolved
	root *os.Root
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
	return &Workspace{dir: abs, root: root}, nil
}

// Dir returns the workspace's absolute path.
func (w *Workspace) Dir() string { return w.dir }

// Root returns the confining root.
func (w *Workspace) Root() *os.Root { return w.root }

// Close releases the root.
func (w *Workspace) Close() error { return w.root.Close() }

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
	case strings.Contains(err.Error(), "escapes from parent") || strings.Contains(err.Error(), "path escapes"):
		return fmt.Errorf("path %q leads outside the workspace %s (through a symlink or ..): refused", p, w.dir)
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
var protectedRules = []struct {
	match func(parts []string) bool // the path's components, last = the file
	why   string
}{
	{func(parts []string) bool { return slices.ContainsFunc(parts, isName(".git")) },
		"git's own files: a hook or a config entry (core.fsmonitor, core.hooksPath, an alias) runs code on the person's next git command"},
	{func(parts []string) bool { return slices.ContainsFunc(parts, isName(".yagent")) },
		"yagent's workspace settings and agent definitions"},
	{func(parts []string) bool {
		n, base := len(parts), foldName(parts[len(parts)-1])
		return n > 1 && isName(".claude")(parts[n-2]) && strings.HasPrefix(base, "settings") && strings.HasSuffix(base, ".json")
	}, "Claude Code's settings: its permissions and hooks"},
	{func(parts []string) bool { return isName(".mcp.json")(parts[len(parts)-1]) },
		"the MCP servers other agents start from this directory"},
	{func(parts []string) bool { return isName(".envrc")(parts[len(parts)-1]) },
		"direnv runs it when the person enters the directory"},
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

// isName matches a component against a lower-case ASCII name.
func isName(want string) func(string) bool {
	return func(name string) bool { return foldName(name) == want }
}

// Protected reports whether writing rel (a clean path relative to the
// root) would change a protected path, and why. The path is checked as
// given and with the symbolic links of its existing part resolved, so a
// link to .git (or into it) is .git. A git directory that a .git file
// names inside the workspace (a worktree's or submodule's) is protected
// too.
func (w *Workspace) Protected(rel string) (string, bool) {
	paths := []string{rel}
	if real, ok := w.resolve(rel); ok && real != rel {
		paths = append(paths, real)
	}
	for _, p := range paths {
		parts := strings.Split(filepath.ToSlash(p), "/")
		for _, r := range protectedRules {
			if r.match(parts) {
				return r.why, true
			}
		}
		for _, g := range sandbox.Protected(w.dir) {
			if within(g, filepath.Join(w.dir, p)) {
				return protectedRules[0].why, true
			}
		}
	}
	return "", false
}

// resolve returns rel with the symbolic links of its longest existing
// prefix resolved, relative to the root; false when that leads outside
// (the root refuses such a write anyway).
func (w *Workspace) resolve(rel string) (string, bool) {
	var rest []string
	for p := filepath.Join(w.dir, rel); ; p = filepath.Dir(p) {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			r, err := filepath.Rel(w.dir, filepath.Join(append([]string{real}, rest...)...))
			if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
				return "", false
			}
			return r, true
		}
		if filepath.Dir(p) == p {
			return "", false
		}
		rest = append([]string{filepath.Base(p)}, rest...)
	}
}
