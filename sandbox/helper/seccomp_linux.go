//go:build linux && (amd64 || arm64 || riscv64)

package helper

import (
	"syscall"
	"unsafe"
)

// The seccomp filter: a second layer behind the view, and under the
// Landlock mechanism the network's only bound for what Landlock does not
// see. Everything not named here is allowed.
//
//   - another architecture (32-bit calls on amd64) or the x32 ABI: refused.
//   - socket: AF_UNIX always; AF_INET/AF_INET6 only in a view (its network
//     namespace has nothing but its own loopback); AF_NETLINK only
//     NETLINK_ROUTE (reading addresses; changing them needs a capability
//     the command does not have); every other family refused — AF_PACKET
//     (raw frames), AF_VSOCK (reaches the VM host from any namespace) and
//     the rest. socketpair: AF_UNIX only.
//   - io_uring (its IORING_OP_SOCKET and file operations bypass the checks
//     above), mount and the new mount API, pivot_root, ptrace, bpf,
//     keyrings, perf_event_open, userfaultfd, setns, chroot, module and
//     kexec loading, open_by_handle_at, swapon, reboot: refused.
//   - unshare and clone of a new user namespace (inside it a command would
//     have every capability again, over its own mounts): refused; clone3
//     answers ENOSYS, so C libraries fall back to clone, whose flags the
//     filter can read.
//   - ioctl TIOCSTI and TIOCLINUX (typing into a terminal): refused.
//
// Refusals are EPERM ("Operation not permitted"), EACCES for sockets (as
// Landlock's), ENOSYS for clone3.

// BPF opcodes.
const (
	bpfLdW  = 0x20        // BPF_LD (0) | BPF_W (0) | BPF_ABS
	bpfJeq  = 0x05 | 0x10 // BPF_JMP | BPF_JEQ | BPF_K
	bpfJge  = 0x05 | 0x30 // BPF_JMP | BPF_JGE | BPF_K
	bpfJset = 0x05 | 0x40 // BPF_JMP | BPF_JSET | BPF_K
	bpfRet  = 0x06        // BPF_RET | BPF_K

	retAllow = 0x7fff0000 // SECCOMP_RET_ALLOW
	retErrno = 0x00050000 // SECCOMP_RET_ERRNO | errno

	// Offsets in struct seccomp_data (little-endian: an argument's low
	// word first).
	offNr   = 0
	offArch = 4
	offArg0 = 16
	offArg1 = 24
	offArg2 = 32
)

type sockFilter struct {
	code   uint16
	jt, jf uint8
	k      uint32
}

// asm builds a BPF program whose jumps name labels.
type asm struct {
	ins    []sockFilter
	labels map[string]int
	fix    []fixup
}

type fixup struct {
	at     int
	jt, jf string
}

func (a *asm) ld(off uint32)     { a.ins = append(a.ins, sockFilter{code: bpfLdW, k: off}) }
func (a *asm) ret(k uint32)      { a.ins = append(a.ins, sockFilter{code: bpfRet, k: k}) }
func (a *asm) label(name string) { a.labels[name] = len(a.ins) }
func (a *asm) jump(code uint16, k uint32, jt, jf string) {
	a.fix = append(a.fix, fixup{at: len(a.ins), jt: jt, jf: jf})
	a.ins = append(a.ins, sockFilter{code: code, k: k})
}

// link resolves the labels ("" = the next instruction).
func (a *asm) link() ([]sockFilter, error) {
	for _, f := range a.fix {
		for _, j := range []struct {
			name string
			to   *uint8
		}{{f.jt, &a.ins[f.at].jt}, {f.jf, &a.ins[f.at].jf}} {
			if j.name == "" {
				continue
			}
			target, ok := a.labels[j.name]
			off := target - f.at - 1
			if !ok || off < 0 || off > 255 {
				return nil, errorString("seccomp program: bad jump to " + j.name)
			}
			*j.to = uint8(off)
		}
	}
	return a.ins, nil
}

