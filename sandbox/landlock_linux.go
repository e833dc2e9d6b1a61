package sandbox

import (
	"syscall"

	"golang.org/x/sys/unix"
)

const osSupported = true

// probeABI is the kernel's usable Landlock ABI, 0 without Landlock. The
// two queries are plain system calls: go-landlock's syscall package would
// bring libcap's psx into the binary (C, a wrapped pthread_create,
// external linking), which every re-executed helper then pays for at its
// start.
func probeABI() int {
	v, err := landlockQuery(unix.LANDLOCK_CREATE_RULESET_VERSION)
	return usableABI(v, err, func() (int, error) { return landlockQuery(unix.LANDLOCK_CREATE_RULESET_ERRATA) })
}

// landlockQuery asks landlock_create_ruleset(NULL, 0, flag) for the ABI
// version or the fixed errata.
func landlockQuery(flag uintptr) (int, error) {
	r, _, e := syscall.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, flag)
	if e != 0 {
		return -1, e
	}
	return int(r), nil
}

// usableABI is the ABI a kernel reports (v, err; 0 for none). Like
// go-landlock it counts ABI 6 and newer only when the signal-scoping
// erratum is fixed (bit 1 of errata), and 5 otherwise.
func usableABI(v int, err error, errata func() (int, error)) int {
	if err != nil || v < 0 {
		return 0
	}
	if v >= 6 {
		if e, err := errata(); err != nil || e&0x2 == 0 {
			return 5
		}
	}
	return v
}
