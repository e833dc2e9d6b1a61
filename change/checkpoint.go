package change

import (
	"cmp"
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
	// MaxBytes bounds what one take reads of files the shadow does not
	// hold yet (a workspace's first checkpoint reads every file): past
	// it the largest new files are skipped, for good (listed in the
	// shadow's info/skipped, excluded from every later take), and a
	// rewind names them in Restored.Unrestorable. 0 = no bound.
	MaxBytes int64
	// Skipped are the files the last Take skipped (said once by the
	// caller; they stay skipped).
	Skipped []string

	gitDir  string
	exclude string // the directories never taken, as info/exclude lines
}

// CheckpointsExist says whether workspace has checkpoints under dir,
// without making any.
func CheckpointsExist(dir, workspace string) bool {
	_, err := os.Stat(filepath.Join(shadowOf(dir, workspace), "HEAD"))
	return err == nil
}

// Remove deletes the shadow repository whole: every session's
// checkpoints and the index that holds the files last taken.
func (c *Checkpoints) Remove() error {
	if err := os.RemoveAll(c.gitDir); err != nil {
		return fmt.Errorf("remove the checkpoints of %s: %w", c.Workspace, err)
	}
	return nil
}

// shadowOf is the shadow repository of workspace under dir.
func shadowOf(dir, workspace string) string {
	ws := mustReal(workspace)
	sum := sha256.Sum256([]byte(ws))
	return filepath.Join(dir, filepath.Base(ws)+"-"+hex.EncodeToString(sum[:6])+".git")
}

// OpenCheckpoints opens (creating on first use) the checkpoints of
// workspace under dir. dir and the paths in skip ($YAGENT_HOME: state,
// rollouts) are never taken when they lie inside the workspace: a rewind
// must not take yagent's own files back.
func OpenCheckpoints(ctx context.Context, dir, workspace string, skip ...string) (*Checkpoints, error) {
	ws := mustReal(workspace)
	gitDir := shadowOf(dir, ws)
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
	c := &Checkpoints{Workspace: ws, gitDir: gitDir}
	c.exclude = exclude.String()
	if err := c.writeExclude(); err != nil {
		return nil, err
	}
	return c, nil
}

// writeExclude writes the shadow's info/exclude: the directories never
// taken, then the files skipped for their size.
func (c *Checkpoints) writeExclude() error {
	var b strings.Builder
	b.WriteString(c.exclude)
	for _, f := range c.skipped() {
		b.WriteString("/" + escapeGlob(f) + "\n")
	}
	if err := os.WriteFile(filepath.Join(c.gitDir, "info", "exclude"), []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("checkpoints of %s: %w", c.Workspace, err)
	}
	return nil
}

