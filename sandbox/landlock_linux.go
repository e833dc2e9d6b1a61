package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

const osSupported = true

// probeABI is the kernel's usable Landlock ABI, 0 without Landlock. Like
// go-landlock it counts ABI 6 only when the signal-scoping erratum is fixed.
func probeABI() int {
	v, err := llsys.LandlockGetABIVersion()
	if err != nil || v < 0 {
		return 0
	}
	if v >= 6 {
		if errata, err := llsys.LandlockGetErrata(); err != nil || errata&0x2 == 0 {
			v = 5
		}
	}
	return v
}

// config is what the helper handles at an ABI: every filesystem right the
// kernel knows among those below, TCP bind and connect, and the scopes.
func config(abi int) (landlock.Config, error) {
	if abi < MinABI {
		return landlock.Config{}, fmt.Errorf("the kernel's Landlock ABI %d is below the %d the sandbox needs", abi, MinABI)
	}
	fsRights := landlock.V3.HandledAccessFS // files, dirs, refer, truncate
	if abi >= 5 {
		fsRights |= llsys.AccessFSIoctlDev
	}
	if abi >= 9 {
		fsRights |= llsys.AccessFSResolveUnix
	}
	c := landlock.Config{
		HandledAccessFS:  fsRights,
		HandledAccessNet: llsys.AccessNetBindTCP | llsys.AccessNetConnectTCP,
	}
	if abi >= 6 {
		c.Scoped = llsys.ScopeAbstractUnixSocket | llsys.ScopeSignal
	}
	return c, nil
}

// confine restricts this process (all its threads) to r: read and execute
// anywhere, write where r says, no TCP connect or bind (Landlock), no IPv4
// or IPv6 socket at all (seccomp). Strict: a kernel that cannot enforce
// r.ABI's rights is an error, never a downgrade.
func confine(r *rules) error {
	c, err := config(r.ABI)
	if err != nil {
		return err
	}
	ll := []landlock.Rule{landlock.RODirs("/")}
	if len(r.Dirs) > 0 {
		dirs := landlock.RWDirs(r.Dirs...).WithRefer().IgnoreIfMissing()
		if r.ABI >= 9 {
			dirs = dirs.WithResolveUnix()
		}
		ll = append(ll, dirs)
	}
	if len(r.Files) > 0 {
		ll = append(ll, landlock.RWFiles(r.Files...).IgnoreIfMissing())
	}
	if err := c.Restrict(ll...); err != nil {
		return err
	}
	return refuseIPSockets()
}

func confineAndExec(r *rules, argv []string) (int, error) {
	path, err := exec.LookPath(argv[0])
	if err != nil && !errors.Is(err, exec.ErrDot) {
		return exitNotFound, err
	}
	if err := confine(r); err != nil {
		return exitCannotConfine, fmt.Errorf("could not confine the command, so it did not run: %w", err)
	}
	err = syscall.Exec(path, argv, os.Environ())
	return exitCannotConfine, fmt.Errorf("exec %s: %w", argv[0], err)
}
