//go:build linux && (amd64 || arm64 || riscv64)

package helper

import (
	"syscall"
	"unsafe"
)

// buildView turns the mount namespace the parent created at fork into the
// command's view of the filesystem:
//
//  1. nothing propagates back to the host (everything private);
//  2. every op's source is cloned now, from the host tree as it is, before
//     anything covers it (a workspace under /tmp is cloned before /tmp
//     becomes the private temp dir);
//  3. the whole tree becomes read-only;
//  4. the ops apply in order (the parent sorts them shallow first):
//     the private temp dir at /tmp, writable roots, read-only protected
//     paths on top, hidden paths masked; a mount point that the view no
//     longer has (under /tmp or a mask) is made there;
//  5. a minimal /dev (null, zero, full, random, urandom, a private
//     devpts and shm) and the /proc of the new pid namespace (an empty
//     mask where the kernel refuses to mount one);
//  6. the masks become read-only, and loopback comes up in the new
//     network namespace.
func buildView(s *Spec) error {
	if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
		return wrap("make the mounts private", err)
	}
	clones := make([]int, len(s.Ops))
	for i, op := range s.Ops {
		clones[i] = -1
		switch op.Kind {
		case Tmp, RW, RO, Bind:
			fd, err := cloneTree(op.Path, true)
			if err == syscall.ENOENT {
				continue // gone since the spec was made: nothing to bind
			}
			if err != nil {
				return wrap("clone "+op.Path, err)
			}
			if op.Kind == RO {
				if err := setAttr(fd, "", atEmptyPath|atRecursive, mountAttrRdonly); err != nil {
					return wrap("make "+op.Path+" read-only", err)
				}
			}
			clones[i] = fd
		}
	}
	// (No tty: a command has no controlling terminal to open through it.)
	devs := []string{"null", "zero", "full", "random", "urandom"}
	devClones := make([]int, len(devs))
	for i, d := range devs {
		fd, err := cloneTree("/dev/"+d, false)
		if err != nil {
			return wrap("clone /dev/"+d, err)
		}
		devClones[i] = fd
	}
	if err := setAttr(atFdcwd, "/", atRecursive, mountAttrRdonly); err != nil {
		return wrap("make the root read-only", err)
	}
	var masks, skeletons []string
	for i, op := range s.Ops {
		switch op.Kind {
		case Tmp:
			if err := attach(clones[i], "/tmp"); err != nil {
				return wrap("bind the private temp dir at /tmp", err)
			}
		case RW, RO, Bind:
			if clones[i] < 0 {
				continue
			}
			at := op.Path
			if op.Kind == Bind {
				at = op.At
			}
			made, err := mountPoint(at, isDirFd(clones[i]))
			if err != nil {
				return wrap("mount point "+at, err)
			}
			if made != "" && made != at {
				skeletons = append(skeletons, made)
			}
			if err := attach(clones[i], at); err != nil {
				return wrap("bind "+op.Path+" at "+at, err)
			}
		case Hide:
			var st syscall.Stat_t
			if syscall.Lstat(op.Path, &st) != nil {
				continue // not in the view: nothing to hide
			}
			if st.Mode&syscall.S_IFMT == syscall.S_IFDIR {
				if err := syscall.Mount("tmpfs", op.Path, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, "mode=0755,size=64k"); err != nil {
					return wrap("hide "+op.Path, err)
				}
				masks = append(masks, op.Path)
				continue
			}
			if st.Mode&syscall.S_IFMT == syscall.S_IFLNK {
				continue // a link leads somewhere else, hidden or not on its own
			}
			fd, err := cloneTree("/dev/null", false)
			if err == nil {
				err = setAttr(fd, "", atEmptyPath, mountAttrRdonly)
			}
			if err == nil {
				err = attach(fd, op.Path)
			}
			if err != nil {
				return wrap("hide "+op.Path, err)
			}
		}
	}
	for _, sk := range skeletons {
		if err := readOnlySkeleton(sk); err != nil {
			return wrap("make "+sk+" read-only", err)
		}
	}
	if err := makeDev(devs, devClones); err != nil {
		return wrap("/dev", err)
	}
	if err := syscall.Mount("proc", "/proc", "proc", syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, ""); err != nil {
		// A kernel (or a container) that will not mount a proc here: no
		// /proc rather than the host's, whose processes and their
		// environments are not the command's to see.
		if err := syscall.Mount("tmpfs", "/proc", "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC|syscall.MS_RDONLY, "mode=0555,size=4k"); err != nil {
			return wrap("mask /proc", err)
		}
	}
	for _, m := range masks {
		if err := setAttr(atFdcwd, m, 0, mountAttrRdonly); err != nil {
			return wrap("make the mask on "+m+" read-only", err)
		}
	}
	return loopbackUp()
}

