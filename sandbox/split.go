package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// The Landlock mechanism's grants: a Landlock rule on a directory grants
// its rights to the whole hierarchy beneath it and cannot be taken back
// from a subdirectory, so a writable root holding a protected path is
// granted entry by entry around it (see the package doc).

// maxRules bounds the paths a split may produce (each is an argument of the
// helper and a rule in the kernel).
const maxRules = 4096

// rules is what the Landlock mechanism grants beyond reading everywhere.
type rules struct {
	Dirs  []string // writable with everything beneath
	Files []string // writable in place
	// Split are the directories granted entry by entry (explanations only).
	Split []string
	// Protected are the paths kept read-only (explanations only).
	Protected []string
}

// grantRules splits each writable root around the protected paths
// beneath it; only under workspace-write are there any.
func grantRules(roots, protect []string) (*rules, error) {
	r := &rules{Protected: protect}
	for _, root := range roots {
		if err := r.grant(root, protect); err != nil {
			return nil, err
		}
	}
	r.Dirs, r.Files, r.Split = unique(r.Dirs), unique(r.Files), unique(r.Split)
	if n := len(r.Dirs) + len(r.Files); n > maxRules {
		return nil, fmt.Errorf("the sandbox would need %d rules to keep %s read-only (Landlock alone, without user namespaces, grants a root holding them entry by entry): narrow agents.sandbox_writable, make user namespaces available, or run with --sandbox off", n, strings.Join(protect, ", "))
	}
	return r, nil
}

// unique drops repeats (a root inside another), keeping the first.
func unique(s []string) []string {
	seen := make(map[string]bool, len(s))
	out := s[:0]
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// grant makes tree t writable except the protected paths beneath it.
func (r *rules) grant(t string, protect []string) error {
	var below []string
	for _, p := range protect {
		if p == t {
			return nil
		}
		if within(t, p) {
			below = append(below, p)
		}
	}
	fi, err := os.Lstat(t)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // gone since it was listed
	}
	if err != nil {
		return fmt.Errorf("sandbox rules: %w", err)
	}
	if len(below) == 0 {
		if fi.IsDir() {
			r.Dirs = append(r.Dirs, t)
		} else {
			r.Files = append(r.Files, t)
		}
		return nil
	}
	entries, err := os.ReadDir(t)
	if err != nil {
		return fmt.Errorf("sandbox rules: %w", err)
	}
	r.Split = append(r.Split, t)
	for _, e := range entries {
		if e.Type()&fs.ModeSymlink != 0 {
			continue
		}
		if err := r.grant(filepath.Join(t, e.Name()), below); err != nil {
			return err
		}
		if len(r.Dirs)+len(r.Files) > maxRules {
			return nil // grantRules reports it
		}
	}
	return nil
}
