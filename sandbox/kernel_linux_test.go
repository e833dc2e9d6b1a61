package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/yagent/yagent/sandbox/helper"
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
		// At ABI 4, the first with TCP rules, as at this kernel's.
		p := b.policy(t, WorkspaceWrite)
		p.ABI = func() int { return 4 }
		if out, ok := try(p); ok || !strings.Contains(out, "permission denied") {
			t.Errorf("at Landlock ABI 4, an inherited socket connected out: ok = %v, %q", ok, out)
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

// With cgo the C helper (helper/nsexec.c) takes every helper command —
// a command under each mechanism, and the probe — before Go's runtime
// starts: the Go helper, told to refuse (helper.NoGoHelper), never gets
// one. Without cgo the Go helper refuses as told, so this test can fail.
// Whether cgo is on comes from the build's own record, not from the build
// tags that choose the C helper: a C helper left out of a cgo build fails
// here instead of falling back to the Go one unseen.
func TestCHelperTakesCommands(t *testing.T) {
	cgo := false
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "CGO_ENABLED" {
				cgo = s.Value == "1"
			}
		}
	}
	if helper.CHelper() != cgo {
		t.Fatalf("cgo: %v; the C helper built: %v", cgo, helper.CHelper())
	}
	eachMechanism(t, func(t *testing.T, mech Mechanism) {
		b := newBox(t, mech)
		p := b.policy(t, WorkspaceWrite)
		cmd, err := p.Command(childCtx(t), b.ws, "sh", "-c", "echo ran")
		if err != nil {
			t.Fatal(err)
		}
		cmd.Env = append(cmd.Env, helper.NoGoHelper+"=1")
		out, err := cmd.CombinedOutput()
		if cgo && (err != nil || string(out) != "ran\n") {
			t.Errorf("the C helper did not take the command: %v, %q", err, out)
		}
		if !cgo && (err == nil || !strings.Contains(string(out), "the Go helper refuses to run")) {
			t.Errorf("the Go helper ran although told to refuse: %v, %q", err, out)
		}
	})
	t.Run("probe", func(t *testing.T) {
		needView(t)
		spec := helper.Spec{Mechanism: helper.Probe}
		cmd := exec.Command(selfExe, spec.Args()...)
		cmd.SysProcAttr = nsAttr()
		cmd.Env = []string{helper.NoGoHelper + "=1"}
		out, err := cmd.CombinedOutput()
		if cgo != (err == nil) {
			t.Errorf("probe with the Go helper refused (cgo %v): %v, %q", cgo, err, out)
		}
	})
}

// The helper finds a command as a shell does (the first executable
// regular file in PATH, an empty entry — or an empty PATH — for the
// current directory), says
// which it could not find (127) or run (126).
func TestHelperLooksUpCommands(t *testing.T) {
	eachMechanism(t, func(t *testing.T, mech Mechanism) {
		b := newBox(t, mech)
		p := b.policy(t, WorkspaceWrite)
		a, bin := filepath.Join(b.ws, "a"), filepath.Join(b.ws, "b")
		mustMkdir(t, a)
		mustMkdir(t, bin)
		mustWrite(t, filepath.Join(a, "tool"), "#!/bin/sh\necho a\n") // not executable
		for _, f := range []string{filepath.Join(bin, "tool"), filepath.Join(b.ws, "here")} {
			if err := os.WriteFile(f, []byte("#!/bin/sh\necho "+filepath.Base(filepath.Dir(f))+"\n"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		for _, c := range []struct {
			argv []string
			path string
			want string
			code int
		}{
			{[]string{"tool"}, a + ":" + bin, "b\n", 0},
			{[]string{"here"}, a + "::" + bin, filepath.Base(b.ws) + "\n", 0},
			{[]string{"here"}, "", filepath.Base(b.ws) + "\n", 0}, // PATH= is the current directory
			{[]string{"tool"}, a, "yagent sandbox: tool: command not found\n", 127},
			{[]string{"./src"}, a, "yagent sandbox: exec ./src: permission denied\n", 126},
		} {
			cmd, err := p.Command(childCtx(t), b.ws, c.argv...)
			if err != nil {
				t.Fatal(err)
			}
			cmd.Env = append(cmd.Env, "PATH="+c.path)
			out, err := cmd.CombinedOutput()
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			}
			if string(out) != c.want || code != c.code {
				t.Errorf("%q with PATH=%s: %q, exit %d; want %q, exit %d", c.argv, c.path, out, code, c.want, c.code)
			}
		}
	})
}

// The helper reads its arguments as helper.Parse does and refuses what
// Parse refuses, with Parse's words (exit 126): the C helper and the Go
// one take the same spec.
func TestHelperParsesAsParse(t *testing.T) {
	needSandbox(t)
	for _, a := range [][]string{
		{"-m", "view", "--"},
		{"--", "sh"},
		{"-m", "bogus", "--", "sh"},
		{"-m", "view", "-abi", "x", "--", "sh"},
		{"-m", "view", "-abi", "1234567890", "--", "sh"},
		{"-m", "view", "-rw", "rel", "--", "sh"},
		{"-m", "view", "-rw", "", "--", "sh"},
		{"-m", "view", "-bind", "/a", "--", "sh"},
		{"-m", "view", "-bind", "/a", "rel", "--", "sh"},
		{"-m", "view", "-nope", "/a", "--", "sh"},
		{"-m", "view", "-rw"},
		{"-m", "view", "sh"},
		{"-m", "view"},
		{"-m", "landlock", "-bpf", "", "--", "sh"},
		{"-m", "landlock", "-bpf", "0011", "--", "sh"},
		{"-m", "landlock", "-bpf", "00112233445566GG", "--", "sh"},
		{"-m", "landlock", "-bpf", "00112233445566AA", "--", "sh"},
		{"-m", "landlock", "-bpf", strings.Repeat("0", 16*1025), "--", "sh"},
	} {
		_, perr := helper.Parse(a)
		if perr == nil {
			t.Fatalf("Parse(%q) accepted", a)
		}
		cmd := exec.Command(selfExe, append([]string{helper.Arg}, a...)...)
		cmd.Env = []string{}
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if want := "yagent sandbox: bad helper arguments: " + perr.Error() + "\n"; !errors.As(err, &ee) || ee.ExitCode() != 126 || string(out) != want {
			t.Errorf("helper %q: %v, %q; want exit 126, %q", a, err, out, want)
		}
	}
}

// A spec without its seccomp program (-bpf) never runs the command.
func TestHelperNeedsFilter(t *testing.T) {
	eachMechanism(t, func(t *testing.T, mech Mechanism) {
		b := newBox(t, mech)
		p := b.policy(t, WorkspaceWrite)
		cmd, err := p.Command(childCtx(t), b.ws, "sh", "-c", "echo ran")
		if err != nil {
			t.Fatal(err)
		}
		i := slices.Index(cmd.Args, "-bpf")
		if i < 0 {
			t.Fatalf("no -bpf in %q", cmd.Args)
		}
		cmd.Args = slices.Delete(cmd.Args, i, i+2)
		out, err := cmd.CombinedOutput()
		if err == nil || strings.Contains(string(out), "ran") || !strings.Contains(string(out), "seccomp: no program given") {
			t.Errorf("no seccomp program: %v, %q; want a refusal", err, out)
		}
	})
}
