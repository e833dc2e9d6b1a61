//go:build !linux

package agents

import (
	"sync/atomic"
	"testing"
)

// swapper needs renameat2 RENAME_EXCHANGE (Linux).
func swapper(t *testing.T, _, _ string) (*atomic.Int64, func()) {
	t.Skip("swapping a directory and a link atomically needs Linux's renameat2")
	return nil, nil
}
