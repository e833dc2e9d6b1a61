package change

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ErrBaseMissing: a worker's repository lacks the commit a delegation
// starts from (the person's HEAD was never pushed there).
var ErrBaseMissing = errors.New("the base commit is not in this repository")

// emptyTree is git's empty tree: the base of a repository with no commit.
const emptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// Base is where a delegation that runs on another host (a River worker)
// starts: the person's HEAD and their uncommitted changes as a binary
// patch on it, so the worker's own checkout of the same repository can
// rebuild the very tree the person sees (issue 28, distributed).
type Base struct {
	// Commit is the person's HEAD ("" on a branch with no commit yet).
	Commit string `json:"commit"`
	// Snapshot is the coordinator's commit of HEAD plus the uncommitted
	// changes (Commit itself when there are none): the parent of the
	// change imported back (Import), and the merge base of its apply.
	Snapshot string `json:"snapshot"`
	// Tree is Snapshot's tree: the worker checks that it rebuilt it.
	Tree string `json:"tree"`
	// Patch is `git diff --binary` of Commit..Snapshot: tracked changes
	// and untracked files not ignored, binary files included.
	Patch []byte `json:"patch,omitempty"`
	// Dir is the workspace's directory inside its repository ("." at the
	// top): a change a worker made in a snapshot (no repository there)
	// is relative to its workspace and lands under Dir.
	Dir string `json:"dir,omitempty"`
}

// Capture records where a remote delegation of workspace starts: HEAD
// plus the uncommitted changes, committed by plumbing through a private
// index (the person's HEAD, index and refs untouched), and the binary
// patch between them. ErrNotRepository when workspace is in no git
// repository.
func Capture(ctx context.Context, workspace string) (*Base, error) {
	repo, err := repoTop(ctx, workspace)
	if err != nil {
		return nil, err
	}
	r := at{dir: repo}
	h, err := head(ctx, r)
	if err != nil {
		return nil, fmt.Errorf("capture the workspace %s: %w", workspace, err)
	}
	snap, err := snapshot(ctx, r, h, "yagent: the workspace when a remote delegation started")
	if err != nil {
		return nil, fmt.Errorf("capture the workspace %s: %w", workspace, err)
	}
	b := &Base{Commit: h, Snapshot: snap, Dir: "."}
	if rel, err := filepath.Rel(repo, mustReal(workspace)); err == nil && !strings.HasPrefix(rel, "..") {
		b.Dir = filepath.ToSlash(rel)
	}
	tree, err := git(ctx, r, nil, "rev-parse", snap+"^{tree}")
	if err != nil {
		return nil, fmt.Errorf("capture the workspace %s: %w", workspace, err)
	}
	b.Tree = line(tree)
	if snap != h {
		from := h
		if from == "" {
			from = emptyTree
		}
		if b.Patch, err = binaryDiff(ctx, r, from, snap); err != nil {
			return nil, fmt.Errorf("capture the workspace %s: %w", workspace, err)
		}
	}
	return b, nil
}

// binaryDiff is the diff from..to that git apply rebuilds byte for byte.
func binaryDiff(ctx context.Context, r at, from, to string) ([]byte, error) {
	return git(ctx, r, nil, "diff", "--binary", "--full-index", "--no-color", "--no-renames", "--no-ext-diff", "--no-textconv", from, to, "--")
}

// IsolateAt makes a delegation's worktree in this host's checkout of the
// person's repository, at b: its Commit with its Patch applied, on the
// branch yagent/<board>/<note> under root — what Isolate makes from the
// person's own working tree. A repository lacking b.Commit is
// ErrBaseMissing, naming it; a workspace in no repository is
// ErrNotRepository (the caller falls back to a snapshot).
func IsolateAt(ctx context.Context, workspace, root, board, note string, b *Base) (*Worktree, error) {
	repo, err := repoTop(ctx, workspace)
	if err != nil {
		return nil, err
	}
	r := at{dir: repo}
	if b.Commit != "" {
		if _, err := git(ctx, r, nil, "cat-file", "-e", b.Commit+"^{commit}"); err != nil {
			return nil, fmt.Errorf("%w: %s lacks commit %s, the coordinator's HEAD: push it from there, or git fetch it here, then run the plan again",
				ErrBaseMissing, repo, b.Commit)
		}
	}
	start := b.Commit
	if len(b.Patch) > 0 {
		parent := b.Commit
		if start, err = commitPatch(ctx, r, parent, b.Patch, "", "yagent: the coordinator's workspace when "+board+"/"+note+" started"); err != nil {
			return nil, fmt.Errorf("isolate %s/%s: rebuild the coordinator's uncommitted changes on %s: %w", board, note, b.Commit, err)
		}
	}
	if b.Tree != "" {
		got := emptyTree
		if start != "" {
			t, err := git(ctx, r, nil, "rev-parse", start+"^{tree}")
			if err != nil {
				return nil, err
			}
			got = line(t)
		}
		if got != b.Tree {
			return nil, fmt.Errorf("isolate %s/%s: the rebuilt workspace (tree %s) differs from the coordinator's (tree %s)", board, note, got, b.Tree)
		}
	}
	if start == "" {
		return nil, fmt.Errorf("isolate %s/%s: the coordinator's repository has no commit and its workspace no file: commit something first", board, note)
	}
	return isolateFrom(ctx, r, workspace, root, board, note, start)
}

