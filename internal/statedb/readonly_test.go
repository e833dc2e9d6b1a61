package statedb

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// fsImmutableFL is FS_IMMUTABLE_FL (chattr +i).
const fsImmutableFL = 0x10

// makeReadOnly makes path unwritable for this process until the test ends:
// chmod for an ordinary user; for root, whom permissions do not stop, the
// immutable attribute. The test is skipped where neither works.
func makeReadOnly(t *testing.T, path string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		flags, err := unix.IoctlGetInt(int(f.Fd()), unix.FS_IOC_GETFLAGS)
		if err == nil {
			err = unix.IoctlSetPointerInt(int(f.Fd()), unix.FS_IOC_SETFLAGS, flags|fsImmutableFL)
		}
		if err != nil {
			t.Skipf("cannot make %s immutable: %v", path, err)
		}
		t.Cleanup(func() {
			f, err := os.Open(path)
			if err != nil {
				t.Error(err)
				return
			}
			defer f.Close()
			if err := unix.IoctlSetPointerInt(int(f.Fd()), unix.FS_IOC_SETFLAGS, flags&^fsImmutableFL); err != nil {
				t.Errorf("clear the immutable flag of %s: %v", path, err)
			}
		})
	} else {
		if err := os.Chmod(path, fi.Mode().Perm()&^0o222); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(path, fi.Mode().Perm()) })
	}
	if fi.IsDir() {
		if f, err := os.CreateTemp(path, "probe"); err == nil {
			f.Close()
			os.Remove(f.Name())
			t.Skipf("%s is still writable here", path)
		}
	}
}
