package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/yagent/yagent/internal/atomicfile"
)

// Workspace trust: a workspace's own .yagent/config.yaml may set what runs
// code, widens permissions or routes data or credentials, and limits in the
// direction that costs more (KeyClasses), only once the person has trusted
// that directory. The list of trusted
// directories is TrustFileName under $YAGENT_HOME.
//
// Trust is exact, by real path: the directory whose .yagent/config.yaml is
// read, symlinks resolved (a link to a trusted directory reads the same
// files, so it is trusted; retargeting a trusted link does not carry the
// trust along). A trusted directory does not trust its subdirectories or
// its parents: yagent reads the working directory's own .yagent only, and a
// subdirectory with one of its own may come from somebody else — a vendored
// tree, a submodule, a repository cloned into a trusted ~/src — so it is
// trusted on its own.

// TrustFileName is the trust list's name under $YAGENT_HOME.
const TrustFileName = "trusted-workspaces.json"

// trustLockName is the lock serialising changes to the trust list; it
// never looks like the list itself.
const trustLockName = ".trusted-workspaces.lock"

// trustVersion is the format version of the trust list.
const trustVersion = 1

// TrustList is the directories whose own settings the person trusts.
type TrustList struct {
	Version int          `json:"version"`
	Dirs    []TrustedDir `json:"dirs"`
}

// TrustedDir is one trusted directory.
type TrustedDir struct {
	// Path is absolute with symlinks resolved.
	Path  string    `json:"path"`
	Since time.Time `json:"since"`
}

// TrustFile is the trust list's path under home.
func TrustFile(home string) string { return filepath.Join(home, TrustFileName) }

// ReadTrust reads the trust list of home; a missing file is an empty list.
// A damaged file or an unknown version is an error (nothing is trusted
// then: the caller fails closed).
func ReadTrust(home string) (*TrustList, error) {
	path := TrustFile(home)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &TrustList{Version: trustVersion}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the trust list %s: %w", path, err)
	}
	var l TrustList
	if err := json.Unmarshal(data, &l); err != nil {
		return nil, fmt.Errorf("the trust list %s is damaged (%v): fix it or remove it and trust the directories again", path, err)
	}
	if l.Version != trustVersion {
		return nil, fmt.Errorf("the trust list %s has version %d; this yagent reads version %d", path, l.Version, trustVersion)
	}
	return &l, nil
}

// Has reports whether dir (absolute, symlinks resolved) is trusted.
func (l *TrustList) Has(dir string) bool {
	return slices.ContainsFunc(l.Dirs, func(d TrustedDir) bool { return d.Path == dir })
}

// TrustDir resolves the directory a person names: absolute, symlinks
// resolved; it must exist and be a directory.
func TrustDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("directory %s: %w", dir, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("directory %s: %w", dir, err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", fmt.Errorf("directory %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%s is not a directory", dir)
	}
	return real, nil
}

// Trust adds dir (see TrustDir) to home's trust list and returns its real
// path and whether it was new.
func Trust(home, dir string, now time.Time) (string, bool, error) {
	real, err := TrustDir(dir)
	if err != nil {
		return "", false, err
	}
	added := false
	err = editTrust(home, func(l *TrustList) bool {
		if l.Has(real) {
			return false
		}
		l.Dirs = append(l.Dirs, TrustedDir{Path: real, Since: now.UTC()})
		slices.SortFunc(l.Dirs, func(a, b TrustedDir) int { return strings.Compare(a.Path, b.Path) })
		added = true
		return true
	})
	return real, added, err
}

// Revoke removes dir from home's trust list and returns the path removed
// ("" when it was not trusted). A directory that no longer exists is
// matched by its absolute path.
func Revoke(home, dir string) (string, error) {
	want, err := TrustDir(dir)
	if err != nil {
		if want, err = filepath.Abs(dir); err != nil {
			return "", fmt.Errorf("directory %s: %w", dir, err)
		}
	}
	removed := ""
	err = editTrust(home, func(l *TrustList) bool {
		n := len(l.Dirs)
		l.Dirs = slices.DeleteFunc(l.Dirs, func(d TrustedDir) bool { return d.Path == want })
		if len(l.Dirs) == n {
			return false
		}
		removed = want
		return true
	})
	return removed, err
}

// editTrust changes the trust list under a lock (two yagent processes
// trusting at once both land) and writes it atomically; edit reports
// whether it changed anything. A damaged list is never overwritten.
func editTrust(home string, edit func(*TrustList) bool) error {
	if err := os.MkdirAll(home, 0o700); err != nil {
		return fmt.Errorf("trust list: %w", err)
	}
	lock, err := os.OpenFile(filepath.Join(home, trustLockName), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return fmt.Errorf("lock the trust list: %w", err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("lock the trust list: %w", err)
	}
	// Closing the lock file releases the lock.
	l, err := ReadTrust(home)
	if err != nil {
		return err
	}
	if !edit(l) {
		return nil
	}
	if l.Dirs == nil {
		l.Dirs = []TrustedDir{}
	}
	l.Version = trustVersion
	data, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return fmt.Errorf("trust list: %w", err)
	}
	return atomicfile.WriteFile(TrustFile(home), append(data, '\n'), 0o600)
}