// refused are the system calls the filter refuses outright.
var refused = []uint32{
	sysIoUringSetup, sysIoUringEnter, sysIoUringRegister,
	sysMount, sysUmount2, sysPivotRoot, sysOpenTree, sysOpenTreeAttr, sysMoveMount,
	sysFsopen, sysFsconfig, sysFsmount, sysFspick, sysMountSetattr,
	sysPtrace, sysBpf, sysKeyctl, sysAddKey, sysRequestKey, sysPerfEventOpen,
	sysUserfaultfd, sysSetns, sysChroot, sysInitModule, sysFinitModule, sysDeleteModule,
	sysKexecLoad, sysKexecFileLoad, sysOpenByHandleAt, sysSwapon, sysReboot,
}

// filter is the program; inet says whether AF_INET and AF_INET6 sockets
// may be made (in a view: its own loopback only).
func filter(inet bool) ([]sockFilter, error) {
	a := &asm{labels: map[string]int{}}
	a.ld(offArch)
	a.jump(bpfJeq, auditArch, "", "eperm")
	a.ld(offNr)
	if x32Bit != 0 {
		a.jump(bpfJge, x32Bit, "eperm", "")
	}
	for _, nr := range refused {
		a.jump(bpfJeq, nr, "eperm", "")
	}
	a.jump(bpfJeq, sysSocket, "socket", "")
	a.jump(bpfJeq, sysSocketpair, "socketpair", "")
	a.jump(bpfJeq, sysUnshare, "nsflags", "")
	a.jump(bpfJeq, sysClone, "nsflags", "")
	a.jump(bpfJeq, sysClone3, "enosys", "")
	a.jump(bpfJeq, sysIoctl, "ioctl", "")
	a.ret(retAllow)

	a.label("socket")
	a.ld(offArg0)
	a.jump(bpfJeq, afUnix, "allow", "")
	if inet {
		a.jump(bpfJeq, afInet, "allow", "")
		a.jump(bpfJeq, afInet6, "allow", "")
	}
	a.jump(bpfJeq, afNetlink, "", "eacces")
	a.ld(offArg2)
	a.jump(bpfJeq, netlinkRoute, "allow", "eacces")

	a.label("socketpair")
	a.ld(offArg0)
	a.jump(bpfJeq, afUnix, "allow", "eacces")

	a.label("nsflags")
	a.ld(offArg0)
	a.jump(bpfJset, cloneNewUser, "eperm", "allow")

	a.label("ioctl")
	a.ld(offArg1)
	a.jump(bpfJeq, tiocsti, "eperm", "")
	a.jump(bpfJeq, tioclinux, "eperm", "allow")

	a.label("allow")
	a.ret(retAllow)
	a.label("eperm")
	a.ret(retErrno | uint32(syscall.EPERM))
	a.label("eacces")
	a.ret(retErrno | uint32(syscall.EACCES))
	a.label("enosys")
	a.ret(retErrno | uint32(syscall.ENOSYS))
	return a.link()
}

// Program is the filter for a mechanism, encoded for Spec.Filter (nil
// when it cannot be built, which the helper refuses): AF_INET and
// AF_INET6 only in a view.
func Program(m Mechanism) []byte {
	prog, err := filter(m != Landlock)
	if err != nil {
		return nil
	}
	out := make([]byte, 0, 8*len(prog))
	for _, f := range prog {
		out = append(out, byte(f.code), byte(f.code>>8), f.jt, f.jf,
			byte(f.k), byte(f.k>>8), byte(f.k>>16), byte(f.k>>24))
	}
	return out
}

// installFilter loads the spec's program on this thread (no_new_privs is
// set: confine sets it first).
func installFilter(enc []byte) error {
	if len(enc) == 0 || len(enc)%8 != 0 {
		return errorString("no program given (-bpf)")
	}
	prog := make([]sockFilter, len(enc)/8)
	for i := range prog {
		b := enc[8*i:]
		prog[i] = sockFilter{code: uint16(b[0]) | uint16(b[1])<<8, jt: b[2], jf: b[3],
			k: uint32(b[4]) | uint32(b[5])<<8 | uint32(b[6])<<16 | uint32(b[7])<<24}
	}
	fprog := struct {
		len    uint16
		filter *sockFilter
	}{len: uint16(len(prog)), filter: &prog[0]}
	if _, _, e := syscall.RawSyscall(sysSeccomp, seccompSetModeFilter, 0, uintptr(unsafe.Pointer(&fprog))); e != 0 {
		return e
	}
	return nil
}
