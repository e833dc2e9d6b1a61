package change

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Worktree is one delegation's isolated checkout.
type Worktree struct {
	Repo   string // top of the person's working tree (the workspace, for a snapshot)
	Dir    string // top of the worktree
	Branch string // yagent/<board>/<note>
	Base   string // the commit it started from: HEAD plus uncommitted changes
	// Workspace is the worktree's directory that stands for the person's
	// workspace (the same subdirectory, when the workspace is one).
	Workspace string
	// GitDir is the shadow repository under the root of a workspace that
	// is no git repository ("" for a git worktree).
	GitDir string
	// Warnings say what the worktree lacks that the workspace has:
	// submodules and nested repositories (empty directories there), files
	// Git LFS tracks (their pointers, never fetched).
	Warnings []string
}

func (w *Worktree) repo() at { return at{dir: w.Repo, gitDir: w.GitDir} }
func (w *Worktree) tree() at { return at{dir: w.Dir, gitDir: w.GitDir} }

// Change is what a delegation did, recorded on its branch.
type Change struct {
	Branch     string   `json:"branch" yaml:"branch"`
	Base       string   `json:"base" yaml:"base"`
	Head       string   `json:"head" yaml:"head"`
	Files      []string `json:"files" yaml:"files"`
	Insertions int      `json:"insertions" yaml:"insertions"`
	Deletions  int      `json:"deletions" yaml:"deletions"`
	// GitDir is the shadow repository of a workspace that is no git
	// repository (a snapshot's change), "" for a git worktree's.
	GitDir string `json:"git_dir,omitempty" yaml:"git_dir,omitempty"`
	// Patch is the unified diff of Base..Head; binary files are named,
	// not inlined.
	Patch []byte `json:"-" yaml:"-"`
}

// Empty reports a change that changes nothing.
func (c *Change) Empty() bool { return c.Head == c.Base }

// BranchName is the branch of a delegation's worktree.
func BranchName(board, note string) string { return "yagent/" + board + "/" + note }

// Isolate makes the worktree of the delegation note of board: a checkout,
// under root/<board>/<note>, of the workspace's HEAD plus its uncommitted
// changes, on a new branch yagent/<board>/<note>. ErrNotRepository when
// the workspace is in no git repository.
func Isolate(ctx context.Context, workspace, root, board, note string) (*Worktree, error) {
	repo, err := repoTop(ctx, workspace)
	if err != nil {
		return nil, err
	}
	if _, err := checkBranch(ctx, board, note); err != nil {
		return nil, err
	}
	r := at{dir: repo}
	h, err := head(ctx, r)
	if err != nil {
		return nil, fmt.Errorf("isolate %s/%s: %w", board, note, err)
	}
	base, err := snapshot(ctx, r, h, "yagent: the workspace when "+board+"/"+note+" started")
	if err != nil {
		return nil, fmt.Errorf("isolate %s/%s: snapshot the workspace: %w", board, note, err)
	}
	return isolateFrom(ctx, r, workspace, root, board, note, base)
}

// isolateFrom makes the worktree of board/note at the commit base of the
// repository r, which holds workspace, on its new branch under root.
func isolateFrom(ctx context.Context, r at, workspace, root, board, note, base string) (*Worktree, error) {
	rel, err := filepath.Rel(r.dir, mustReal(workspace))
	if err != nil || strings.HasPrefix(rel, "..") {
		rel = "."
	}
	branch, err := checkBranch(ctx, board, note)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(root, board, note)
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return nil, fmt.Errorf("isolate %s/%s: %w", board, note, err)
	}
	// A new branch only: the empty old value makes update-ref refuse one
	// that exists (another delegation's, or a leftover: yagent changes ls --stale).
	if err := newBranch(ctx, r, branch, base); err != nil {
		return nil, fmt.Errorf("isolate %s/%s: %w", board, note, err)
	}
	// GIT_LFS_SKIP_SMUDGE: LFS files stay pointers (never a download).
	if _, err := worktreeGit(ctx, r, []string{"GIT_LFS_SKIP_SMUDGE=1"}, "add", "--quiet", dir, branch); err != nil {
		git(ctx, r, nil, "update-ref", "-d", "refs/heads/"+branch, base)
		return nil, fmt.Errorf("isolate %s/%s: %w", board, note, err)
	}
	w := &Worktree{Repo: r.dir, Dir: dir, Branch: branch, Base: base, Workspace: filepath.Join(dir, rel)}
	w.Warnings = lacks(ctx, r, base)
	return w, nil
}

