//go:build linux && (amd64 || arm64 || riscv64)

package helper

import (
	"syscall"
	"unsafe"
)

// Securebits that keep a root command from regaining capabilities: root
// gets none at exec, setuid does not fix them up, ambient ones cannot be
// raised, and each bit is locked.
const secureBits = 1<<0 | 1<<1 | // SECBIT_NOROOT, _LOCKED
	1<<2 | 1<<3 | // SECBIT_NO_SETUID_FIXUP, _LOCKED
	1<<5 | // SECBIT_KEEP_CAPS_LOCKED
	1<<6 | 1<<7 // SECBIT_NO_CAP_AMBIENT_RAISE, _LOCKED

// dropCapabilities empties this thread's ambient, bounding, effective,
// permitted and inheritable sets and locks the securebits, so the command
// has no capability even when it runs as root (in its user namespace or,
// under the Landlock mechanism, as the real root): a command that kept
// one could unmount the view's read-only binds. Without CAP_SETPCAP (an
// unprivileged person under the Landlock mechanism) the bounding set and
// securebits cannot change and do not need to: such a process has no
// capability to lose, and no_new_privs keeps it from gaining one.
func dropCapabilities() error {
	if err := prctl(prCapAmbient, prCapAmbientClearAll, 0); err != nil && err != syscall.EINVAL {
		return wrap("clear ambient", err)
	}
	for c := uintptr(0); c < 64; c++ {
		err := prctl(prCapbsetDrop, c, 0)
		if err == syscall.EINVAL {
			break // past the last capability this kernel knows
		}
		if err == syscall.EPERM {
			break // no CAP_SETPCAP: nothing to drop
		}
		if err != nil {
			return wrap("drop capability "+itoa(int(c))+" from the bounding set", err)
		}
	}
	if err := prctl(prSetSecurebits, secureBits, 0); err != nil && err != syscall.EPERM {
		return wrap("securebits", err)
	}
	hdr := struct {
		version uint32
		pid     int32
	}{version: 0x20080522} // _LINUX_CAPABILITY_VERSION_3
	var data [2]struct{ effective, permitted, inheritable uint32 }
	if _, _, e := syscall.RawSyscall(sysCapset, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0); e != 0 {
		return wrap("capset", e)
	}
	return nil
}
