// Package atomicfile writes files so that a crash at any point leaves either
// the old content or the new one, never a mix.
//
// The temporary file lives in the target's own directory (renameio names it
// ".<base><digits>", which never carries the real file's suffix), is synced
// and closed, renamed over the target, and then the directory itself is
// synced so the rename survives a power loss. renameio does the first part
// only; SyncDir is the second.
//
// WriteNew is for files that are written once and never replaced (notes):
// its last step never replaces an existing file, even one another host
// created a moment before on a shared folder (renameat2 RENAME_NOREPLACE,
// else link(2) and unlink).
package atomicfile

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
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

// WriteNew atomically creates path holding data: a temporary file in the
// same directory (".<base><digits>", like WriteFile's), synced and closed,
// then moved to path only if path does not exist, then the directory is
// synced. When path exists the error wraps fs.ErrExist, the existing file
// is untouched and the temporary file is gone. The parent directory must
// exist.
func WriteNew(path string, data []byte, perm os.FileMode) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	var f *os.File
	var tmp string
	for attempt := 0; ; attempt++ {
		tmp = filepath.Join(dir, "."+base+tempDigits())
		f, err = os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if err == nil || !errors.Is(err, fs.ErrExist) || attempt == 100 {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			os.Remove(tmp)
		}
	}()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = renameNoReplace(tmp, path)
	}
	if err == nil {
		err = SyncDir(dir)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// tempDigits is the random part of a temporary name (decimal, as
// renameio's, so that cleaners recognise both).
func tempDigits() string {
	n, err := rand.Int(rand.Reader, big.NewInt(1<<62))
	if err != nil {
		return "0"
	}
	return n.String()
}

// linkNoReplace moves oldpath to newpath without ever replacing newpath:
// link(2) fails with EEXIST when newpath exists; then oldpath is unlinked.
func linkNoReplace(oldpath, newpath string) error {
	if err := os.Link(oldpath, newpath); err != nil {
		return err
	}
	return os.Remove(oldpath)
}
