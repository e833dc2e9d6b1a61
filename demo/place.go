package demo

import (
	"fmt"
	"os"
	"path/filepath"
)

// Place is where `yagent demo` runs: a throwaway directory holding a home
// of its own (never $YAGENT_HOME: the person's configuration and sessions
// are neither read nor touched) and, unless the person named a directory,
// the sample workspace.
type Place struct {
	// Root is the throwaway directory; Remove deletes it.
	Root string
	// Home is yagent's home for the demo, under Root.
	Home string
	// Workspace is the directory the demo works in.
	Workspace string
}

// NewPlace makes a throwaway directory with the sample workspace in it, or
// with dir as the workspace when dir is not "".
func NewPlace(dir string) (*Place, error) {
	root, err := os.MkdirTemp("", "yagent-demo-")
	if err != nil {
		return nil, fmt.Errorf("demo: make a throwaway directory: %w", err)
	}
	p := &Place{Root: root, Home: filepath.Join(root, "home"), Workspace: dir}
	if dir == "" {
		p.Workspace = filepath.Join(root, "workspace")
		if err := WriteWorkspace(p.Workspace); err != nil {
			os.RemoveAll(root)
			return nil, fmt.Errorf("demo: write the sample workspace: %w", err)
		}
	}
	return p, nil
}

// Getenv is getenv with YAGENT_HOME the demo's home and YAGENT_NOTES_ROOT
// unset (the boards go under that home).
func (p *Place) Getenv(getenv func(string) string) func(string) string {
	return func(k string) string {
		switch k {
		case "YAGENT_HOME":
			return p.Home
		case "YAGENT_NOTES_ROOT":
			return ""
		}
		return getenv(k)
	}
}

// Remove deletes the throwaway directory, the home and the sample
// workspace with it.
func (p *Place) Remove() error { return os.RemoveAll(p.Root) }
