package sandbox

import (
	"io"
	"os"
	"path/filepath"
	"strings"
)

// ProtectedNames are the workspace entries a confined command may not
// change, whoever grants their parent: .git (hooks and config run code on
// the person's next git command) and .yagent (the workspace's yagent
// settings and agent definitions).
var ProtectedNames = []string{".git", ".yagent"}

// Protected returns the paths of a workspace (absolute, symlinks resolved)
// that stay read-only under workspace-write: each entry of the workspace
// named like one of ProtectedNames, compared case-insensitively so that a
// case-insensitive filesystem cannot reopen .git as .GIT; and, when .git is
// a file (a linked worktree or a submodule: "gitdir: PATH"), the git
// directory it names and that directory's common directory (the main
// repository's .git, where hooks and config live) — wherever they are, so a
// writable root that holds them (the temp dir, agents.sandbox_writable) is
// split around them too; a protected name that is a symbolic link protects
// its target as well. A .git file that cannot be read or names nothing
// that exists protects only itself.
func Protected(workspace string) []string {
	entries, err := os.ReadDir(workspace)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		for _, name := range ProtectedNames {
			if !strings.EqualFold(e.Name(), name) {
				continue
			}
			p := filepath.Join(workspace, e.Name())
			out = append(out, p)
			switch {
			case e.Type()&os.ModeSymlink != 0:
				// The link itself is never granted (split entries skip
				// links); what it points to is protected where it is.
				if real, err := realPath(p); err == nil {
					out = append(out, real)
				}
			case name == ".git" && e.Type().IsRegular():
				out = append(out, gitFileDirs(workspace, p)...)
			}
		}
	}
	return out
}

// gitFileDirs reads a .git file and returns the real paths of the git
// directory it names and of that directory's commondir, those that exist.
func gitFileDirs(workspace, gitFile string) []string {
	line, ok := firstLine(gitFile)
	rest, found := strings.CutPrefix(line, "gitdir:")
	if !ok || !found {
		return nil
	}
	dir := strings.TrimSpace(rest)
	if dir == "" {
		return nil
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(workspace, dir)
	}
	gitDir, err := realPath(dir)
	if err != nil {
		return nil
	}
	out := []string{gitDir}
	if common, ok := firstLine(filepath.Join(gitDir, "commondir")); ok && common != "" {
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitDir, common)
		}
		if real, err := realPath(common); err == nil && real != gitDir {
			out = append(out, real)
		}
	}
	return out
}

// firstLine returns the first line of a small file, trimmed.
func firstLine(path string) (string, bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, 4096))
	if err != nil {
		return "", false
	}
	line, _, _ := strings.Cut(string(data), "\n")
	return strings.TrimSpace(line), true
}
