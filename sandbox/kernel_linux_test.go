package sandbox

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// A view has its own System V IPC: a segment made outside is not there.
func TestIPCNamespace(t *testing.T) {
	needView(t)
	id, err := unix.SysvShmGet(unix.IPC_PRIVATE, 4096, unix.IPC_CREAT|0o666)
	if err != nil {
		t.Skipf("no System V shared memory here: %v", err)
	}
	defer unix.SysvShmCtl(id, unix.IPC_RMID, nil)
	b := newBox(t, View)
	p := b.policy(t, WorkspaceWrite)
	if out, ok := tryNet(t, b.policy(t, Off), b.ws, fmt.Sprint("shm ", id)); !ok {
		t.Fatalf("the segment cannot be attached unconfined either: %q", out)
	}
	if out, ok := tryNet(t, p, b.ws, fmt.Sprint("shm ", id)); ok {
		t.Errorf("a confined command attached the segment %d made outside: %q", id, out)
	}
}

// Under Landlock alone an IP socket the command did not make itself (one
// it inherited) cannot connect either: Landlock refuses TCP connect and
// bind, behind the filter that refuses new IP sockets.
func TestInheritedSocket(t *testing.T) {
	host := listenOnHost(t)
	eachMechanism(t, func(t *testing.T, mech Mechanism) {
		if mech != LandlockOnly {
			t.Skip("a view's commands get no socket of the host's network namespace")
		}
		b := newBox(t, mech)
		try := func(p *Policy) (string, bool) {
			fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
			if err != nil {
				t.Fatal(err)
			}
			f := os.NewFile(uintptr(fd), "socket")
			defer f.Close()
			p.Env = []string{"SANDBOXTEST_NET"}
			cmd, err := p.Command(childCtx(t), b.ws, client(t))
			if err != nil {
				t.Fatal(err)
			}
			cmd.Env = append(cmd.Env, "SANDBOXTEST_NET=connect-fd3 "+host.tcp[0])
			cmd.ExtraFiles = []*os.File{f}
			out, err := cmd.CombinedOutput()
			return string(out), err == nil
		}
		if out, ok := try(b.policy(t, Off)); !ok {
			t.Fatalf("unconfined, the inherited socket does not connect: %q", out)
		}
		host.reached()
		if out, ok := try(b.policy(t, WorkspaceWrite)); ok || !strings.Contains(out, "permission denied") {
			t.Errorf("an inherited socket connected out: ok = %v, %q", ok, out)
		}
		if got := host.reached(); len(got) > 0 {
			t.Errorf("reached the host: %q", got)
		}
	})
}
