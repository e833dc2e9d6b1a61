package sandbox

import (
	"io"
	"os"
	"path/filepath"
	"strings"
)

// ProtectedPatterns are the paths nothing an agent runs may change
// unasked — a sandboxed command never, the file tools only with the
// person's answer — in README's notation ("NAME/**": a directory and
// everything beneath it; "*": any part of one name), matched
// case-insensitively: .git (hooks and config run code on the person's
// next git command), .yagent (the workspace's yagent settings and agent
// definitions), Claude Code's settings (permissions and hooks), .mcp.json
// (servers other agents start here) and .envrc (direnv runs it on
// entering the directory). Hooks under core.hooksPath too (HooksPaths).
var ProtectedPatterns = []string{".git/**", ".yagent/**", ".claude/settings*.json", ".mcp.json", ".envrc"}

// ProtectedNames are the workspace paths of ProtectedPatterns that a
// view keeps from being created when the workspace lacks them (the
// settings files Claude Code reads).
var ProtectedNames = []string{".git", ".yagent", ".claude/settings.json", ".claude/settings.local.json", ".mcp.json", ".envrc"}

// Protected returns the paths of a workspace (absolute, symlinks resolved)
// that stay read-only under workspace-write: each existing path named
// like one of ProtectedNames (".claude/settings*.json" for any settings
// file there, compared case-insensitively); and, when .git is a file (a
// linked worktree or a submodule: "gitdir: PATH"), the git directory it
// names and that directory's common directory (the main repository's
// .git, where hooks and config live) — wherever they are, so a writable
// root that holds them is covered too; a protected name that is a
// symbolic link protects its target as well. A .git file that cannot be
// read or names nothing that exists protects only itself.
//
// The names are looked up as the filesystem resolves them, never by
// listing the workspace root (whose size then costs nothing): where it
// folds case (a case-insensitive mount, an ext4 casefold directory) .GIT
// is .git and is found as .git; where it does not, a .GIT is not what git
// or yagent read.
func Protected(workspace string) []string {
	var out []string
	add := func(p string, isLink, gitFile bool) {
		out = append(out, p)
		switch {
		case isLink:
			if real, err := realPath(p); err == nil {
				out = append(out, real)
			}
		case gitFile:
			out = append(out, gitFileDirs(workspace, p)...)
		}
	}
	for _, name := range []string{".git", ".yagent", ".mcp.json", ".envrc"} {
		p := filepath.Join(workspace, name)
		if fi, err := os.Lstat(p); err == nil {
			add(p, fi.Mode()&os.ModeSymlink != 0, name == ".git" && fi.Mode().IsRegular())
		}
	}
	claude := filepath.Join(workspace, ".claude")
	fi, err := os.Lstat(claude)
	switch {
	case err != nil:
	case fi.Mode()&os.ModeSymlink != 0:
		add(claude, true, false) // all of it: where it leads is not known
	case fi.IsDir():
		sub, _ := os.ReadDir(claude)
		for _, s := range sub {
			n := strings.ToLower(s.Name())
			if strings.HasPrefix(n, "settings") && strings.HasSuffix(n, ".json") {
				add(filepath.Join(claude, s.Name()), s.Type()&os.ModeSymlink != 0, false)
			}
		}
	}
	return out
}

// missingProtected returns, for each protected name the workspace lacks,
// the first missing component of its path (".claude" when there is no
// .claude, ".claude/settings.json" when only the file is missing): a view
// puts an empty read-only directory there for the command, so it cannot
// create the path either (a .yagent/config.yaml in a trusted workspace
// would apply on the next run).
func missingProtected(workspace string) []string {
	var out []string
	seen := map[string]bool{}
	for _, name := range ProtectedNames {
		dir := workspace
		for _, part := range strings.Split(name, "/") {
			found, isDir := lookup(dir, part)
			if found == "" {
				if p := filepath.Join(dir, part); !seen[p] {
					seen[p] = true
					out = append(out, p)
				}
				break
			}
			if !isDir {
				break // a file (or a link) where a directory would be: protected as it is
			}
			dir = found
		}
	}
	return out
}

// firstMissing is the first component of p (absolute) that does not exist
// ("" when p exists).
func firstMissing(p string) string {
	if _, err := os.Lstat(p); err == nil {
		return ""
	}
	parent := filepath.Dir(p)
	if parent == p {
		return ""
	}
	if m := firstMissing(parent); m != "" {
		return m
	}
	return p
}

// lookup finds name in dir as the filesystem resolves it: its path and
// whether it is a directory (not a link); "" when dir has no such entry.
func lookup(dir, name string) (string, bool) {
	p := filepath.Join(dir, name)
	fi, err := os.Lstat(p)
	if err != nil {
		return "", false
	}
	return p, fi.IsDir()
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
