//go:build !linux

package agents

import "golang.org/x/sys/unix"

// sysOpenat2 is Linux's: elsewhere the walk uses openat(O_NOFOLLOW).
func sysOpenat2(int, string, int) (int, error) { return -1, unix.ENOSYS }