// commitPatch applies patch (under dir, "" = as is) onto parent's tree
// ("" = the empty tree) in a private index and commits the result on
// parent, by plumbing: no working tree, index or HEAD is touched. It
// returns parent itself when the patch changes nothing.
func commitPatch(ctx context.Context, r at, parent string, patch []byte, dir, message string) (string, error) {
	tmp, err := os.MkdirTemp("", "yagent-import-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	pf := filepath.Join(tmp, "change.patch")
	if err := os.WriteFile(pf, patch, 0o600); err != nil {
		return "", err
	}
	env := []string{"GIT_INDEX_FILE=" + filepath.Join(tmp, "index")}
	from := parent
	if from == "" {
		from = emptyTree
	}
	if _, err := git(ctx, r, env, "read-tree", from); err != nil {
		return "", err
	}
	args := []string{"apply", "--cached", "--binary", "--whitespace=nowarn"}
	if dir != "" && dir != "." {
		args = append(args, "--directory="+dir)
	}
	if _, err := git(ctx, r, env, append(args, pf)...); err != nil {
		return "", err
	}
	tree, err := git(ctx, r, env, "write-tree")
	if err != nil {
		return "", err
	}
	if line(tree) == from {
		return parent, nil
	}
	if parent != "" {
		ptree, err := git(ctx, r, nil, "rev-parse", parent+"^{tree}")
		if err != nil {
			return "", err
		}
		if line(ptree) == line(tree) {
			return parent, nil
		}
	}
	cargs := []string{"commit-tree", "--no-gpg-sign", line(tree), "-m", message}
	if parent != "" {
		cargs = append(cargs, "-p", parent)
	}
	c, err := git(ctx, r, nil, cargs...)
	if err != nil {
		return "", err
	}
	return line(c), nil
}

// BinaryPatch is the change as a patch git apply rebuilds byte for byte
// (binary files included): what a worker sends back. Call it before the
// branch is discarded.
func (w *Worktree) BinaryPatch(ctx context.Context, c *Change) ([]byte, error) {
	if c.Empty() {
		return nil, nil
	}
	p, err := binaryDiff(ctx, w.repo(), c.Base, c.Head)
	if err != nil {
		return nil, fmt.Errorf("the patch of %s: %w", c.Branch, err)
	}
	return p, nil
}

// Import makes a change made on another host a change of the workspace's
// repository: patch (a BinaryPatch, under dir when it is relative to a
// subdirectory) applied onto base in a private index, committed by
// plumbing, on the new branch — no hooks, no signing, the person's index,
// HEAD and working tree untouched. The Change is described here, as a
// local isolated delegation's is; an empty patch is an empty change and
// no branch.
func Import(ctx context.Context, workspace, branch, base string, patch []byte, dir, message string) (*Change, error) {
	repo, err := repoTop(ctx, workspace)
	if err != nil {
		return nil, err
	}
	r := at{dir: repo}
	if _, err := git(ctx, at{dir: os.TempDir()}, nil, "check-ref-format", "refs/heads/"+branch); err != nil {
		return nil, fmt.Errorf("import %s: no branch name git accepts: %w", branch, err)
	}
	h, err := commitPatch(ctx, r, base, patch, dir, message)
	if err != nil {
		return nil, fmt.Errorf("import the change %s onto %s: %w", branch, base, err)
	}
	if h == base {
		return &Change{Branch: branch, Base: base, Head: base, Files: []string{}}, nil
	}
	if err := newBranch(ctx, r, branch, h); err != nil {
		return nil, fmt.Errorf("import %s: %w", branch, err)
	}
	return describe(ctx, r, branch, base, h)
}
