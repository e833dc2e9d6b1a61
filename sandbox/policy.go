package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/yagent/yagent/sandbox/helper"
)

// Mode is how far a shell command is confined (agents.sandbox, --sandbox).
type Mode string

const (
	// WorkspaceWrite lets a command write under the workspace (not its
	// protected paths), its private temp dir and the extra writable
	// roots.
	WorkspaceWrite Mode = "workspace-write"
	// ReadOnly lets a command write nowhere of the person's.
	ReadOnly Mode = "read-only"
	// Off does not confine commands.
	Off Mode = "off"
)

// ParseMode checks a mode name.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case WorkspaceWrite, ReadOnly, Off:
		return m, nil
	}
	return "", fmt.Errorf("sandbox mode %q: want workspace-write, read-only or off", s)
}

// MinABI is the Landlock ABI the Landlock mechanism needs: 4 is the first
// that can refuse TCP connect and bind.
const MinABI = 4

// HelperArg, as the first argument, marks a re-executed helper (exported
// so the command tree can check that nothing collides with it).
const HelperArg = helper.Arg

// Policy is what a confined command may touch. Build it with New; the zero
// Mode means Off. A Policy is safe for concurrent use once built.
type Policy struct {
	Mode Mode
	// Workspace is the workspace (absolute, symlinks resolved).
	Workspace string
	// Writable are the extra writable roots (agents.sandbox_writable),
	// absolute, symlinks resolved.
	Writable []string
	// Home is $YAGENT_HOME: hidden from commands; the private temp dirs,
	// the per-workspace caches and the placeholders' records live under
	// it ("" = under the system temp dir, for tests).
	Home string
	// UserHome is the person's home directory, whose credential stores
	// (~/.ssh, ~/.aws …) are hidden ("" = $HOME).
	UserHome string
	// Visible are hidden paths commands may read after all
	// (agents.sandbox_visible), absolute.
	Visible []string
	// Env are names of variables commands get beyond the allow-list
	// (agents.sandbox_env).
	Env []string
	// TempDir, when set, is the private temp dir of every command (tests);
	// "" = one per Scope, made on first use under Home/tmp.
	TempDir string
	// ABI reports the kernel's Landlock ABI version, 0 when it has none;
	// nil probes the kernel. Tests set it to simulate an older kernel.
	ABI func() int
	// Namespaces reports whether commands can get namespaces of their
	// own (the view); nil probes once per process. Tests set it to force
	// the Landlock mechanism.
	Namespaces func() error
	// Helper is the program that confines itself and then runs the
	// command; "" = this process's own image (/proc/self/exe), never
	// looked up by path. Set only by benchmarks measuring another build.
	Helper string

	scope Scope // the commands' scope when their context names none
	once  sync.Once
	fixed fixedPaths

	nsOnce       sync.Once
	nsErr        error
	nsRemembered bool // nsErr (nil) came from Home's record of a probe
}

// New builds the policy of a mode for a workspace. writable are the extra
// roots (agents.sandbox_writable); each must exist.
func New(mode Mode, workspace string, writable []string) (*Policy, error) {
	if _, err := ParseMode(string(mode)); err != nil {
		return nil, err
	}
	ws, err := realPath(workspace)
	if err != nil {
		return nil, fmt.Errorf("sandbox workspace %s: %w", workspace, err)
	}
	p := &Policy{Mode: mode, Workspace: ws}
	for _, w := range writable {
		if !filepath.IsAbs(w) {
			return nil, fmt.Errorf("sandbox writable root %q: want an absolute path (agents.sandbox_writable)", w)
		}
		real, err := realPath(w)
		if err != nil {
			return nil, fmt.Errorf("sandbox writable root %s does not exist: create it or remove it from agents.sandbox_writable", w)
		}
		p.Writable = append(p.Writable, real)
	}
	return p, nil
}

// ForWorkspace is p over another workspace (a delegation's worktree or
// snapshot, issue 28): the same mode, extra roots, home, hidden and
// visible paths and environment; its commands write in dir and see p's
// workspace as the rest of the file system, read-only. In a view, a dir
// under Home shows alone of Home: other delegations' worktrees stay
// hidden.
func (p *Policy) ForWorkspace(dir string) (*Policy, error) {
	ws, err := realPath(dir)
	if err != nil {
		return nil, fmt.Errorf("sandbox workspace %s: %w", dir, err)
	}
	return &Policy{Mode: p.Mode, Workspace: ws, Writable: p.Writable, Home: p.Home, UserHome: p.UserHome,
		Visible: p.Visible, Env: p.Env, TempDir: p.TempDir, ABI: p.ABI, Namespaces: p.Namespaces, Helper: p.Helper}, nil
}

