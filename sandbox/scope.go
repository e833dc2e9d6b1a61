package sandbox

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// Scope is the private temp dir shared by the commands of one run of an
// agent — one per session for the director, one per delegation for a
// sub-agent — kept between its commands and removed by Close. Two scopes
// never see each other's files: each binds its own directory at /tmp.
type Scope struct {
	mu     sync.Mutex
	dir    string
	closed bool
}

type scopeKey struct{}

// WithScope returns a context whose confined commands use s's temp dir.
func WithScope(ctx context.Context, s *Scope) context.Context {
	return context.WithValue(ctx, scopeKey{}, s)
}

func scopeFrom(ctx context.Context) *Scope {
	s, _ := ctx.Value(scopeKey{}).(*Scope)
	return s
}

// tempDir returns the scope's directory, made under root on first use.
func (s *Scope) tempDir(root string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return "", fmt.Errorf("sandbox: the commands' scope has ended")
	}
	if s.dir != "" {
		return s.dir, nil
	}
	if err := os.MkdirAll(root, 0o700); err != nil {
		return "", fmt.Errorf("sandbox: make the commands' temp dir: %w", err)
	}
	dir, err := os.MkdirTemp(root, "tmp-")
	if err == nil {
		dir, err = realPath(dir)
	}
	if err != nil {
		return "", fmt.Errorf("sandbox: make the commands' temp dir: %w", err)
	}
	s.dir = dir
	return dir, nil
}

// Close removes the scope's temp dir and what its commands left there,
// even what they made unreadable.
func (s *Scope) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	if s.dir == "" {
		return nil
	}
	dir := s.dir
	s.dir = ""
	return removeTree(dir)
}

// removeTree is os.RemoveAll that first gives back the owner's rights to
// directories a command took them from.
func removeTree(dir string) error {
	if err := os.RemoveAll(dir); err == nil {
		return nil
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if d != nil && d.IsDir() || err != nil {
			os.Chmod(p, 0o700)
		}
		return nil
	})
	return os.RemoveAll(dir)
}

// tempRoot is where scopes make their directories.
func (p *Policy) tempRoot() string {
	if h := p.paths().home; h != "" {
		return filepath.Join(h, "tmp")
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("yagent-%d", os.Getuid()), "tmp")
}

// tempDir is the private temp dir of a command started with ctx.
func (p *Policy) tempDir(ctx context.Context) (string, error) {
	if p.TempDir != "" {
		return p.TempDir, nil
	}
	s := scopeFrom(ctx)
	if s == nil {
		s = &p.scope
	}
	return s.tempDir(p.tempRoot())
}
