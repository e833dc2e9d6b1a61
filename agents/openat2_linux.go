package agents

import "golang.org/x/sys/unix"

// sysOpenat2 opens name (one component) in dirfd with openat2, refusing
// any symbolic link and anything not beneath dirfd.
func sysOpenat2(dirfd int, name string, flags int) (int, error) {
	return unix.Openat2(dirfd, name, &unix.OpenHow{
		Flags:   uint64(flags),
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
}
