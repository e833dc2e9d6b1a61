package agents

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// swapper exchanges a directory and a symbolic link, over and over, as a
// background command would (renameat2 RENAME_EXCHANGE: the name is always
// there, a directory one moment and a link the next), until stop.
func swapper(t *testing.T, a, b string) (swaps *atomic.Int64, stop func()) {
	t.Helper()
	if err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE); err != nil {
		t.Skipf("renameat2 RENAME_EXCHANGE: %v", err)
	}
	swaps = new(atomic.Int64)
	swaps.Add(1)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			// A burst of back-to-back swaps, then a pause: writes meet a
			// name that changes under them and one that holds still.
			for end := time.Now().Add(time.Duration(rand.IntN(2000)) * time.Microsecond); time.Now().Before(end); {
				if unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE) == nil {
					swaps.Add(1)
				}
			}
			select {
			case <-done:
				return
			case <-time.After(time.Duration(rand.IntN(2000)) * time.Microsecond):
			}
		}
	})
	return swaps, func() { close(done); wg.Wait() }
}
