package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// ErrSessionBusy is matched (errors.Is) by every *BusyError.
var ErrSessionBusy = errors.New("session is in use")

// BusyError reports a session another process holds: a session has one
// writing process at a time.
type BusyError struct {
	ID string
	// PID, Host and Since describe the holder as it recorded itself; they
	// are zero when it had not yet done so.
	PID   int
	Host  string
	Since time.Time
}

func (e *BusyError) Error() string {
	who := "another yagent process"
	if e.PID > 0 {
		who = fmt.Sprintf("pid %d", e.PID)
		if host, _ := os.Hostname(); e.Host != "" && e.Host != host {
			who += " on " + e.Host
		}
	}
	if !e.Since.IsZero() {
		who += " (since " + e.Since.Local().Format(time.DateTime) + ")"
	}
	return fmt.Sprintf("session %s is in use by %s", e.ID, who)
}

// Is makes errors.Is(err, ErrSessionBusy) hold.
func (e *BusyError) Is(target error) bool { return target == ErrSessionBusy }

// LockOptions say how to take a session that another process holds.
type LockOptions struct {
	// Wait blocks until the holder lets the session go (or ctx ends);
	// otherwise a held session is a *BusyError at once.
	Wait bool
	// OnWait, when set, is told once that the wait begins and who holds
	// the session.
	OnWait func(*BusyError)
}

// lockPoll is how often a waiting process retries the lock.
const lockPoll = 100 * time.Millisecond

// sessionLock is one process's exclusive hold on a session: an advisory
// lock (flock) on a file beside the rollout, recording who holds it. The
// kernel drops the lock when the holding process dies, however it dies, so
// a crashed process never keeps a session; the file itself stays.
type sessionLock struct {
	f *os.File
}

// holder is what the lock file says about the process holding it.
type holder struct {
	PID   int       `json:"pid"`
	Host  string    `json:"host,omitempty"`
	Since time.Time `json:"since"`
}

// LockPath is the lock file of a rollout: same directory, same name, the
// suffix ".lock" instead of ".jsonl" (never taken for a rollout).
func LockPath(rollout string) string {
	return strings.TrimSuffix(rollout, ".jsonl") + ".lock"
}

// lockSession takes session id's lock (the rollout's directory must exist).
func lockSession(ctx context.Context, id, rollout string, now func() time.Time, o LockOptions) (*sessionLock, error) {
	path := LockPath(rollout)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock session %s: %w", id, err)
	}
	told := false
	for {
		err := tryLock(f)
		if err == nil {
			break
		}
		if !errors.Is(err, errLocked) {
			f.Close()
			return nil, fmt.Errorf("lock session %s: %s: %w", id, path, err)
		}
		busy := readHolder(f, id)
		for try := 0; busy.PID == 0 && try < 5; try++ {
			time.Sleep(10 * time.Millisecond) // the holder writes who it is right after locking
			busy = readHolder(f, id)
		}
		if !o.Wait {
			f.Close()
			return nil, busy
		}
		if !told && o.OnWait != nil {
			o.OnWait(busy)
		}
		told = true
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("wait for session %s: %w", id, ctx.Err())
		case <-time.After(lockPoll):
		}
	}
	host, _ := os.Hostname()
	data, _ := json.Marshal(holder{PID: os.Getpid(), Host: host, Since: now().UTC()})
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt(append(data, '\n'), 0) // who holds it is information, not the lock
	}
	return &sessionLock{f: f}, nil
}

// readHolder describes the holder of a lock file; what cannot be read is
// left zero.
func readHolder(f *os.File, id string) *BusyError {
	busy := &BusyError{ID: id}
	data, err := io.ReadAll(io.NewSectionReader(f, 0, 4096))
	if err != nil {
		return busy
	}
	var h holder
	if json.Unmarshal(data, &h) == nil {
		busy.PID, busy.Host, busy.Since = h.PID, h.Host, h.Since
	}
	return busy
}

// release lets the session go.
func (l *sessionLock) release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close() // closing the descriptor drops the flock
	l.f = nil
	return err
}

// LockHolder says which process last took the lock of the session whose
// rollout this is (pid 0 when the lock file is missing or says nothing). It
// takes no lock and changes nothing: the process may have let the session
// go since (the file stays), so a caller checks that the pid still lives.
func LockHolder(rollout string) (pid int, host string) {
	f, err := os.Open(LockPath(rollout))
	if err != nil {
		return 0, ""
	}
	defer f.Close()
	b := readHolder(f, "")
	return b.PID, b.Host
}
