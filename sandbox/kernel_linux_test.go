package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
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

// removeTree's fallback (os.RemoveAll failed: a command took the owner's
// rights from a directory, or made an entry immutable) gives rights back
// to directories only: a symbolic link the command left in its temp dir is
// not followed, so nothing outside (here a file of the user's) changes
// mode. Root reaches the fallback through an immutable directory.
func TestRemoveTreeFollowsNoLink(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the immutable attribute needs root")
	}
	dir, outside := t.TempDir(), filepath.Join(t.TempDir(), "mine")
	if err := os.WriteFile(outside, nil, 0o640); err != nil {
		t.Fatal(err)
	}
	// The link sits in the immutable directory: what RemoveAll could
	// remove is gone before the fallback looks.
	stuck := filepath.Join(dir, "stuck")
	if err := os.MkdirAll(filepath.Join(stuck, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(stuck, "link")); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(stuck)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	flags, err := unix.IoctlGetInt(int(f.Fd()), unix.FS_IOC_GETFLAGS)
	if err == nil {
		err = unix.IoctlSetPointerInt(int(f.Fd()), unix.FS_IOC_SETFLAGS, flags|0x10) // FS_IMMUTABLE_FL
	}
	if err != nil {
		t.Skipf("cannot make %s immutable here: %v", stuck, err)
	}
	defer unix.IoctlSetPointerInt(int(f.Fd()), unix.FS_IOC_SETFLAGS, flags)
	if err := removeTree(dir); err == nil {
		t.Fatal("removeTree removed an immutable directory: the fallback was not reached")
	}
	if fi, err := os.Stat(outside); err != nil {
		t.Fatal(err)
	} else if fi.Mode().Perm() != 0o640 {
		t.Errorf("the link's target outside is %v; want 0640, unchanged", fi.Mode().Perm())
	}
}