const atFdcwd = -100

// cloneTree makes a detached copy of the mount tree at path (with the
// mounts beneath it when recursive).
func cloneTree(path string, recursive bool) (int, error) {
	p, err := syscall.BytePtrFromString(path)
	if err != nil {
		return -1, err
	}
	flags := uintptr(openTreeClone | syscall.O_CLOEXEC)
	if recursive {
		flags |= atRecursive
	}
	fd, _, e := syscall.RawSyscall(sysOpenTree, uintptr(atFdcwdU()), uintptr(unsafe.Pointer(p)), flags)
	if e != 0 {
		return -1, e
	}
	return int(fd), nil
}

func atFdcwdU() uintptr {
	v := atFdcwd
	return uintptr(v)
}

// setAttr sets mount attributes (mount_setattr).
func setAttr(dirfd int, path string, flags uintptr, set uint64) error {
	p, err := syscall.BytePtrFromString(path)
	if err != nil {
		return err
	}
	attr := struct{ set, clr, propagation, userns uint64 }{set: set}
	if _, _, e := syscall.RawSyscall6(sysMountSetattr, uintptr(dirfd), uintptr(unsafe.Pointer(p)), flags, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0); e != 0 {
		return e
	}
	return nil
}

// attach mounts a detached tree at path (move_mount) and closes its fd.
func attach(fd int, path string) error {
	defer syscall.Close(fd)
	empty, _ := syscall.BytePtrFromString("")
	p, err := syscall.BytePtrFromString(path)
	if err != nil {
		return err
	}
	if _, _, e := syscall.RawSyscall6(sysMoveMount, uintptr(fd), uintptr(unsafe.Pointer(empty)), atFdcwdU(), uintptr(unsafe.Pointer(p)), moveMountFEmptyPath, 0); e != 0 {
		return e
	}
	return nil
}

