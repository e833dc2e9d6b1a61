// Package atomicfile writes files so that a crash at any point leaves either
// the old content or the new one, never a mix.
//
// The temporary file lives in the target's own directory (renameio names it
// ".<base><digits>", which never carries the real file's suffix), is synced
// and closed, renamed over the target, and then the directory itself is
// synced so the rename survives a power loss. renameio does the first part
// only; SyncDir is the second.
package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/google/renameio/v2"
)

// WriteFile atomically replaces path with data. The parent directory must
// exist.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	if err := renameio.WriteFile(path, data, perm, renameio.WithTempDir(dir)); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := SyncDir(dir); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// SyncDir fsyncs a directory so that entries created or renamed in it are
// durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync dir %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync dir %s: %w", dir, err)
	}
	return nil
}
