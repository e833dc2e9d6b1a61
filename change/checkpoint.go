package change

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Checkpoints are snapshots of a workspace's files taken before each turn
// and each delegation, kept in a shadow repository under the caller's
// directory ($YAGENT_HOME/checkpoints), never in the person's repository:
// no commit, stash, index or ref of theirs changes. Files a .gitignore
// ignores are not taken.
type Checkpoints struct {
	Workspace string
	gitDir    string
}

// OpenCheckpoints opens (creating on first use) the checkpoints of
// workspace under dir. dir and the paths in skip ($YAGENT_HOME: state,
// rollouts) are never taken when they lie inside the workspace: a rewind
// must not take yagent's own files back.
func OpenCheckpoints(ctx context.Context, dir, workspace string, skip ...string) (*Checkpoints, error) {
	ws := mustReal(workspace)
	sum := sha256.Sum256([]byte(ws))
	gitDir := filepath.Join(dir, filepath.Base(ws)+"-"+hex.EncodeToString(sum[:6])+".git")
	if _, err := os.Stat(filepath.Join(gitDir, "HEAD")); err != nil {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("checkpoints of %s: %w", ws, err)
		}
		if _, err := git(ctx, at{dir: dir}, nil, "init", "--quiet", "--bare", gitDir); err != nil {
			return nil, fmt.Errorf("checkpoints of %s: %w", ws, err)
		}
	}
	var exclude strings.Builder
	for _, p := range append([]string{dir}, skip...) {
		if rel, err := filepath.Rel(ws, mustReal(p)); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
			exclude.WriteString("/" + filepath.ToSlash(rel) + "/\n")
		}
	}
	if err := os.MkdirAll(filepath.Join(gitDir, "info"), 0o755); err != nil {
		return nil, fmt.Errorf("checkpoints of %s: %w", ws, err)
	}
	if err := os.WriteFile(filepath.Join(gitDir, "info", "exclude"), []byte(exclude.String()), 0o644); err != nil {
		return nil, fmt.Errorf("checkpoints of %s: %w", ws, err)
	}
	return &Checkpoints{Workspace: ws, gitDir: gitDir}, nil
}

func (c *Checkpoints) at() at { return at{dir: c.Workspace, gitDir: c.gitDir} }

// ref is the ref of checkpoint name; names git refuses are errors.
func (c *Checkpoints) ref(name string) (string, error) {
	ref := "refs/checkpoints/" + name
	if _, err := git(context.Background(), at{dir: os.TempDir()}, nil, "check-ref-format", ref); err != nil {
		return "", fmt.Errorf("checkpoint %q: not a name git accepts as a ref", name)
	}
	return ref, nil
}

// Take records the workspace's files as they are now under name (e.g.
// <session>/turn-3, <session>/<note>); taking a name again replaces it.
func (c *Checkpoints) Take(ctx context.Context, name string) error {
	ref, err := c.ref(name)
	if err != nil {
		return err
	}
	// The shadow's own index keeps the files' stat data: only files that
	// changed since the last checkpoint are read again.
	tree, err := git(ctx, c.at(), nil, "add", "-A", "--", ".")
	if err == nil {
		tree, err = git(ctx, c.at(), nil, "write-tree")
	}
	if err != nil {
		return fmt.Errorf("checkpoint %s of %s: %w", name, c.Workspace, err)
	}
	commit, err := git(ctx, c.at(), nil, "commit-tree", "--no-gpg-sign", line(tree), "-m", "yagent checkpoint "+name)
	if err == nil {
		_, err = git(ctx, c.at(), nil, "update-ref", ref, line(commit))
	}
	if err != nil {
		return fmt.Errorf("checkpoint %s of %s: %w", name, c.Workspace, err)
	}
	return nil
}

// Restored is what a rewind did.
type Restored struct {
	Written []string // files made as they were at the checkpoint
	Removed []string // files made since, removed
	// Kept are files the person changed after the last checkpoint (their
	// content is not what the agents left): not overwritten without force.
	Kept []string
}

// Rewind makes the workspace's files what they were at checkpoint to,
// byte for byte. latest names the last checkpoint taken (what the agents
// left): a file whose content now differs from it was changed by the
// person since, and is kept (named in Kept) unless force.
func (c *Checkpoints) Rewind(ctx context.Context, to, latest string, force bool) (*Restored, error) {
	return c.RewindPaths(ctx, to, latest, force, nil)
}

// RewindPaths is Rewind limited to the files only names (nil: all):
// rewinding one applied change restores the files it touched and leaves
// the others as they are.
func (c *Checkpoints) RewindPaths(ctx context.Context, to, latest string, force bool, only []string) (*Restored, error) {
	toRef, err := c.ref(to)
	if err != nil {
		return nil, err
	}
	latestRef, err := c.ref(latest)
	if err != nil {
		return nil, err
	}
	for _, r := range []string{toRef, latestRef} {
		if _, err := git(ctx, c.at(), nil, "rev-parse", "--verify", "-q", r+"^{commit}"); err != nil {
			return nil, fmt.Errorf("rewind %s: no checkpoint %s (checkpoints are taken before each turn and each applied change)", c.Workspace, strings.TrimPrefix(r, "refs/checkpoints/"))
		}
	}
	// The workspace now, in a private index (the shadow's stays as the
	// last checkpoint left it), kept in the shadow: a temporary directory
	// inside the workspace would be taken too.
	tmp, err := os.MkdirTemp(c.gitDir, "rewind-index-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	idx := []string{"GIT_INDEX_FILE=" + filepath.Join(tmp, "index")}
	if err := copyIndex(filepath.Join(c.gitDir, "index"), filepath.Join(tmp, "index")); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	now, err := git(ctx, c.at(), idx, "add", "-A", "--", ".")
	if err == nil {
		now, err = git(ctx, c.at(), idx, "write-tree")
	}
	if err != nil {
		return nil, fmt.Errorf("rewind %s: %w", c.Workspace, err)
	}
	differ, err := changedPaths(ctx, c.at(), toRef, line(now))
	if err != nil {
		return nil, err
	}
	since, err := changedPaths(ctx, c.at(), latestRef, line(now))
	if err != nil {
		return nil, err
	}
	touched := map[string]bool{}
	for _, f := range since {
		touched[f] = true
	}
	root, err := os.OpenRoot(c.Workspace)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	out := &Restored{}
	for _, f := range differ {
		if only != nil && !slices.Contains(only, f) {
			continue
		}
		if touched[f] && !force {
			out.Kept = append(out.Kept, f)
			continue
		}
		inTarget, err := git(ctx, c.at(), nil, "ls-tree", "-z", toRef, "--", f)
		if err != nil {
			return out, err
		}
		if err := writeFromTree(ctx, c.at(), root, toRef, f); err != nil {
			return out, fmt.Errorf("rewind %s: restore %s: %w", c.Workspace, f, err)
		}
		if len(inTarget) == 0 {
			out.Removed = append(out.Removed, f)
		} else {
			out.Written = append(out.Written, f)
		}
	}
	return out, nil
}

// changedPaths lists the paths that differ between two trees.
func changedPaths(ctx context.Context, a at, from, to string) ([]string, error) {
	out, err := git(ctx, a, nil, "diff", "--name-only", "-z", "--no-renames", from, to, "--")
	if err != nil {
		return nil, err
	}
	var paths []string
	for p := range strings.SplitSeq(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		if p != "" {
			paths = append(paths, p)
		}
	}
	return paths, nil
}
