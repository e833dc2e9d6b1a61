package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
)

// Placeholders. A view keeps a protected path read-only by binding it
// read-only over itself; one that does not exist has nothing to bind, and
// a command could create it (.yagent/config.yaml, .git/hooks…). So for the
// life of each command that needs it, the path exists as an empty
// directory: the view binds it read-only, the command can neither write
// into it nor replace it. It is removed when the last command that holds
// it ends — in this process (a count) and in any other yagent process on
// the same workspace (one marker file per process, under $YAGENT_HOME,
// checked for a live pid under a lock) — and only while it is still an
// empty directory: rmdir never takes anything a person put there. An empty
// directory named .git or .yagent changes nothing for git or yagent.

var placeholders = struct {
	sync.Mutex
	refs map[string]int
}{refs: map[string]int{}}

// hold makes the paths exist as empty directories until release is
// called; on error it has released what it took.
func (p *Policy) hold(paths []string) (release func(), err error) {
	var held []string
	release = func() {
		for _, path := range held {
			p.releasePlaceholder(path)
		}
	}
	for _, path := range paths {
		if err := p.holdPlaceholder(path); err != nil {
			release()
			return nil, err
		}
		held = append(held, path)
	}
	return release, nil
}

func (p *Policy) markerDir(path string) string {
	root := p.paths().home
	if root == "" {
		root = filepath.Join(os.TempDir(), fmt.Sprintf("yagent-%d", os.Getuid()))
	}
	sum := sha256.Sum256([]byte(path))
	return filepath.Join(root, "sandbox", "placeholders", hex.EncodeToString(sum[:12]))
}

func (p *Policy) holdPlaceholder(path string) error {
	placeholders.Lock()
	defer placeholders.Unlock()
	if placeholders.refs[path] > 0 {
		placeholders.refs[path]++
		return nil
	}
	dir := p.markerDir(path)
	unlock, err := lockDir(dir)
	if err != nil {
		return fmt.Errorf("sandbox: keep %s read-only: %w", path, err)
	}
	defer unlock()
	marker := filepath.Join(dir, strconv.Itoa(os.Getpid()))
	if err := os.WriteFile(marker, []byte(path+"\n"), 0o600); err != nil {
		return fmt.Errorf("sandbox: keep %s read-only: %w", path, err)
	}
	if err := os.Mkdir(path, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		os.Remove(marker)
		return fmt.Errorf("sandbox: keep %s read-only (a command must not create it): %w", path, err)
	}
	placeholders.refs[path] = 1
	return nil
}

func (p *Policy) releasePlaceholder(path string) {
	placeholders.Lock()
	defer placeholders.Unlock()
	if placeholders.refs[path]--; placeholders.refs[path] > 0 {
		return
	}
	delete(placeholders.refs, path)
	dir := p.markerDir(path)
	unlock, err := lockDir(dir)
	if err != nil {
		return
	}
	defer unlock()
	os.Remove(filepath.Join(dir, strconv.Itoa(os.Getpid())))
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue // the lock file
		}
		if alive(pid) {
			return // another yagent's command still holds it
		}
		os.Remove(filepath.Join(dir, e.Name()))
	}
	syscall.Rmdir(path) // an empty directory only; never what a person put there
}

func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// lockDir makes dir and takes its lock file's exclusive lock.
func lockDir(dir string) (func(), error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}
