//go:build unix

package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"unicode/utf8"

	"golang.org/x/sys/unix"
)

// nameMax is the longest file name (bytes) Linux file systems take.
const nameMax = 255

// WriteFileAt atomically replaces the entry name of the open directory dir
// with data, resolving no path at all, so that what dir is cannot change
// under the write: the temporary file is created in dir itself (O_EXCL,
// O_NOFOLLOW; named by tempNameAt: hidden, ending in digits, cut to fit
// NAME_MAX however long name is), written, synced and closed, renamed over
// name within dir (an entry that is a symbolic link is replaced, never
// followed), and dir is synced. name is one component; perm is the new
// file's mode before the umask. The caller decides what dir may be.
func WriteFileAt(dir *os.File, name string, data []byte, perm os.FileMode) error {
	defer runtime.KeepAlive(dir)
	if name == "" || name == "." || name == ".." || strings.Contains(name, "/") {
		return fmt.Errorf("write %q: not a single file name", name)
	}
	dfd := int(dir.Fd())
	var fd int
	var tmp string
	var err error
	for attempt := 0; ; attempt++ {
		tmp = tempNameAt(name, tempDigits())
		fd, err = unix.Openat(dfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm.Perm()))
		if !errors.Is(err, unix.EEXIST) || attempt == 100 {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("write %s: create a temporary file: %w", name, err)
	}
	f := os.NewFile(uintptr(fd), tmp)
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		if rerr := unix.Renameat(dfd, tmp, dfd, name); rerr != nil {
			err = &os.LinkError{Op: "renameat", Old: tmp, New: name, Err: rerr}
		}
	}
	if err != nil {
		_ = unix.Unlinkat(dfd, tmp, 0)
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := unix.Fsync(dfd); err != nil {
		return fmt.Errorf("write %s: sync its directory: %w", name, err)
	}
	return nil
}

// tempNameAt names WriteFileAt's temporary file for base: "." + base +
// ".yagent-tmp-" + digits — hidden, never with base's suffix, and within
// NAME_MAX however long base is (a long base is cut at a character
// boundary).
func tempNameAt(base, digits string) string {
	suffix := ".yagent-tmp-" + digits
	if room := nameMax - 1 - len(suffix); len(base) > room {
		base = base[:room]
		// Drop a character the cut split (at most UTFMax-1 bytes).
		for i := 0; i < utf8.UTFMax-1 && len(base) > 0; i++ {
			if r, size := utf8.DecodeLastRuneInString(base); r != utf8.RuneError || size != 1 {
				break
			}
			base = base[:len(base)-1]
		}
	}
	return "." + base + suffix
}
