package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// A view's probe (a helper started in namespaces of its own, taking every
// step a view takes) is most of what a run pays for its sandbox before the
// first request. Its success is remembered under $YAGENT_HOME, keyed by
// everything the answer depends on: the boot, the user, the kernel, the
// switches that allow or restrict user namespaces, and the yagent binary.
// A failure is never remembered (the next run probes again), and a view
// command that cannot even start forgets the success, so a change the key
// cannot see costs one refused command, never a weaker sandbox: commands
// are confined as the probe said, or refused.

// probeCacheName is the file, under Home/cache, that holds the key of the
// last successful probe.
const probeCacheName = "sandbox-probe"

// probeSwitches are the kernel's knobs over user namespaces (Debian's
// unprivileged_userns_clone, Ubuntu's AppArmor restriction, the limit).
var probeSwitches = []string{
	"/proc/sys/user/max_user_namespaces",
	"/proc/sys/kernel/unprivileged_userns_clone",
	"/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
	"/proc/sys/kernel/apparmor_restrict_unprivileged_unconfined",
}

// probeKey is what a probe's answer depends on; "" when it cannot be
// known (then nothing is remembered).
func probeKey() string {
	boot, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	release, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		return ""
	}
	var exe syscall.Stat_t
	if err := syscall.Stat(selfExe, &exe); err != nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "yagent sandbox probe 1\nboot %s\nkernel %s\nuser %d %d\nexe %d %d %d %d.%09d\n",
		strings.TrimSpace(string(boot)), strings.TrimSpace(string(release)), os.Getuid(), os.Getgid(),
		exe.Dev, exe.Ino, exe.Size, exe.Mtim.Sec, exe.Mtim.Nsec)
	for _, s := range probeSwitches {
		v, err := os.ReadFile(s)
		if err != nil {
			v = []byte("-") // absent on this kernel
		}
		fmt.Fprintf(&b, "%s %s\n", filepath.Base(s), strings.TrimSpace(string(v)))
	}
	return b.String()
}

// runProbe probes once per process (tests count its calls).
var runProbe = func() error { return probeNamespaces() }

// rememberedProbe reports whether commands can get namespaces of their own,
// from home's record when it matches this system, else from a probe
// (whose success is then recorded). remembered says the answer came from
// the record.
func rememberedProbe(home string) (remembered bool, err error) {
	key := probeKey()
	if home == "" || key == "" {
		return false, runProbe()
	}
	path := filepath.Join(home, "cache", probeCacheName)
	if b, err := os.ReadFile(path); err == nil && string(b) == key {
		return true, nil
	}
	if err := runProbe(); err != nil {
		return false, err
	}
	_ = writeProbeRecord(path, key) // a record not written costs the next run a probe
	return false, nil
}

// writeProbeRecord replaces path's content with key, atomically (a temp
// name that never looks like the record, then a rename).
func writeProbeRecord(path, key string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp := filepath.Join(filepath.Dir(path), fmt.Sprintf(".%s.%d.tmp", probeCacheName, os.Getpid()))
	if err := os.WriteFile(tmp, []byte(key), 0o600); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// forgetProbe drops home's record (a view command could not start).
func forgetProbe(home string) {
	if home != "" {
		os.Remove(filepath.Join(home, "cache", probeCacheName))
	}
}