// escapeGlob makes a path a pattern that matches only itself.
func escapeGlob(p string) string {
	var b strings.Builder
	for _, r := range p {
		if strings.ContainsRune(`\*?[!# `, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// skipped are the files skipped for their size so far (info/skipped,
// one path a line; a damaged line is just a name that matches nothing).
func (c *Checkpoints) skipped() []string {
	data, err := os.ReadFile(filepath.Join(c.gitDir, "info", "skipped"))
	if err != nil {
		return nil
	}
	var out []string
	for l := range strings.SplitSeq(string(data), "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

// bound skips, for good, the largest files the shadow does not hold yet
// while what a take would read of them passes MaxBytes, and returns them.
func (c *Checkpoints) bound(ctx context.Context) ([]string, error) {
	if c.MaxBytes <= 0 {
		return nil, nil
	}
	out, err := git(ctx, c.at(), nil, "ls-files", "-z", "--others", "--exclude-standard")
	if err != nil {
		return nil, err
	}
	type file struct {
		name string
		size int64
	}
	var files []file
	var total int64
	for f := range strings.SplitSeq(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		if strings.Contains(f, "\n") {
			continue // info/skipped is one name a line: taken whatever its size
		}
		if fi, err := os.Lstat(filepath.Join(c.Workspace, filepath.FromSlash(f))); f != "" && err == nil {
			files = append(files, file{f, fi.Size()})
			total += fi.Size()
		}
	}
	if total <= c.MaxBytes {
		return nil, nil
	}
	slices.SortFunc(files, func(a, b file) int { return cmp.Or(cmp.Compare(b.size, a.size), strings.Compare(a.name, b.name)) })
	var skip []string
	for _, f := range files {
		if total <= c.MaxBytes {
			break
		}
		skip = append(skip, f.name)
		total -= f.size
	}
	slices.Sort(skip)
	all := append(c.skipped(), skip...)
	if err := os.WriteFile(filepath.Join(c.gitDir, "info", "skipped"), []byte(strings.Join(all, "\n")+"\n"), 0o644); err != nil {
		return nil, fmt.Errorf("checkpoints of %s: %w", c.Workspace, err)
	}
	return skip, c.writeExclude()
}

// addEnv keeps git's allocator from handing memory back to the system
// after every file (thousands of brk calls): this repository's first take
// (1 455 files) went from 3.8–4.9 s to 0.46–1.0 s under load
// (BenchmarkCheckpoint; glibc's tunables, other C libraries ignore them).
var addEnv = []string{"GLIBC_TUNABLES=glibc.malloc.trim_threshold=67108864:glibc.malloc.top_pad=16777216"}

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
	c.Skipped, err = c.bound(ctx)
	if err != nil {
		return fmt.Errorf("checkpoint %s of %s: %w", name, c.Workspace, err)
	}
	// The shadow's own index keeps the files' stat data: only files that
	// changed since the last checkpoint are read again.
	tree, err := git(ctx, c.at(), addEnv, "add", "-A", "--", ".")
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

// Rename gives checkpoint from the name to (replacing one there), e.g.
// once the note of a delegation it was taken before has its ref; to ""
// drops it.
func (c *Checkpoints) Rename(ctx context.Context, from, to string) error {
	fromRef, err := c.ref(from)
	if err != nil {
		return err
	}
	commit, err := git(ctx, c.at(), nil, "rev-parse", "--verify", "-q", fromRef+"^{commit}")
	if err == nil && to != "" {
		var toRef string
		if toRef, err = c.ref(to); err == nil {
			_, err = git(ctx, c.at(), nil, "update-ref", toRef, line(commit))
		}
	}
	if err == nil {
		_, err = git(ctx, c.at(), nil, "update-ref", "-d", fromRef)
	}
	if err != nil {
		return fmt.Errorf("rename checkpoint %s to %s: %w", from, to, err)
	}
	return nil
}

// Changed lists the files that differ between checkpoints from and to
// (what happened in between: a delegation's edits).
func (c *Checkpoints) Changed(ctx context.Context, from, to string) ([]string, error) {
	fromRef, err := c.ref(from)
	if err != nil {
		return nil, err
	}
	toRef, err := c.ref(to)
	if err != nil {
		return nil, err
	}
	files, err := changedPaths(ctx, c.at(), fromRef, toRef)
	if err != nil {
		return nil, fmt.Errorf("checkpoints %s and %s: %w", from, to, err)
	}
	return files, nil
}

// Restored is what a rewind did.
type Restored struct {
	Written []string // files made as they were at the checkpoint
	Removed []string // files made since, removed
	// Kept are files the person changed after the last checkpoint (their
	// content is not what the agents left): not overwritten without force.
	Kept []string
	// Unrestorable are files no checkpoint holds (skipped for their
	// size, MaxBytes): left as they are.
	Unrestorable []string
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
	now, err := git(ctx, c.at(), append(idx, addEnv...), "add", "-A", "--", ".")
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
	for _, f := range c.skipped() {
		if only == nil || slices.Contains(only, f) {
			out.Unrestorable = append(out.Unrestorable, f)
		}
	}
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
