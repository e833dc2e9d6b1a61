package change

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
)

// worktreeLocks serialise git's worktree commands per repository: a
// `git worktree add` reads every worktree's administrative directory, and
// one another add is still writing fails it ("failed to read
// .git/worktrees/<name>/commondir", seen with four delegations of a
// batch level isolating at once).
var worktreeLocks sync.Map // repository top → *sync.Mutex

// worktreeGit runs a git worktree command at r under r's lock.
func worktreeGit(ctx context.Context, r at, extra []string, args ...string) ([]byte, error) {
	mu, _ := worktreeLocks.LoadOrStore(r.dir, new(sync.Mutex))
	mu.(*sync.Mutex).Lock()
	defer mu.(*sync.Mutex).Unlock()
	return git(ctx, r, extra, append([]string{"worktree"}, args...)...)
}

// ErrNotRepository: the workspace is not inside a git repository (the
// caller falls back to a snapshot).
var ErrNotRepository = errors.New("not a git repository")

// safety are the settings of every git yagent runs: the person's hooks,
// fsmonitor command, signing and background maintenance never run.
var safety = []string{
	"-c", "core.hooksPath=/dev/null",
	"-c", "core.fsmonitor=false",
	"-c", "commit.gpgSign=false",
	"-c", "gc.auto=0",
	"-c", "maintenance.auto=false",
	"-c", "advice.detachedHead=false",
}

// identity is the author and committer of yagent's commits: they work on
// a machine with no user.email set.
var identity = []string{
	"GIT_AUTHOR_NAME=yagent", "GIT_AUTHOR_EMAIL=yagent@localhost",
	"GIT_COMMITTER_NAME=yagent", "GIT_COMMITTER_EMAIL=yagent@localhost",
}

// gitEnv is the environment without the GIT_ variables that would point
// git elsewhere (GIT_DIR, GIT_INDEX_FILE, GIT_WORK_TREE …), plus extra.
func gitEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			env = append(env, kv)
		}
	}
	return append(append(env, identity...), extra...)
}

// at is where a git runs: a working tree, and its git directory when git
// cannot find it from there (the shadow repository of a workspace that is
// not a git repository).
type at struct{ dir, gitDir string }

func (a at) env(extra ...string) []string {
	if a.gitDir != "" {
		extra = append(extra, "GIT_DIR="+a.gitDir, "GIT_WORK_TREE="+a.dir)
	}
	return gitEnv(extra...)
}

// git runs git at a (with the extra environment) and returns its standard
// output.
func git(ctx context.Context, a at, extra []string, args ...string) ([]byte, error) {
	out, _, err := gitStatus(ctx, a, extra, args...)
	return out, err
}

// gitStatus is git that also returns the exit code of a git that ran and
// failed (-1 when it did not run).
func gitStatus(ctx context.Context, a at, extra []string, args ...string) ([]byte, int, error) {
	cmd := exec.CommandContext(ctx, "git", append(append([]string{}, safety...), args...)...)
	cmd.Dir = a.dir
	cmd.Env = a.env(extra...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		code := -1
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		}
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return stdout.Bytes(), code, fmt.Errorf("git %s in %s: %s", args[0], a.dir, msg)
	}
	return stdout.Bytes(), 0, nil
}

func line(b []byte) string { return strings.TrimSpace(string(b)) }

// repoTop is the top of the working tree holding dir.
func repoTop(ctx context.Context, dir string) (string, error) {
	if _, err := exec.LookPath("git"); err != nil {
		return "", fmt.Errorf("%s: git is not installed: %w", dir, ErrNotRepository)
	}
	out, err := git(ctx, at{dir: dir}, nil, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", fmt.Errorf("%s: %w", dir, ErrNotRepository)
	}
	return line(out), nil
}

// head is HEAD's commit, "" on a branch with no commit yet.
func head(ctx context.Context, repo at) (string, error) {
	out, code, err := gitStatus(ctx, repo, nil, "rev-parse", "--verify", "-q", "HEAD^{commit}")
	if code == 1 {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return line(out), nil
}

// snapshot commits dir's working tree as git add -A sees it (tracked
// files as they are now, untracked files not ignored, deletions) on top of
// parent ("" = no parent), through a private index seeded from dir's own
// (so only changed files are hashed again): dir's index is not touched.
// When nothing differs from parent it returns parent itself.
func snapshot(ctx context.Context, dir at, parent, message string) (string, error) {
	tmp, err := os.MkdirTemp("", "yagent-index-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	idx := tmp + "/index"
	own, err := git(ctx, dir, nil, "rev-parse", "--path-format=absolute", "--git-path", "index")
	if err != nil {
		return "", err
	}
	if err := copyIndex(line(own), idx); err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("read the index of %s: %w", dir.dir, err)
	}
	env := []string{"GIT_INDEX_FILE=" + idx}
	if _, err := git(ctx, dir, env, "add", "-A", "--", "."); err != nil {
		return "", err
	}
	tree, err := git(ctx, dir, env, "write-tree")
	if err != nil {
		return "", err
	}
	if parent != "" {
		ptree, err := git(ctx, dir, nil, "rev-parse", parent+"^{tree}")
		if err != nil {
			return "", err
		}
		if line(ptree) == line(tree) {
			return parent, nil
		}
	}
	args := []string{"commit-tree", "--no-gpg-sign", line(tree), "-m", message}
	if parent != "" {
		args = append(args, "-p", parent)
	}
	c, err := git(ctx, dir, nil, args...)
	if err != nil {
		return "", err
	}
	return line(c), nil
}

// copyIndex copies the index at src to dst with src's modification time:
// git trusts an entry's stat data only when it is older than its index
// file (racy git), so a copy stamped now would hide a same-size edit made
// in the second of the last checkout.
func copyIndex(src, dst string) error {
	fi, err := os.Stat(src)
	if err != nil {
		return err
	}
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.WriteFile(dst, b, 0o600); err != nil {
		return err
	}
	return os.Chtimes(dst, fi.ModTime(), fi.ModTime())
}
