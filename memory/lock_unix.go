//go:build unix

package memory

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// errLocked reports a lock another open file holds.
var errLocked = errors.New("locked")

// tryLock takes an exclusive flock on f without blocking.
func tryLock(f *os.File) error {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.EWOULDBLOCK):
			return errLocked
		}
		return err
	}
}
