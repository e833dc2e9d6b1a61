//go:build linux && (amd64 || arm64 || riscv64)

package helper

import (
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// The filter assembles (every jump within reach) for both variants, and
// refuses what it names: checked here by running the program on the
// system calls it must judge, numbered by x/sys/unix (so a number wrong
// in sys_*.go, or a refusal dropped, shows): every call it refuses, each
// socket family, another architecture and the x32 ABI. The real calls,
// from inside the sandbox: TestSyscallsRefused (sandbox/view_test.go).
func TestFilter(t *testing.T) {
	for _, inet := range []bool{false, true} {
		prog, err := filter(inet)
		if err != nil {
			t.Fatalf("inet=%v: %v", inet, err)
		}
		eval := func(arch, nr uint32, args ...uint64) uint32 {
			var data [64]byte
			put32 := func(off int, v uint32) {
				data[off], data[off+1], data[off+2], data[off+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
			}
			put32(offNr, nr)
			put32(offArch, arch)
			for i, a := range args {
				put32(offArg0+8*i, uint32(a))
				put32(offArg0+8*i+4, uint32(a>>32))
			}
			var acc uint32
			for pc := 0; pc < len(prog); pc++ {
				ins := prog[pc]
				switch ins.code {
				case bpfLdW:
					o := ins.k
					acc = uint32(data[o]) | uint32(data[o+1])<<8 | uint32(data[o+2])<<16 | uint32(data[o+3])<<24
				case bpfJeq, bpfJge, bpfJset:
					var ok bool
					switch ins.code {
					case bpfJeq:
						ok = acc == ins.k
					case bpfJge:
						ok = acc >= ins.k
					default:
						ok = acc&ins.k != 0
					}
					if ok {
						pc += int(ins.jt)
					} else {
						pc += int(ins.jf)
					}
				case bpfRet:
					return ins.k
				default:
					t.Fatalf("unknown instruction %#x", ins.code)
				}
			}
			t.Fatal("fell off the program")
			return 0
		}
		const eperm, eacces, enosys = retErrno | 1, retErrno | 13, retErrno | 38
		inetWant := uint32(eacces)
		if inet {
			inetWant = retAllow
		}
		// The numbers come from x/sys/unix, not from this package: a
		// wrong number here, or one dropped from the filter, shows.
		cases := []struct {
			name string
			nr   uint32
			args []uint64
			want uint32
		}{
			{"read", unix.SYS_READ, nil, retAllow},
			{"getpid", unix.SYS_GETPID, nil, retAllow},
			{"socket unix", unix.SYS_SOCKET, []uint64{unix.AF_UNIX}, retAllow},
			{"socket inet", unix.SYS_SOCKET, []uint64{unix.AF_INET}, inetWant},
			{"socket inet6", unix.SYS_SOCKET, []uint64{unix.AF_INET6}, inetWant},
			{"socket inet6, high bits", unix.SYS_SOCKET, []uint64{1<<32 | unix.AF_INET6}, inetWant},
			{"socket packet", unix.SYS_SOCKET, []uint64{unix.AF_PACKET}, eacces},
			{"socket vsock", unix.SYS_SOCKET, []uint64{unix.AF_VSOCK}, eacces},
			{"socket bluetooth", unix.SYS_SOCKET, []uint64{unix.AF_BLUETOOTH}, eacces},
			{"socket netlink route", unix.SYS_SOCKET, []uint64{unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_ROUTE}, retAllow},
			{"socket netlink audit", unix.SYS_SOCKET, []uint64{unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_AUDIT}, eacces},
			{"socket netlink generic", unix.SYS_SOCKET, []uint64{unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_GENERIC}, eacces},
			{"socketpair unix", unix.SYS_SOCKETPAIR, []uint64{unix.AF_UNIX}, retAllow},
			{"socketpair inet", unix.SYS_SOCKETPAIR, []uint64{unix.AF_INET}, eacces},
			{"socketpair netlink", unix.SYS_SOCKETPAIR, []uint64{unix.AF_NETLINK, 0, unix.NETLINK_ROUTE}, eacces},
			{"unshare user", unix.SYS_UNSHARE, []uint64{unix.CLONE_NEWUSER}, eperm},
			{"unshare user and mount", unix.SYS_UNSHARE, []uint64{unix.CLONE_NEWUSER | unix.CLONE_NEWNS}, eperm},
			{"unshare fs", unix.SYS_UNSHARE, []uint64{unix.CLONE_FS}, retAllow},
			{"clone user", unix.SYS_CLONE, []uint64{unix.CLONE_NEWUSER | uint64(unix.SIGCHLD)}, eperm},
			{"clone thread", unix.SYS_CLONE, []uint64{0x3d0f00}, retAllow},
			{"clone3", unix.SYS_CLONE3, nil, enosys},
			{"ioctl TIOCSTI", unix.SYS_IOCTL, []uint64{0, unix.TIOCSTI}, eperm},
			{"ioctl TIOCSTI, high bits", unix.SYS_IOCTL, []uint64{0, 1<<32 | unix.TIOCSTI}, eperm},
			{"ioctl TIOCLINUX", unix.SYS_IOCTL, []uint64{0, unix.TIOCLINUX}, eperm},
			{"ioctl TCGETS", unix.SYS_IOCTL, []uint64{0, unix.TCGETS}, retAllow},
			{"ioctl TIOCGWINSZ", unix.SYS_IOCTL, []uint64{0, unix.TIOCGWINSZ}, retAllow},
		}
		for _, c := range []struct {
			name string
			nr   uint32
		}{
			{"io_uring_setup", unix.SYS_IO_URING_SETUP}, {"io_uring_enter", unix.SYS_IO_URING_ENTER},
			{"io_uring_register", unix.SYS_IO_URING_REGISTER},
			{"mount", unix.SYS_MOUNT}, {"umount2", unix.SYS_UMOUNT2}, {"pivot_root", unix.SYS_PIVOT_ROOT},
			{"open_tree", unix.SYS_OPEN_TREE}, {"open_tree_attr", unix.SYS_OPEN_TREE_ATTR},
			{"move_mount", unix.SYS_MOVE_MOUNT}, {"fsopen", unix.SYS_FSOPEN}, {"fsconfig", unix.SYS_FSCONFIG},
			{"fsmount", unix.SYS_FSMOUNT}, {"fspick", unix.SYS_FSPICK}, {"mount_setattr", unix.SYS_MOUNT_SETATTR},
			{"ptrace", unix.SYS_PTRACE}, {"bpf", unix.SYS_BPF}, {"keyctl", unix.SYS_KEYCTL},
			{"add_key", unix.SYS_ADD_KEY}, {"request_key", unix.SYS_REQUEST_KEY},
			{"perf_event_open", unix.SYS_PERF_EVENT_OPEN}, {"userfaultfd", unix.SYS_USERFAULTFD},
			{"setns", unix.SYS_SETNS}, {"chroot", unix.SYS_CHROOT}, {"init_module", unix.SYS_INIT_MODULE},
			{"finit_module", unix.SYS_FINIT_MODULE}, {"delete_module", unix.SYS_DELETE_MODULE},
			{"kexec_load", unix.SYS_KEXEC_LOAD}, {"kexec_file_load", unix.SYS_KEXEC_FILE_LOAD},
			{"open_by_handle_at", unix.SYS_OPEN_BY_HANDLE_AT}, {"swapon", unix.SYS_SWAPON},
			{"reboot", unix.SYS_REBOOT},
		} {
			cases = append(cases, struct {
				name string
				nr   uint32
				args []uint64
				want uint32
			}{c.name, c.nr, nil, eperm})
		}
		for _, c := range cases {
			if got := eval(auditArch, c.nr, c.args...); got != c.want {
				t.Errorf("inet=%v %s: %#x; want %#x", inet, c.name, got, c.want)
			}
		}
		// Another architecture's calls (i386 through int 0x80 on amd64,
		// arm's on arm64) are refused, whatever their number.
		for _, nr := range []uint32{0, 3, unix.SYS_GETPID} {
			if got := eval(unix.AUDIT_ARCH_I386, nr); got != eperm {
				t.Errorf("inet=%v: i386 call %d: %#x; want EPERM", inet, nr, got)
			}
		}
		// The x32 ABI shares amd64's audit arch; its calls carry bit 30.
		if runtime.GOARCH == "amd64" {
			for _, nr := range []uint32{unix.SYS_READ, unix.SYS_GETPID, unix.SYS_SOCKET, 512, 0x3fffffff} {
				if got := eval(auditArch, 0x40000000|nr); got != eperm {
					t.Errorf("inet=%v: x32 call %d: %#x; want EPERM", inet, nr, got)
				}
			}
		}
	}
}

// A jump reaches as far as BPF lets it (255 instructions forward, its
// offset counted from the next instruction) and no farther; a jump back
// or to an unknown label is refused. filter's own jumps are all shorter,
// so only this test sees the bounds.
func TestJumpReach(t *testing.T) {
	prog := func(skip int, label string) ([]sockFilter, error) {
		a := &asm{labels: map[string]int{}}
		a.ld(offNr)
		a.label("back")
		a.jump(bpfJeq, 1, label, "")
		for range skip {
			a.ret(retAllow)
		}
		a.label("there")
		a.ret(retErrno)
		return a.link()
	}
	for _, skip := range []int{0, 1, 255} {
		p, err := prog(skip, "there")
		if err != nil {
			t.Fatalf("a jump over %d instructions: %v", skip, err)
		}
		if got := p[1].jt; int(got) != skip {
			t.Errorf("a jump over %d instructions: offset %d", skip, got)
		}
		if p[1].jf != 0 {
			t.Errorf("a jump to the next instruction: offset %d", p[1].jf)
		}
	}
	for _, c := range []struct {
		skip  int
		label string
	}{{256, "there"}, {0, "back"}, {0, "nowhere"}} {
		if _, err := prog(c.skip, c.label); err == nil {
			t.Errorf("a jump to %q over %d instructions: linked", c.label, c.skip)
		}
	}
}
