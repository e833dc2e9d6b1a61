package change

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
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
	// The root may be inside the workspace ($YAGENT_HOME in it): the
	// copy never copies the root, so never itself or other delegations'.
	if err := copyTree(ctx, src, dir, maxBytes, mustReal(root)); err != nil {
		return fail(err)
	}
	if _, err := git(ctx, at{dir: filepath.Dir(dir)}, nil, "init", "--quiet", "--bare", gitDir); err != nil {
		return fail(err)
	}
	// Applying snapshots the workspace with this shadow: a root inside
	// the workspace stays out of it, as it stayed out of the copy.
	if rel, err := filepath.Rel(src, mustReal(root)); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
		if err := os.MkdirAll(filepath.Join(gitDir, "info"), 0o755); err != nil {
			return fail(err)
		}
		if err := os.WriteFile(filepath.Join(gitDir, "info", "exclude"), []byte("/"+filepath.ToSlash(rel)+"/\n"), 0o644); err != nil {
			return fail(err)
		}
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
// kinds are left out; so is the directory skip. More than maxBytes of
// file content is ErrTooLarge.
func copyTree(ctx context.Context, src, dst string, maxBytes int64, skip string) error {
	var total int64
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() && p == skip {
			return filepath.SkipDir
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

// Include copies the given paths of workspace (relative to it: ignored
// inputs the work needs, agents.isolation_include) into the worktree's
// workspace, each at most maxBytes (0 = no bound). A path that is not
// there, or that the worktree holds already (tracked), is skipped; the
// paths copied are returned. A snapshot holds them already.
func (w *Worktree) Include(ctx context.Context, workspace string, paths []string, maxBytes int64) ([]string, error) {
	if w.GitDir != "" {
		return nil, nil
	}
	src := mustReal(workspace)
	var copied []string
	for _, p := range paths {
		rel := filepath.Clean(p)
		if filepath.IsAbs(rel) || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return copied, fmt.Errorf("include %q: want a path inside the workspace, relative to it", p)
		}
		from, to := filepath.Join(src, rel), filepath.Join(w.Workspace, rel)
		fi, err := os.Lstat(from)
		if err != nil {
			continue
		}
		if _, err := os.Lstat(to); err == nil {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return copied, fmt.Errorf("include %s: %w", rel, err)
		}
		if fi.IsDir() {
			err = copyTree(ctx, from, to, maxBytes, mustReal(filepath.Dir(w.Dir)))
		} else if fi.Mode().IsRegular() {
			err = copyFile(from, to, fi.Mode().Perm())
		} else {
			continue
		}
		if err != nil {
			return copied, fmt.Errorf("include %s into the worktree: %w", rel, err)
		}
		copied = append(copied, rel)
	}
	return copied, nil
}
