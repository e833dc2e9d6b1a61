// Package testio holds small I/O helpers for tests.
package testio

import (
	"bytes"
	"sync"
)

// Buffer is a bytes.Buffer that one goroutine (or a process's output
// copier) may write while another reads it.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns what was written so far.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
