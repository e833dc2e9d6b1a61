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
	"time"
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
//
// An unheld placeholder lingers a little before it goes: an agent runs its
// commands in bursts, and making and removing five directories for each
// command costs more than the command's sandbox (a millisecond a pair on
// some filesystems). Policy.Close removes the lingering ones at once.

// placeholderLinger is how long an unheld placeholder stays.
var placeholderLinger = 2 * time.Second

var placeholders = struct {
	sync.Mutex
	refs   map[string]int
	linger map[string]*time.Timer // unheld, waiting to be removed
	owner  map[string]*Policy     // whose marker directory records it
}{refs: map[string]int{}, linger: map[string]*time.Timer{}, owner: map[string]*Policy{}}

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

// ownPlaceholders are the paths among ps that are this process's
// placeholders, held or lingering.
func ownPlaceholders(ps []string) []string {
	placeholders.Lock()
	defer placeholders.Unlock()
	var out []string
	for _, path := range ps {
		if _, ok := placeholders.linger[path]; ok || placeholders.refs[path] > 0 {
			out = append(out, path)
		}
	}
	return out
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
	if t, ok := placeholders.linger[path]; ok {
		t.Stop() // if it fired already, its removal finds the path held
		delete(placeholders.linger, path)
		if _, err := os.Lstat(path); err == nil {
			placeholders.refs[path] = 1
			return nil
		}
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
	placeholders.owner[path] = p
	return nil
}

func (p *Policy) releasePlaceholder(path string) {
	placeholders.Lock()
	defer placeholders.Unlock()
	if placeholders.refs[path]--; placeholders.refs[path] > 0 {
		return
	}
	delete(placeholders.refs, path)
	if placeholderLinger <= 0 {
		p.removePlaceholder(path)
		return
	}
	var t *time.Timer
	t = time.AfterFunc(placeholderLinger, func() {
		placeholders.Lock()
		defer placeholders.Unlock()
		if placeholders.linger[path] != t || placeholders.refs[path] > 0 {
			return // held again since
		}
		delete(placeholders.linger, path)
		p.removePlaceholder(path)
	})
	placeholders.linger[path] = t
}

// flushPlaceholders removes at once the unheld placeholders still
// lingering.
func flushPlaceholders() {
	placeholders.Lock()
	defer placeholders.Unlock()
	for path, t := range placeholders.linger {
		t.Stop()
		delete(placeholders.linger, path)
		if p := placeholders.owner[path]; p != nil {
			p.removePlaceholder(path)
		}
	}
}

// removePlaceholder removes this process's marker of path and, when no
// live process has one left, the placeholder itself. Called with
// placeholders locked.
func (p *Policy) removePlaceholder(path string) {
	delete(placeholders.owner, path)
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
