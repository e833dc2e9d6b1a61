package sandbox

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Landlock confines TCP by port, but only sockets whose protocol is TCP:
// an MPTCP socket (Go's default for listeners since 1.24, and anyone's for
// the asking) connects and binds past it, and UDP is not confined below
// ABI 10. So the helper also installs a seccomp filter that refuses to
// create IPv4 and IPv6 sockets at all (EACCES), and refuses io_uring, whose
// IORING_OP_SOCKET would create one without the socket system call. Unix
// sockets, netlink and socketpair are untouched.

// auditArch is the seccomp architecture of this build, 0 where the filter
// is not written for it.
func auditArch() uint32 {
	switch runtime.GOARCH {
	case "amd64":
		return unix.AUDIT_ARCH_X86_64
	case "arm64":
		return unix.AUDIT_ARCH_AARCH64
	case "riscv64":
		return unix.AUDIT_ARCH_RISCV64
	}
	return 0
}

// x32SyscallBit marks x32 system calls on amd64 (same audit arch).
const x32SyscallBit = 0x40000000

// Offsets in struct seccomp_data (little-endian: an argument's low word
// comes first).
const (
	offNr   = 0
	offArch = 4
	offArg0 = 16
)

// netFilter is the BPF program: any other architecture (or x32) is refused
// outright; socket(AF_INET or AF_INET6, …) and io_uring_setup get EACCES;
// everything else is allowed.
func netFilter(arch uint32) []unix.SockFilter {
	const (
		ld   = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq  = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		jge  = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
		ret  = unix.BPF_RET | unix.BPF_K
		deny = unix.SECCOMP_RET_ERRNO | uint32(unix.EACCES)
	)
	stmt := func(code uint16, k uint32) unix.SockFilter { return unix.SockFilter{Code: code, K: k} }
	jump := func(code uint16, k uint32, jt, jf uint8) unix.SockFilter {
		return unix.SockFilter{Code: code, Jt: jt, Jf: jf, K: k}
	}
	return []unix.SockFilter{
		/* 0 */ stmt(ld, offArch),
		/* 1 */ jump(jeq, arch, 0, 9), // → 11 deny
		/* 2 */ stmt(ld, offNr),
		/* 3 */ jump(jge, x32SyscallBit, 7, 0), // → 11 deny
		/* 4 */ jump(jeq, uint32(unix.SYS_IO_URING_SETUP), 6, 0), // → 11 deny
		/* 5 */ jump(jeq, uint32(unix.SYS_SOCKET), 1, 0), // → 7
		/* 6 */ stmt(ret, unix.SECCOMP_RET_ALLOW),
		/* 7 */ stmt(ld, offArg0),
		/* 8 */ jump(jeq, unix.AF_INET, 2, 0), // → 11 deny
		/* 9 */ jump(jeq, unix.AF_INET6, 1, 0), // → 11 deny
		/* 10 */ stmt(ret, unix.SECCOMP_RET_ALLOW),
		/* 11 */ stmt(ret, deny),
	}
}

// refuseIPSockets installs netFilter on every thread of this process. It
// needs no_new_privs, which the Landlock restriction has already set.
func refuseIPSockets() error {
	arch := auditArch()
	if arch == 0 {
		return fmt.Errorf("no seccomp network filter for %s", runtime.GOARCH)
	}
	filter := netFilter(arch)
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	tid, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&prog)))
	runtime.KeepAlive(filter)
	if errno != 0 {
		return fmt.Errorf("seccomp: %w", errno)
	}
	if tid != 0 {
		return fmt.Errorf("seccomp: thread %d could not take the filter", tid)
	}
	return nil
}
