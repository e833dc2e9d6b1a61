package agents

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
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
