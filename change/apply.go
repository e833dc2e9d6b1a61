package change

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
)

// ErrAlreadyApplied: the working tree holds the change already.
var ErrAlreadyApplied = errors.New("the change is in the working tree already")

// ConflictError is a change that does not merge into the working tree as
// it is now; the working tree was left untouched.
type ConflictError struct {
	Branch string
	Files  []string
	// Hunks are the conflicting regions of each file, with git's markers
	// labelled by side, not by commit (<<<<<<< workspace … ======= …
	// >>>>>>> change <note stem>).
	Hunks map[string][]string
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("change %s conflicts with the working tree in %s: the working tree was not changed; resolve it (e.g. delegate the resolution with the hunks) or discard the change",
		e.Branch, strings.Join(e.Files, ", "))
}

// Apply merges c into the working tree of the repository holding
// workspace, three-way against c.Base, without touching the index or
// HEAD: only the files c touches are written (or removed), as unstaged
// changes. It returns the files written. A conflict is a *ConflictError
// and changes nothing.
func Apply(ctx context.Context, workspace string, c *Change) ([]string, error) {
	repo, err := c.repo(ctx, workspace)
	if err != nil {
		return nil, err
	}
	if c.Empty() {
		return nil, nil
	}
	// The working tree as it is now, on top of the change's base: their
	// merge base is then exactly the base the change started from.
	ours, err := snapshot(ctx, repo, c.Base, "yagent: the workspace before applying "+c.Branch)
	if err != nil {
		return nil, fmt.Errorf("apply %s: snapshot the workspace: %w", c.Branch, err)
	}
	out, code, err := gitStatus(ctx, repo, nil, "merge-tree", "--write-tree", "--name-only", "-z", ours, c.Head)
	if code != 0 && code != 1 {
		return nil, fmt.Errorf("apply %s: %w", c.Branch, err)
	}
	// -z: the tree, NUL; conflicted files, each NUL; NUL; messages.
	parts := bytes.Split(out, []byte{0})
	tree := string(parts[0])
	if code == 1 {
		ce := &ConflictError{Branch: c.Branch, Hunks: map[string][]string{}}
		for _, p := range parts[1:] {
			if len(p) == 0 {
				break
			}
			f := string(p)
			ce.Files = append(ce.Files, f)
			if blob, err := git(ctx, repo, nil, "cat-file", "blob", tree+":"+f); err == nil {
				ce.Hunks[f] = hunks(blob, "workspace", "change "+path.Base(c.Branch))
			}
		}
		return nil, ce
	}
	oursTree, err := git(ctx, repo, nil, "rev-parse", ours+"^{tree}")
	if err != nil {
		return nil, err
	}
	if line(oursTree) == tree {
		return nil, fmt.Errorf("apply %s: %w", c.Branch, ErrAlreadyApplied)
	}
	root, err := os.OpenRoot(repo.dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	var written []string
	for _, f := range c.Files {
		if err := writeFromTree(ctx, repo, root, tree, f); err != nil {
			return written, fmt.Errorf("apply %s: write %s: %w (the files before it were written: %s)", c.Branch, f, err, strings.Join(written, ", "))
		}
		written = append(written, f)
	}
	return written, nil
}

// writeFromTree makes repo's file f what it is in tree: written
// atomically with its mode, a symbolic link, or removed. Writes go through
// root: a symbolic link in the working tree cannot send them elsewhere.
func writeFromTree(ctx context.Context, repo at, root *os.Root, tree, f string) error {
	ls, err := git(ctx, repo, nil, "ls-tree", "-z", tree, "--", f)
	if err != nil {
		return err
	}
	if len(ls) == 0 { // not in the result: the change removed it
		if err := root.Remove(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	// "MODE TYPE OID\tPATH"
	meta, _, _ := strings.Cut(string(ls), "\t")
	fields := strings.Fields(meta)
	if len(fields) != 3 {
		return fmt.Errorf("unexpected ls-tree line %q", ls)
	}
	mode, typ, oid := fields[0], fields[1], fields[2]
	if typ != "blob" {
		return nil // a submodule's commit: the person updates it
	}
	data, err := git(ctx, repo, nil, "cat-file", "blob", oid)
	if err != nil {
		return err
	}
	if dir := path.Dir(f); dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	tmp := path.Join(path.Dir(f), fmt.Sprintf(".%s.yagent-apply-%d.tmp", path.Base(f), os.Getpid()))
	root.Remove(tmp)
	if mode == "120000" {
		if err := root.Symlink(string(data), tmp); err != nil {
			return err
		}
	} else {
		perm := os.FileMode(0o644)
		if mode == "100755" {
			perm = 0o755
		}
		if err := root.WriteFile(tmp, data, perm); err != nil {
			root.Remove(tmp)
			return err
		}
		if err := root.Chmod(tmp, perm); err != nil { // umask
			root.Remove(tmp)
			return err
		}
	}
	if err := root.Rename(tmp, f); err != nil {
		root.Remove(tmp)
		return err
	}
	return nil
}

// repo is where c's git runs: the repository holding workspace, or the
// shadow repository of a snapshot's change with workspace as its tree.
func (c *Change) repo(ctx context.Context, workspace string) (at, error) {
	if c.GitDir != "" {
		return at{dir: mustReal(workspace), gitDir: c.GitDir}, nil
	}
	top, err := repoTop(ctx, workspace)
	if err != nil {
		return at{}, err
	}
	return at{dir: top}, nil
}

// hunks are the conflict regions of a merged file, markers included,
// each side labelled ours or theirs instead of its commit hash.
func hunks(blob []byte, ours, theirs string) []string {
	var out []string
	var cur []string
	in := false
	for l := range strings.SplitSeq(string(blob), "\n") {
		switch {
		case strings.HasPrefix(l, "<<<<<<< "):
			in, cur = true, []string{"<<<<<<< " + ours}
		case in && strings.HasPrefix(l, ">>>>>>> "):
			out = append(out, strings.Join(append(cur, ">>>>>>> "+theirs), "\n"))
			in = false
		case in && strings.HasPrefix(l, "||||||| "):
			cur = append(cur, "||||||| base")
		case in:
			cur = append(cur, l)
		}
	}
	return out
}

// Discard drops the change: its worktree (when it is still there) and its
// branch.
func Discard(ctx context.Context, workspace string, c *Change, worktreeDir string) error {
	if c.GitDir != "" { // a snapshot's: its copy and shadow repository
		if err := os.RemoveAll(worktreeDir); err != nil {
			return fmt.Errorf("discard %s: %w", c.Branch, err)
		}
		if err := os.RemoveAll(c.GitDir); err != nil {
			return fmt.Errorf("discard %s: %w", c.Branch, err)
		}
		return nil
	}
	repo, err := c.repo(ctx, workspace)
	if err != nil {
		return err
	}
	if worktreeDir != "" {
		if _, err := os.Stat(worktreeDir); err == nil {
			if _, err := worktreeGit(ctx, repo, nil, "remove", "--force", worktreeDir); err != nil {
				return fmt.Errorf("discard %s: %w", c.Branch, err)
			}
		}
	}
	worktreeGit(ctx, repo, nil, "prune") // a worktree whose directory went
	if _, err := git(ctx, repo, nil, "update-ref", "-d", "refs/heads/"+c.Branch); err != nil {
		return fmt.Errorf("discard %s: %w", c.Branch, err)
	}
	return nil
}
