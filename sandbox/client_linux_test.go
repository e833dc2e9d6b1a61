package sandbox

import (
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// netClient does one operation inside the sandbox and reports its error:
//
//	tcp|mptcp ADDR   connect          udp ADDR     send a datagram
//	listen           listen on 127.0.0.1:0
//	loopback[6]      serve on 127.0.0.1 (::1) and talk to itself
//	abstract NAME    connect to the abstract Unix socket @NAME
//	abstract-self    serve an abstract Unix socket and connect to it
//	socket FAMILY    create a socket: packet, vsock, netlink-route, netlink-audit
//	syscall NAME     (each harmless where it succeeds) unshare-user, clone-user, mount, chroot, sethostname,
//	                 settimeofday, io_uring, io_uring_enter, io_uring_register,
//	                 ptrace, bpf, keyctl, tiocsti, x32 (getpid through the
//	                 x32 ABI: amd64's number | 0x40000000), rndgetentcnt
//	                 (a device's own ioctl, on /dev/urandom)
//	truncate PATH    truncate(2) PATH to nothing (no open for writing)
//	securebits       print the securebits (prctl PR_GET_SECUREBITS)
//	shm ID           attach the System V shared memory segment ID
//	connect-fd3 ADDR connect the inherited socket fd 3 to ADDR (IPv4)
func netClient(spec string) error {
	kind, arg, _ := strings.Cut(spec, " ")
	switch kind {
	case "tcp", "mptcp":
		var d net.Dialer
		d.Timeout = 5 * time.Second
		d.SetMultipathTCP(kind == "mptcp")
		c, err := d.Dial("tcp", arg)
		if err != nil {
			return err
		}
		return c.Close()
	case "udp":
		c, err := net.Dial("udp", arg)
		if err != nil {
			return err
		}
		defer c.Close()
		_, err = c.Write([]byte("ping"))
		return err
	case "listen":
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		return l.Close()
	case "loopback", "loopback6":
		addr := "127.0.0.1:0"
		if kind == "loopback6" {
			addr = "[::1]:0"
		}
		l, err := net.Listen("tcp", addr)
		if err != nil {
			return err
		}
		defer l.Close()
		go func() {
			c, err := l.Accept()
			if err == nil {
				c.Write([]byte("pong"))
				c.Close()
			}
		}()
		c, err := net.DialTimeout("tcp", l.Addr().String(), 5*time.Second)
		if err != nil {
			return err
		}
		defer c.Close()
		b, err := io.ReadAll(c)
		if err != nil || string(b) != "pong" {
			return fmt.Errorf("loopback answered %q, %v", b, err)
		}
		return nil
	case "unix":
		c, err := net.DialTimeout("unix", arg, 5*time.Second)
		if err != nil {
			return err
		}
		return c.Close()
	case "abstract":
		c, err := net.Dial("unix", "@"+arg)
		if err != nil {
			return err
		}
		return c.Close()
	case "abstract-self":
		l, err := net.Listen("unix", fmt.Sprintf("@yagent-sandbox-self-%d", os.Getpid()))
		if err != nil {
			return err
		}
		defer l.Close()
		go func() {
			if c, err := l.Accept(); err == nil {
				c.Close()
			}
		}()
		c, err := net.DialTimeout("unix", l.Addr().String(), 5*time.Second)
		if err != nil {
			return err
		}
		return c.Close()
	case "socket":
		family, proto := map[string][2]int{
			"packet":        {unix.AF_PACKET, 0},
			"vsock":         {unix.AF_VSOCK, 0},
			"netlink-route": {unix.AF_NETLINK, unix.NETLINK_ROUTE},
			"netlink-audit": {unix.AF_NETLINK, unix.NETLINK_AUDIT},
		}[arg][0], map[string]int{"netlink-route": unix.NETLINK_ROUTE, "netlink-audit": unix.NETLINK_AUDIT}[arg]
		typ := unix.SOCK_RAW
		if arg == "vsock" {
			typ = unix.SOCK_STREAM
		}
		fd, err := unix.Socket(family, typ, proto)
		if err != nil {
			return fmt.Errorf("socket %s: %w", arg, err)
		}
		return unix.Close(fd)
	case "syscall":
		return trySyscall(arg)
	case "truncate":
		return unix.Truncate(arg, 0)
	case "securebits":
		bits, err := unix.PrctlRetInt(unix.PR_GET_SECUREBITS, 0, 0, 0, 0)
		if err != nil {
			return err
		}
		fmt.Printf("securebits %#x\n", bits)
		return nil
	case "connect-fd3":
		ap, err := netip.ParseAddrPort(arg)
		if err != nil {
			return err
		}
		return unix.Connect(3, &unix.SockaddrInet4{Port: int(ap.Port()), Addr: ap.Addr().As4()})
	case "shm":
		id, err := strconv.Atoi(arg)
		if err != nil {
			return err
		}
		addr, err := unix.SysvShmAttach(id, 0, unix.SHM_RDONLY)
		if err != nil {
			return err
		}
		return unix.SysvShmDetach(addr)
	}
	return fmt.Errorf("SANDBOXTEST_NET %q", spec)
}

func trySyscall(name string) error {
	runtime.LockOSThread()
	switch name {
	case "unshare-user":
		return unix.Unshare(unix.CLONE_NEWUSER)
	case "clone-user":
		_, _, e := unix.RawSyscall6(unix.SYS_CLONE, unix.CLONE_NEWUSER|uintptr(unix.SIGCHLD), 0, 0, 0, 0, 0)
		if e != 0 {
			return e
		}
		return nil // (the child, if any, returns here too and exits with it)
	// Each probe is harmless where it succeeds (a sandbox broken on
	// purpose, as mutation testing breaks it, run by root): what it
	// changes is the test's own, or set back as it was.
	case "mount":
		wd, err := os.Getwd()
		if err != nil {
			return err
		}
		if err := unix.Mount("tmpfs", wd, "tmpfs", 0, "size=4k"); err != nil {
			return err
		}
		unix.Unmount(wd, unix.MNT_DETACH)
		return nil
	case "chroot":
		return unix.Chroot("/")
	case "sethostname":
		name, err := os.Hostname()
		if err != nil {
			return err
		}
		return unix.Sethostname([]byte(name))
	case "settimeofday":
		// The time it is (a few microseconds behind, at worst).
		tv := unix.NsecToTimeval(time.Now().UnixNano())
		return unix.Settimeofday(&tv)
	case "io_uring":
		var params [120]byte
		_, _, e := unix.RawSyscall(unix.SYS_IO_URING_SETUP, 4, uintptr(unsafe.Pointer(&params[0])), 0)
		if e != 0 {
			return e
		}
		return nil
	case "io_uring_enter", "io_uring_register":
		// On no ring (fd -1): EBADF when the kernel sees the call at all.
		nr := uintptr(unix.SYS_IO_URING_ENTER)
		if name == "io_uring_register" {
			nr = unix.SYS_IO_URING_REGISTER
		}
		if _, _, e := unix.RawSyscall6(nr, ^uintptr(0), 0, 0, 0, 0, 0); e != 0 {
			return e
		}
		return nil
	case "x32":
		if runtime.GOARCH != "amd64" {
			return fmt.Errorf("no x32 ABI on %s", runtime.GOARCH)
		}
		// The kernel answers ENOSYS where it was built without x32, a pid
		// where it has it; only the sandbox's filter says EPERM.
		const x32Bit = 0x40000000
		_, _, e := unix.RawSyscall(x32Bit|unix.SYS_GETPID, 0, 0, 0)
		if e != 0 {
			return e
		}
		return nil
	case "rndgetentcnt":
		f, err := os.Open("/dev/urandom")
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = unix.IoctlGetInt(int(f.Fd()), unix.RNDGETENTCNT)
		return err
	case "ptrace":
		// Its own child, which ptrace may always reach but for the
		// filter (and Yama's strictest modes).
		child := exec.Command("sleep", "5")
		if err := child.Start(); err != nil {
			return err
		}
		defer func() { child.Process.Kill(); child.Wait() }()
		if err := unix.PtraceAttach(child.Process.Pid); err != nil {
			return err
		}
		unix.PtraceDetach(child.Process.Pid)
		return nil
	case "bpf":
		_, _, e := unix.RawSyscall(unix.SYS_BPF, 0, 0, 0)
		if e != 0 {
			return e
		}
		return nil
	case "keyctl":
		_, err := unix.KeyctlInt(unix.KEYCTL_GET_KEYRING_ID, unix.KEY_SPEC_USER_KEYRING, 0, 0, 0)
		return err
	case "tiocsti":
		f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
		if err != nil {
			return unix.IoctlSetPointerInt(1, unix.TIOCSTI, 'x')
		}
		defer f.Close()
		return unix.IoctlSetPointerInt(int(f.Fd()), unix.TIOCSTI, 'x')
	}
	return fmt.Errorf("syscall %q", name)
}

// refuseUserNamespaces installs on every thread of this process a seccomp
// filter that refuses new user namespaces (clone, unshare: EPERM; clone3:
// ENOSYS), as a kernel or a distribution restricting them would: the
// sandbox must then fall back to Landlock alone.
func refuseUserNamespaces() error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return err
	}
	var arch uint32
	switch runtime.GOARCH {
	case "amd64":
		arch = unix.AUDIT_ARCH_X86_64
	case "arm64":
		arch = unix.AUDIT_ARCH_AARCH64
	default:
		return fmt.Errorf("no filter for %s", runtime.GOARCH)
	}
	const (
		ld   = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq  = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		jset = unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K
		ret  = unix.BPF_RET | unix.BPF_K
	)
	f := []unix.SockFilter{
		{Code: ld, K: 4}, // arch
		{Code: jeq, K: arch, Jt: 0, Jf: 7},
		{Code: ld, K: 0}, // nr
		{Code: jeq, K: uint32(unix.SYS_CLONE3), Jt: 7, Jf: 0},
		{Code: jeq, K: uint32(unix.SYS_CLONE), Jt: 1, Jf: 0},
		{Code: jeq, K: uint32(unix.SYS_UNSHARE), Jt: 0, Jf: 3},
		{Code: ld, K: 16}, // flags
		{Code: jset, K: unix.CLONE_NEWUSER, Jt: 2, Jf: 1},
		{Code: ret, K: unix.SECCOMP_RET_ALLOW},
		{Code: ret, K: unix.SECCOMP_RET_ALLOW},
		{Code: ret, K: unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)},
		{Code: ret, K: unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)},
	}
	prog := unix.SockFprog{Len: uint16(len(f)), Filter: &f[0]}
	_, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&prog)))
	runtime.KeepAlive(f)
	if e != 0 {
		return e
	}
	return nil
}