// lacks says what a worktree of base does not hold that the working tree
// does: the contents of submodules and nested repositories (gitlinks),
// and files Git LFS tracks (pointers only).
func lacks(ctx context.Context, r at, base string) []string {
	var out []string
	ls, err := git(ctx, r, nil, "ls-tree", "-r", "-z", base)
	if err != nil {
		return nil
	}
	var links []string
	for rec := range bytes.SplitSeq(bytes.TrimSuffix(ls, []byte{0}), []byte{0}) {
		meta, path, ok := strings.Cut(string(rec), "\t")
		if ok && strings.HasPrefix(meta, "160000 ") {
			links = append(links, path)
		}
	}
	if len(links) > 0 {
		out = append(out, fmt.Sprintf("submodules and nested repositories are empty directories in the worktree (%s): delegate with isolation: none to work in them", strings.Join(links, ", ")))
	}
	attrs, err := git(ctx, r, nil, "grep", "-l", "filter=lfs", base, "--", ".gitattributes", "**/.gitattributes")
	if err == nil && len(bytes.TrimSpace(attrs)) > 0 {
		out = append(out, "files Git LFS tracks are their pointers in the worktree (never downloaded)")
	}
	return out
}

// checkBranch is the branch of board's note, when git accepts its name.
func checkBranch(ctx context.Context, board, note string) (string, error) {
	branch := BranchName(board, note)
	if _, err := git(ctx, at{dir: os.TempDir()}, nil, "check-ref-format", "refs/heads/"+branch); err != nil {
		return "", fmt.Errorf("isolate %s/%s: %q is no branch name git accepts: %w", board, note, branch, err)
	}
	return branch, nil
}

// newBranch makes branch at commit; one that exists is refused (another
// delegation's, or a leftover: yagent changes ls --stale).
func newBranch(ctx context.Context, r at, branch, commit string) error {
	if _, err := git(ctx, r, nil, "update-ref", "-m", "yagent: isolate", "refs/heads/"+branch, commit, ""); err != nil {
		return fmt.Errorf("branch %s exists already (discard it, or remove it with git branch -D): %w", branch, err)
	}
	return nil
}

func mustReal(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		if abs, err := filepath.Abs(r); err == nil {
			return abs
		}
	}
	return p
}

// Commit records what the worktree holds now as one commit on its branch
// and returns the change against Base. The worktree's directory gone is
// an error that names it.
func (w *Worktree) Commit(ctx context.Context, message string) (*Change, error) {
	if _, err := os.Stat(w.Dir); err != nil {
		return nil, fmt.Errorf("the worktree %s of %s is gone: %w", w.Dir, w.Branch, err)
	}
	h, err := snapshot(ctx, w.tree(), w.Base, message)
	if err != nil {
		return nil, fmt.Errorf("commit %s: %w", w.Branch, err)
	}
	if h != w.Base {
		if _, err := git(ctx, w.repo(), nil, "update-ref", "-m", "yagent: "+message, "refs/heads/"+w.Branch, h, w.Base); err != nil {
			return nil, fmt.Errorf("commit %s: %w", w.Branch, err)
		}
	}
	c, err := describe(ctx, w.repo(), w.Branch, w.Base, h)
	if err != nil {
		return nil, err
	}
	c.GitDir = w.GitDir
	return c, nil
}

// Remove removes the worktree's directory; the branch, and so the change,
// stays.
func (w *Worktree) Remove(ctx context.Context) error {
	if w.GitDir != "" {
		return os.RemoveAll(w.Dir)
	}
	if _, err := worktreeGit(ctx, w.repo(), nil, "remove", "--force", w.Dir); err != nil {
		if _, statErr := os.Stat(w.Dir); errors.Is(statErr, os.ErrNotExist) {
			_, err = worktreeGit(ctx, w.repo(), nil, "prune")
			return err
		}
		return err
	}
	return nil
}

// describe is the change base..head of branch: files, line counts, patch.
func describe(ctx context.Context, repo at, branch, base, head string) (*Change, error) {
	c := &Change{Branch: branch, Base: base, Head: head, Files: []string{}}
	if head == base {
		return c, nil
	}
	num, err := git(ctx, repo, nil, "diff", "--numstat", "-z", "--no-renames", "--no-ext-diff", "--no-textconv", base, head, "--")
	if err != nil {
		return nil, err
	}
	for rec := range bytes.SplitSeq(bytes.TrimSuffix(num, []byte{0}), []byte{0}) {
		// "ADDED\tDELETED\tPATH"; "-\t-\tPATH" for a binary file.
		f := strings.SplitN(string(rec), "\t", 3)
		if len(f) != 3 {
			continue
		}
		c.Files = append(c.Files, f[2])
		a, _ := strconv.Atoi(f[0])
		d, _ := strconv.Atoi(f[1])
		c.Insertions += a
		c.Deletions += d
	}
	if c.Patch, err = git(ctx, repo, nil, "diff", "--no-color", "--no-renames", "--no-ext-diff", "--no-textconv", base, head, "--"); err != nil {
		return nil, err
	}
	return c, nil
}
