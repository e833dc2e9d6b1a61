//go:build linux && (amd64 || arm64 || riscv64)

package helper

import (
	"syscall"
	"unsafe"
)

// Landlock access rights (include/uapi/linux/landlock.h).
const (
	llExecute     = 1 << 0
	llWriteFile   = 1 << 1
	llReadFile    = 1 << 2
	llReadDir     = 1 << 3
	llRemoveDir   = 1 << 4
	llRemoveFile  = 1 << 5
	llMakeChar    = 1 << 6
	llMakeDir     = 1 << 7
	llMakeReg     = 1 << 8
	llMakeSock    = 1 << 9
	llMakeFifo    = 1 << 10
	llMakeBlock   = 1 << 11
	llMakeSym     = 1 << 12
	llRefer       = 1 << 13 // ABI 2
	llTruncate    = 1 << 14 // ABI 3
	llIoctlDev    = 1 << 15 // ABI 5
	llResolveUnix = 1 << 16 // ABI 9

	llBindTCP    = 1 << 0 // ABI 4
	llConnectTCP = 1 << 1

	llScopeAbstractUnix = 1 << 0 // ABI 6
	llScopeSignal       = 1 << 1

	llRulePathBeneath = 1

	// The rights that apply to a file (the others need a directory).
	llFileRights = llExecute | llWriteFile | llReadFile | llTruncate | llIoctlDev
	// What "/" grants: read and execute anywhere.
	llReadRights = llExecute | llReadFile | llReadDir
)

// fsRights are the filesystem rights Landlock handles at an ABI: all of
// them, so that a right not granted is refused.
func fsRights(abi int) uint64 {
	r := uint64(llMakeSym<<1 - 1) // ABI 1: execute … make_sym
	if abi >= 2 {
		r |= llRefer
	}
	if abi >= 3 {
		r |= llTruncate
	}
	if abi >= 5 {
		r |= llIoctlDev
	}
	if abi >= 9 {
		r |= llResolveUnix
	}
	return r
}

// restrict applies Landlock to this thread: read and execute anywhere,
// write under the spec's writable paths; under the Landlock mechanism
// also no TCP bind or connect (ABI 4+). Inside a view the network
// namespace is the network's bound, and Landlock a second layer for the
// filesystem. Strict: an ABI the kernel lacks is an error, never less.
func restrict(s *Spec) error {
	handled := fsRights(s.ABI)
	attr := struct{ fs, net, scoped uint64 }{fs: handled}
	size := uintptr(8)
	if s.ABI >= 4 {
		size = 16
		if s.Mechanism == Landlock {
			attr.net = llBindTCP | llConnectTCP
		}
	}
	if s.ABI >= 6 {
		size = 24
		attr.scoped = llScopeAbstractUnix | llScopeSignal
	}
	fd, _, e := syscall.RawSyscall(sysLandlockCreate, uintptr(unsafe.Pointer(&attr)), size, 0)
	if e != 0 {
		return wrap("create a ruleset for ABI "+itoa(s.ABI), e)
	}
	defer syscall.Close(int(fd))
	add := func(path string, rights uint64) error {
		pfd, err := syscall.Open(path, oPath|syscall.O_CLOEXEC, 0)
		if err == syscall.ENOENT {
			return nil // gone since the rules were made
		}
		if err != nil {
			return wrap(path, err)
		}
		defer syscall.Close(pfd)
		var st syscall.Stat_t
		if err := syscall.Fstat(pfd, &st); err != nil {
			return wrap(path, err)
		}
		if st.Mode&syscall.S_IFMT != syscall.S_IFDIR {
			rights &= llFileRights
		}
		// struct landlock_path_beneath_attr is packed: u64, then s32.
		var rule [12]byte
		*(*uint64)(unsafe.Pointer(&rule[0])) = rights & handled
		*(*int32)(unsafe.Pointer(&rule[8])) = int32(pfd)
		if _, _, e := syscall.RawSyscall6(sysLandlockAddRule, fd, llRulePathBeneath, uintptr(unsafe.Pointer(&rule[0])), 0, 0, 0); e != 0 {
			return wrap("rule for "+path, e)
		}
		return nil
	}
	if err := add("/", llReadRights); err != nil {
		return err
	}
	for _, p := range writablePaths(s) {
		if err := add(p, handled); err != nil {
			return err
		}
	}
	if _, _, e := syscall.RawSyscall(sysLandlockRestrict, fd, 0, 0); e != 0 {
		return wrap("restrict", e)
	}
	return nil
}

// devices are writable in place in every mode.
var devices = []string{"/dev/null", "/dev/zero", "/dev/full"}

// writablePaths are the paths Landlock grants writes under: the spec's
// writable ops (as the view shows them: the private temp dir at /tmp),
// the devices and, in a view, its own /dev/pts and /dev/shm.
func writablePaths(s *Spec) []string {
	out := append([]string(nil), devices...)
	for _, op := range s.Ops {
		switch {
		case op.Kind == Tmp && s.Mechanism == View:
			out = append(out, "/tmp")
		case op.Kind == Tmp, op.Kind == RW, op.Kind == RWFile:
			out = append(out, op.Path)
		}
	}
	if s.Mechanism == View {
		out = append(out, "/dev/pts", "/dev/shm")
	}
	return out
}
