package sandbox

import llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"

const osSupported = true

// probeABI is the kernel's usable Landlock ABI, 0 without Landlock. Like
// go-landlock it counts ABI 6 only when the signal-scoping erratum is fixed.
func probeABI() int {
	v, err := llsys.LandlockGetABIVersion()
	if err != nil || v < 0 {
		return 0
	}
	if v >= 6 {
		if errata, err := llsys.LandlockGetErrata(); err != nil || errata&0x2 == 0 {
			v = 5
		}
	}
	return v
}
