package sandbox

import llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"

const osSupported = true

// probeABI is the kernel's usable Landlock ABI, 0 without Landlock.
func probeABI() int {
	v, err := llsys.LandlockGetABIVersion()
	return usableABI(v, err, llsys.LandlockGetErrata)
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
