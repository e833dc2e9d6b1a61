//go:build !linux

package atomicfile

// renameNoReplace moves oldpath to newpath unless newpath exists (then the
// error wraps fs.ErrExist), by link(2) and unlink.
func renameNoReplace(oldpath, newpath string) error {
	return linkNoReplace(oldpath, newpath)
}
