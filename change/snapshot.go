package change

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrTooLarge: a workspace that is no git repository holds more than the
// snapshot may copy (agents.isolation_max_bytes).
var ErrTooLarge = errors.New("the workspace is larger than a snapshot may copy")

// Snapshot isolates a delegation in a workspace that is no git
// repository: a copy of the workspace (reflinked where the file system
// can, copied otherwise; at most maxBytes of file content, 0 = no bound)
// under root/<board>/<note>, and a shadow repository beside it
// (<note>.git) that records the copy's start as the base. The rest of the
// flow — Commit, Apply, Discard — is the same as a git worktree's; the
// person's workspace is only read.
func Snapshot(ctx context.Context, workspace, root, board, note string, maxBytes int64) (*Worktree, error) {
	branch, err := checkBranch(ctx, board, note)
	if err != nil {
		return nil, err
	}
	src := mustReal(workspace)
	dir := filepath.Join(root, board, note)
	gitDir := dir + ".git"
	for _, p := range []string{dir, gitDir} {
		if _, err := os.Lstat(p); err == nil {
			return nil, fmt.Errorf("snapshot %s/%s: %s exists already (discard the change, or remove it)", board, note, p)
		}
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return nil, fmt.Errorf("snapshot %s/%s: %w", board, note, err)
	}
	fail := func(err error) (*Worktree, error) {
		os.RemoveAll(dir)
		os.RemoveAll(gitDir)
		return nil, fmt.Errorf("snapshot %s/%s of %s: %w", board, note, src, err)
	}
	if err := copyTree(ctx, src, dir, maxBytes); err != nil {
		return fail(err)
	}
	if _, err := git(ctx, at{dir: filepath.Dir(dir)}, nil, "init", "--quiet", "--bare", gitDir); err != nil {
		return fail(err)
	}
	w := &Worktree{Repo: src, Dir: dir, Branch: branch, Workspace: dir, GitDir: gitDir}
	if w.Base, err = snapshot(ctx, w.tree(), "", "yagent: the workspace when "+board+"/"+note+" started"); err != nil {
		return fail(err)
	}
	if err := newBranch(ctx, w.tree(), branch, w.Base); err != nil {
		return fail(err)
	}
	return w, nil
}

// copyTree copies the tree at src to dst (which must not exist): files
// (reflinked where it can), directories, symbolic links as links; other
// kinds are left out. More than maxBytes of file content is ErrTooLarge.
func copyTree(ctx context.Context, src, dst string, maxBytes int64) error {
	var total int64
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.Mkdir(to, info.Mode().Perm()|0o700)
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(target, to)
		case d.Type().IsRegular():
			total += info.Size()
			if maxBytes > 0 && total > maxBytes {
				return fmt.Errorf("%w: more than %d bytes (agents.isolation_max_bytes): raise it, make the workspace a git repository, or delegate with isolation: none", ErrTooLarge, maxBytes)
			}
			return copyFile(p, to, info.Mode().Perm())
		}
		return nil // sockets, fifos, devices: not the work
	})
}

// copyFile clones src to dst where the file system shares extents
// (FICLONE: btrfs, XFS, bcachefs …), else copies the bytes.
func copyFile(src, dst string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if !reflink(out, in) {
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
	}
	return out.Close()
}
