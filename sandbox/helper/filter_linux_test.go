//go:build linux && (amd64 || arm64 || riscv64)

package helper

import "testing"

// The filter assembles (every jump within reach) for both variants, and
// refuses what it names: checked here by running the program on the
// system calls it must judge.
func TestFilter(t *testing.T) {
	for _, inet := range []bool{false, true} {
		prog, err := filter(inet)
		if err != nil {
			t.Fatalf("inet=%v: %v", inet, err)
		}
		eval := func(nr uint32, args ...uint64) uint32 {
			var data [64]byte
			put32 := func(off int, v uint32) {
				data[off], data[off+1], data[off+2], data[off+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
			}
			put32(offNr, nr)
			put32(offArch, auditArch)
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
		const eperm, eacces = retErrno | 1, retErrno | 13
		inetWant := uint32(eacces)
		if inet {
			inetWant = retAllow
		}
		for _, c := range []struct {
			name string
			nr   uint32
			args []uint64
			want uint32
		}{
			{"read", 0, nil, retAllow},
			{"socket unix", sysSocket, []uint64{afUnix}, retAllow},
			{"socket inet", sysSocket, []uint64{afInet}, inetWant},
			{"socket inet6", sysSocket, []uint64{afInet6}, inetWant},
			{"socket packet", sysSocket, []uint64{17}, eacces},
			{"socket vsock", sysSocket, []uint64{40}, eacces},
			{"socket netlink route", sysSocket, []uint64{afNetlink, 3, 0}, retAllow},
			{"socket netlink audit", sysSocket, []uint64{afNetlink, 3, 9}, eacces},
			{"socketpair inet", sysSocketpair, []uint64{afInet}, eacces},
			{"unshare user", sysUnshare, []uint64{cloneNewUser}, eperm},
			{"unshare fs", sysUnshare, []uint64{0x200}, retAllow},
			{"clone user", sysClone, []uint64{cloneNewUser | 17}, eperm},
			{"clone thread", sysClone, []uint64{0x3d0f00}, retAllow},
			{"clone3", sysClone3, nil, retErrno | 38},
			{"mount", sysMount, nil, eperm},
			{"io_uring_setup", sysIoUringSetup, nil, eperm},
			{"ioctl TIOCSTI", sysIoctl, []uint64{0, tiocsti}, eperm},
			{"ioctl TIOCSTI, high bits", sysIoctl, []uint64{0, 1<<32 | tiocsti}, eperm},
			{"ioctl TCGETS", sysIoctl, []uint64{0, 0x5401}, retAllow},
			{"ptrace", sysPtrace, nil, eperm},
		} {
			if got := eval(c.nr, c.args...); got != c.want {
				t.Errorf("inet=%v %s: %#x; want %#x", inet, c.name, got, c.want)
			}
		}
		if x32Bit != 0 {
			if got := eval(x32Bit | 1); got != eperm {
				t.Errorf("x32 call: %#x; want EPERM", got)
			}
		}
	}
}