func isDirFd(fd int) bool {
	var st syscall.Stat_t
	return syscall.Fstat(fd, &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFDIR
}

// mountPoint makes sure path exists in the view, as a directory or a
// file: a path under the private temp dir or a mask is made there (it is
// not on the host, or not where the host has it); one the read-only tree
// lacks cannot be, and is an error. It returns the first component it
// made ("" if none).
func mountPoint(path string, dir bool) (string, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err == nil {
		if (st.Mode&syscall.S_IFMT == syscall.S_IFDIR) != dir {
			return "", errorString("is not of the kind it binds (a file over a directory, or the reverse)")
		}
		return "", nil
	}
	made, err := mkdirAll(parent(path))
	if err != nil {
		return "", err
	}
	if made == "" {
		made = path
	}
	if dir {
		if err := syscall.Mkdir(path, 0o755); err != nil && err != syscall.EEXIST {
			return "", err
		}
		return made, nil
	}
	fd, err := syscall.Open(path, syscall.O_CREAT|syscall.O_WRONLY|syscall.O_CLOEXEC, 0o644)
	if err != nil {
		return "", err
	}
	return made, syscall.Close(fd)
}

// mkdirAll makes path and its missing parents, and returns the first it
// made ("" if none).
func mkdirAll(path string) (string, error) {
	var st syscall.Stat_t
	if syscall.Stat(path, &st) == nil {
		return "", nil
	}
	var made string
	if p := parent(path); p != path {
		var err error
		if made, err = mkdirAll(p); err != nil {
			return "", err
		}
	}
	if err := syscall.Mkdir(path, 0o755); err != nil && err != syscall.EEXIST {
		return "", err
	}
	if made == "" {
		made = path
	}
	return made, nil
}

// readOnlySkeleton binds dir read-only over itself, with the mounts
// beneath it as they are: the directories made in the private /tmp to
// reach a workspace under the system temp dir are a skeleton a command
// cannot write into (a write to ../x from such a workspace is refused,
// not kept in a scratch copy of its parent).
func readOnlySkeleton(dir string) error {
	fd, err := cloneTree(dir, true)
	if err != nil {
		return err
	}
	if err := setAttr(fd, "", atEmptyPath, mountAttrRdonly); err != nil {
		syscall.Close(fd)
		return err
	}
	return attach(fd, dir)
}

// parent is path's directory ("/" for "/x" and "/").
func parent(path string) string {
	i := len(path) - 1
	for i > 0 && path[i] != '/' {
		i--
	}
	if i <= 0 {
		return "/"
	}
	return path[:i]
}

// makeDev mounts a fresh /dev: a small tmpfs holding the host's harmless
// devices (never a disk, which root could read and write through a
// read-only view) (bound from clones made before it covered them), the usual
// links, a private devpts and a private shm; then the tmpfs itself
// becomes read-only.
func makeDev(devs []string, clones []int) error {
	if err := syscall.Mount("tmpfs", "/dev", "tmpfs", syscall.MS_NOSUID|syscall.MS_NOEXEC, "mode=0755,size=64k"); err != nil {
		return err
	}
	for i, d := range devs {
		// The tmpfs is new and empty: the mount point is made at once
		// (one call, not mountPoint's look-ups).
		fd, err := syscall.Open("/dev/"+d, syscall.O_CREAT|syscall.O_EXCL|syscall.O_WRONLY|syscall.O_CLOEXEC, 0o644)
		if err != nil {
			return wrap(d, err)
		}
		syscall.Close(fd)
		if err := attach(clones[i], "/dev/"+d); err != nil {
			return wrap(d, err)
		}
	}
	for _, l := range [][2]string{
		{"/proc/self/fd", "/dev/fd"}, {"/proc/self/fd/0", "/dev/stdin"},
		{"/proc/self/fd/1", "/dev/stdout"}, {"/proc/self/fd/2", "/dev/stderr"},
		{"pts/ptmx", "/dev/ptmx"},
	} {
		if err := syscall.Symlink(l[0], l[1]); err != nil {
			return wrap(l[1], err)
		}
	}
	for _, d := range []string{"/dev/pts", "/dev/shm"} {
		if err := syscall.Mkdir(d, 0o755); err != nil {
			return wrap(d, err)
		}
	}
	if err := syscall.Mount("devpts", "/dev/pts", "devpts", syscall.MS_NOSUID|syscall.MS_NOEXEC, "newinstance,ptmxmode=0666,mode=620"); err != nil {
		return wrap("devpts", err)
	}
	if err := syscall.Mount("tmpfs", "/dev/shm", "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, "mode=1777"); err != nil {
		return wrap("shm", err)
	}
	return setAttr(atFdcwd, "/dev", 0, mountAttrRdonly)
}

// loopbackUp brings up lo in the new network namespace, so commands can
// talk to themselves (a test's local server) and to nothing else.
func loopbackUp() error {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return wrap("loopback", err)
	}
	defer syscall.Close(fd)
	var ifr [40]byte
	copy(ifr[:], "lo")
	if _, _, e := syscall.RawSyscall(sysIoctl, uintptr(fd), syscall.SIOCGIFFLAGS, uintptr(unsafe.Pointer(&ifr[0]))); e != 0 {
		return wrap("loopback flags", e)
	}
	flags := (*uint16)(unsafe.Pointer(&ifr[16]))
	*flags |= syscall.IFF_UP | syscall.IFF_RUNNING
	if _, _, e := syscall.RawSyscall(sysIoctl, uintptr(fd), syscall.SIOCSIFFLAGS, uintptr(unsafe.Pointer(&ifr[0]))); e != 0 {
		return wrap("loopback up", e)
	}
	return nil
}

// probe builds a scratch view with every kind of step buildView takes
// (private mounts, a clone made read-only and attached, the root made
// read-only, tmpfs, devpts, proc, loopback) and reports the first that
// fails. The parent runs it once, in the namespaces a command would get,
// to choose between the view and the Landlock mechanism.
func probe() error {
	s := &Spec{Mechanism: View, Ops: []Op{{Kind: Hide, Path: "/tmp"}}}
	if err := buildView(s); err != nil {
		return err
	}
	fd, err := cloneTree("/proc", false)
	if err != nil {
		return wrap("clone", err)
	}
	if err := setAttr(fd, "", atEmptyPath, mountAttrRdonly); err != nil {
		return wrap("mount_setattr", err)
	}
	return wrap("move_mount", attach(fd, "/tmp"))
}
