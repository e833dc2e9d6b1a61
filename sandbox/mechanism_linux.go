package sandbox

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"

	"github.com/yagent/yagent/sandbox/helper"
)

// Namespaces a command gets: its own user (to be root over the rest, and
// nothing outside), mount (the view), pid (it sees its own processes),
// ipc and network (its own loopback, nothing else).
const nsFlags = syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID | syscall.CLONE_NEWIPC | syscall.CLONE_NEWNET

// Capabilities an unprivileged person's helper keeps through its exec
// (ambient) to build the view: mounts, loopback, and dropping the bounding
// set. Root's helper is root in its namespace and has them all.
const (
	capSetpcap  = 8
	capNetAdmin = 12
	capSysAdmin = 21
)

// nsAttr is how the helper is started in namespaces of its own. The
// namespaces are made at fork (Go cannot unshare a user namespace in a
// running, threaded process); the helper mounts in them.
func nsAttr() *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Cloneflags: nsFlags, Setpgid: true}
	uid, gid := os.Getuid(), os.Getgid()
	if uid == 0 {
		// Every id as it is, so files keep their owners; the helper
		// drops every capability before the command runs.
		a.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1<<32 - 1}}
		a.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1<<32 - 1}}
		a.GidMappingsEnableSetgroups = true
		return a
	}
	a.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
	a.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
	a.AmbientCaps = []uintptr{capSetpcap, capNetAdmin, capSysAdmin}
	return a
}

// probeNamespaces reports, once per process, whether a helper in
// namespaces of its own can build a view: the kernel may refuse user
// namespaces (user.max_user_namespaces, kernel.unprivileged_userns_clone),
// or let one be made with no power in it (Ubuntu's AppArmor restriction).
// The probe takes every step a view takes, so either may show.
var probeNamespaces = sync.OnceValue(func() error { return probeView(nsAttr()) })

// probeView runs the helper's probe in the namespaces attr makes.
func probeView(attr *syscall.SysProcAttr) error {
	spec := helper.Spec{Mechanism: helper.Probe}
	cmd := exec.Command(selfExe, spec.Args()...)
	cmd.Args[0] = "yagent"
	cmd.SysProcAttr = attr
	cmd.Env = []string{}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(stderr.String()), "yagent sandbox: "))
		if msg == "" {
			msg = err.Error()
		}
		return errors.New(msg)
	}
	return nil
}

// selfExe names the running image of this process: the kernel resolves it
// to the file this process was started from even after that file was
// replaced or removed.
const selfExe = "/proc/self/exe"