func realPath(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// resolved is p with the symlinks of its longest existing prefix resolved
// (a path that may not exist yet).
func resolved(p string) string {
	if p == "" {
		return ""
	}
	p = filepath.Clean(p)
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	parent := filepath.Dir(p)
	if parent == p {
		return p
	}
	return filepath.Join(resolved(parent), filepath.Base(p))
}

func (p *Policy) mode() Mode {
	if p == nil || p.Mode == "" {
		return Off
	}
	return p.Mode
}

func (p *Policy) abi() int {
	if p.ABI != nil {
		return p.ABI()
	}
	return probeABI()
}

// InForce is the mode that applies on this system: Off where there is no
// OS sandbox (not Linux), else the policy's mode (which Err may still
// refuse).
func (p *Policy) InForce() Mode {
	if !osSupported {
		return Off
	}
	return p.mode()
}

// Mechanism is how commands are confined on this system.
type Mechanism int

const (
	// None: nothing confines commands (off, or refused: see Err).
	None Mechanism = iota
	// View: namespaces of the command's own, holding a filesystem view;
	// Landlock (where the kernel has it) and seccomp inside.
	View
	// LandlockOnly: user namespaces are unavailable; Landlock ABI 4+ and
	// seccomp alone, with their limits.
	LandlockOnly
)

// Mechanism says how commands are confined, and why not by a view when
// they are not.
func (p *Policy) Mechanism() (Mechanism, error) {
	if p.InForce() == Off {
		return None, nil
	}
	nsErr := p.namespaces()
	if nsErr == nil {
		return View, nil
	}
	if p.abi() >= MinABI {
		return LandlockOnly, nsErr
	}
	return None, nsErr
}

func (p *Policy) namespaces() error {
	if p.Namespaces != nil {
		return p.Namespaces()
	}
	p.nsOnce.Do(func() { p.nsRemembered, p.nsErr = rememberedProbe(p.Home) })
	return p.nsErr
}

// Available reports whether this system can confine commands.
func Available() bool {
	if !osSupported {
		return false
	}
	return confinable(probeNamespaces(), probeABI())
}

// confinable: a view (ns, why commands cannot get namespaces, is nil) or
// Landlock alone (abi, the usable ABI, is MinABI or newer).
func confinable(ns error, abi int) bool { return ns == nil || abi >= MinABI }

// UnavailableError refuses a command because the system can confine it
// neither in a view nor with Landlock alone.
type UnavailableError struct {
	Mode Mode
	ABI  int   // the kernel's Landlock ABI, 0 = none
	NS   error // why commands cannot get namespaces of their own
}

func (e *UnavailableError) Error() string {
	has := "has no Landlock"
	if e.ABI > 0 {
		has = fmt.Sprintf("has only Landlock ABI %d", e.ABI)
	}
	ns := "user namespaces are unavailable"
	if e.NS != nil {
		ns += " (" + e.NS.Error() + ")"
	}
	return fmt.Sprintf("the shell sandbox (%s) needs user namespaces or Landlock ABI %d or newer: %s and this kernel %s, so shell commands are refused rather than run unconfined; the person can run yagent with --sandbox off (or set agents.sandbox: off) to run them without a sandbox", e.Mode, MinABI, ns, has)
}

// Err is non-nil when commands must be refused: a confining mode on a
// Linux system that has neither namespaces for a view nor the Landlock the
// fallback needs. It never downgrades.
func (p *Policy) Err() error {
	m, nsErr := p.Mechanism()
	if m == None && p.InForce() != Off {
		return &UnavailableError{Mode: p.InForce(), ABI: p.abi(), NS: nsErr}
	}
	return nil
}

// Close removes the private temp dir of the commands that ran without a
// scope of their own.
func (p *Policy) Close() error {
	if p == nil {
		return nil
	}
	flushPlaceholders()
	return p.scope.Close()
}

// fixedPaths are the paths a policy computes once.
type fixedPaths struct {
	home, userHome string
	exe            string // the running yagent binary, symlinks resolved
}

func (p *Policy) paths() *fixedPaths {
	p.once.Do(func() {
		p.fixed.home = resolved(p.Home)
		uh := p.UserHome
		if uh == "" {
			uh = os.Getenv("HOME")
		}
		p.fixed.userHome = resolved(uh)
		if exe, err := os.Executable(); err == nil {
			p.fixed.exe = resolved(exe)
		}
	})
	return &p.fixed
}

// Check refuses extra writable roots that would open what the sandbox
// keeps shut: one at or inside a protected path of the workspace (.git,
// .yagent …) or $YAGENT_HOME.
func (p *Policy) Check() error {
	shut := append(Protected(p.Workspace), missingProtected(p.Workspace)...)
	shut = append(shut, HooksPaths(p.Workspace)...)
	if h := p.paths().home; h != "" {
		shut = append(shut, h)
	}
	for _, w := range p.Writable {
		for _, s := range shut {
			if within(s, w) {
				return fmt.Errorf("agents.sandbox_writable: %s is inside %s, which the sandbox keeps read-only (or hidden): remove it from the list", w, s)
			}
		}
	}
	return nil
}
