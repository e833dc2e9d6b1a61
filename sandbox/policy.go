package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
)

// Mode is how far a shell command is confined (agents.sandbox, --sandbox).
type Mode string

const (
	// WorkspaceWrite lets a command write under the workspace (not its
	// .git or .yagent), a private temp dir and the extra writable roots; no
	// network.
	WorkspaceWrite Mode = "workspace-write"
	// ReadOnly lets a command write nowhere; no network.
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

// MinABI is the Landlock ABI a confining mode needs: 4 is the first that
// can refuse TCP connect and bind.
const MinABI = 4

// maxRules bounds the paths a split may produce (each is an argument of the
// helper and a rule in the kernel).
const maxRules = 4096

// Policy is what a confined command may touch. Build it with New; the zero
// Mode means Off.
type Policy struct {
	Mode Mode
	// Workspace is the workspace (absolute, symlinks resolved).
	Workspace string
	// TempDir is the commands' private temp dir, writable under
	// WorkspaceWrite and named by their TMPDIR; "" = one made on first
	// use under Home/tmp (else under the system temp dir) and removed by
	// Close. Never the system temp dir itself: it holds other programs'
	// files, and $YAGENT_HOME when README's commands put it there.
	TempDir string
	// Writable are the extra writable roots (agents.sandbox_writable),
	// absolute, symlinks resolved.
	Writable []string
	// ABI reports the kernel's Landlock ABI version, 0 when it has none;
	// nil probes the kernel. Tests set it to simulate an older kernel.
	ABI func() int
	// Home is $YAGENT_HOME ("" = none): where the private temp dir is
	// made.
	Home string

	tmpOnce sync.Once
	tmpErr  error
	ownTmp  string // the temp dir tempDir made, removed by Close

	// Helper is the program that confines itself and then runs the
	// command; "" = this process's own image (selfExe), never looked up
	// by path. Its main (or TestMain) must call MaybeRunHelper before
	// anything else.
	Helper string
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

func realPath(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
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

// Available reports whether this system can confine commands (Linux with
// Landlock ABI MinABI or newer).
func Available() bool {
	return osSupported && probeABI() >= MinABI
}

// UnavailableError refuses a command because the kernel cannot confine it
// as the mode asks.
type UnavailableError struct {
	Mode Mode
	ABI  int // the kernel's Landlock ABI, 0 = none
}

func (e *UnavailableError) Error() string {
	has := "has no Landlock"
	if e.ABI > 0 {
		has = fmt.Sprintf("has only Landlock ABI %d", e.ABI)
	}
	return fmt.Sprintf("the shell sandbox (%s) needs Landlock ABI %d or newer and this kernel %s, so shell commands are refused rather than run unconfined; the person can run yagent with --sandbox off (or set agents.sandbox: off) to run them without a sandbox", e.Mode, MinABI, has)
}

// Err is non-nil when commands must be refused: a confining mode on a
// Linux kernel without the Landlock it needs. It never downgrades.
func (p *Policy) Err() error {
	m := p.InForce()
	if m == Off {
		return nil
	}
	if abi := p.abi(); abi < MinABI {
		return &UnavailableError{Mode: m, ABI: abi}
	}
	return nil
}

// Describe is one line saying which mode is in force, for the run header
// and `config show`.
func (p *Policy) Describe() string {
	asked := p.mode()
	if !osSupported && asked != Off {
		return fmt.Sprintf("sandbox: off — warning: %s was asked, but yagent's OS sandbox is Linux-only (this is %s): shell commands run with all of your permissions", asked, runtime.GOOS)
	}
	switch asked {
	case Off:
		return "sandbox: off — shell commands run with all of your permissions"
	}
	if err := p.Err(); err != nil {
		return fmt.Sprintf("sandbox: %s, unavailable — %v", asked, err)
	}
	what := "write nowhere"
	if asked == WorkspaceWrite {
		what = "write only in the workspace (not .git or .yagent), a private temp dir ($TMPDIR) and agents.sandbox_writable"
	}
	return fmt.Sprintf("sandbox: %s (Landlock ABI %d) — shell commands %s; no network", asked, p.abi(), what)
}

// rules is what the helper grants beyond reading everywhere.
type rules struct {
	ABI   int
	Dirs  []string // writable with everything beneath
	Files []string // writable in place
	// Split are the directories granted entry by entry (explanations only).
	Split []string
	// Protected are the paths kept read-only (explanations only).
	Protected []string
}

var devices = []string{"/dev/null", "/dev/zero", "/dev/full"}

// rules builds the rule set for one command, from the disk as it is now.
func (p *Policy) rules(abi int) (*rules, error) {
	r := &rules{ABI: abi}
	for _, d := range devices {
		if _, err := os.Stat(d); err == nil {
			r.Files = append(r.Files, d)
		}
	}
	if p.mode() != WorkspaceWrite {
		return r, nil
	}
	r.Protected = Protected(p.Workspace)
	roots := append([]string{p.Workspace}, p.Writable...)
	tmp, err := p.tempDir()
	if err != nil {
		return nil, err
	}
	roots = append(roots, tmp)
	for _, root := range roots {
		if err := r.grant(root, r.Protected); err != nil {
			return nil, err
		}
	}
	r.Dirs, r.Files, r.Split = unique(r.Dirs), unique(r.Files), unique(r.Split)
	if n := len(r.Dirs) + len(r.Files); n > maxRules {
		return nil, fmt.Errorf("the sandbox would need %d rules to keep %s read-only (a writable root holding many entries contains it): narrow agents.sandbox_writable, or run with --sandbox off", n, strings.Join(r.Protected, ", "))
	}
	return r, nil
}

// unique drops repeats (a root inside another), keeping the first.
func unique(s []string) []string {
	seen := make(map[string]bool, len(s))
	out := s[:0]
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// grant makes tree t writable except the protected paths beneath it (see
// the package doc).
func (r *rules) grant(t string, protect []string) error {
	var below []string
	for _, p := range protect {
		if p == t {
			return nil
		}
		if within(t, p) {
			below = append(below, p)
		}
	}
	fi, err := os.Lstat(t)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // gone since it was listed
	}
	if err != nil {
		return fmt.Errorf("sandbox rules: %w", err)
	}
	if len(below) == 0 {
		if fi.IsDir() {
			r.Dirs = append(r.Dirs, t)
		} else {
			r.Files = append(r.Files, t)
		}
		return nil
	}
	entries, err := os.ReadDir(t)
	if err != nil {
		return fmt.Errorf("sandbox rules: %w", err)
	}
	r.Split = append(r.Split, t)
	for _, e := range entries {
		if e.Type()&fs.ModeSymlink != 0 {
			continue
		}
		if err := r.grant(filepath.Join(t, e.Name()), below); err != nil {
			return err
		}
		if len(r.Dirs)+len(r.Files) > maxRules {
			return nil // rules reports it
		}
	}
	return nil
}

// within reports whether p is root or beneath it.
func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// selfExe names the running image of this process: the kernel resolves it
// to the file this process was started from even after that file was
// replaced or removed.
const selfExe = "/proc/self/exe"

// HelperArg, as the first argument, marks a re-executed helper. It is not
// a command of the CLI and never shows in --help (exported so the command
// tree can check that nothing collides with it).
const HelperArg = "__yagent-sandbox-exec"

// args encodes the rules as the helper's arguments (one path per
// argument: no quoting, no size limit per string to hit).
func (r *rules) args() []string {
	a := []string{HelperArg, "-abi", strconv.Itoa(r.ABI)}
	for _, d := range r.Dirs {
		a = append(a, "-dir", d)
	}
	for _, f := range r.Files {
		a = append(a, "-file", f)
	}
	return append(a, "--")
}

// parseArgs is the inverse of args; it returns the command's argv.
func parseArgs(a []string) (*rules, []string, error) {
	r := &rules{}
	for len(a) > 0 {
		switch a[0] {
		case "--":
			if len(a) < 2 {
				return nil, nil, errors.New("no command after --")
			}
			return r, a[1:], nil
		case "-abi", "-dir", "-file":
			if len(a) < 2 {
				return nil, nil, fmt.Errorf("%s without a value", a[0])
			}
			switch a[0] {
			case "-abi":
				n, err := strconv.Atoi(a[1])
				if err != nil {
					return nil, nil, fmt.Errorf("-abi %q: %w", a[1], err)
				}
				r.ABI = n
			case "-dir":
				r.Dirs = append(r.Dirs, a[1])
			default:
				r.Files = append(r.Files, a[1])
			}
			a = a[2:]
		default:
			return nil, nil, fmt.Errorf("unknown argument %q", a[0])
		}
	}
	return nil, nil, errors.New("no command (want -- ARGV)")
}

// Command returns the command that runs argv in dir under the policy: argv
// itself when the mode in force is off, else the helper, which confines
// itself and then becomes argv. It fails when commands must be refused
// (Err). The caller sets Env, Stdout, SysProcAttr… as for any command; the
// helper passes its environment on.
func (p *Policy) Command(ctx context.Context, dir string, argv ...string) (*exec.Cmd, error) {
	if len(argv) == 0 {
		return nil, errors.New("sandbox: empty command")
	}
	if p.InForce() == Off {
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.Dir = dir
		cmd.Env = os.Environ()
		return cmd, nil
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	r, err := p.rules(p.abi())
	if err != nil {
		return nil, err
	}
	helper := p.Helper
	if helper == "" {
		// Never by its path: a command may have replaced the file there
		// (the binary in a writable root); /proc/self/exe is the image
		// this process runs, whatever became of its name.
		helper = selfExe
	}
	cmd := exec.CommandContext(ctx, helper, append(r.args(), argv...)...)
	cmd.Dir = dir
	cmd.Env = os.Environ()
	if tmp, err := p.tempDir(); err == nil {
		cmd.Env = append(cmd.Env, "TMPDIR="+tmp)
	}
	return cmd, nil
}

// tempDir returns the commands' private temp dir, making it on first use.
func (p *Policy) tempDir() (string, error) {
	p.tmpOnce.Do(func() {
		if p.TempDir != "" {
			return
		}
		root := os.TempDir()
		if p.Home != "" {
			root = filepath.Join(p.Home, "tmp")
			if err := os.MkdirAll(root, 0o700); err != nil {
				p.tmpErr = fmt.Errorf("sandbox: make the commands' temp dir: %w", err)
				return
			}
		}
		dir, err := os.MkdirTemp(root, "sandbox-")
		if err == nil {
			dir, err = realPath(dir)
		}
		if err != nil {
			p.tmpErr = fmt.Errorf("sandbox: make the commands' temp dir: %w", err)
			return
		}
		p.TempDir, p.ownTmp = dir, dir
	})
	return p.TempDir, p.tmpErr
}

// Close removes the private temp dir the policy made, with what commands
// left in it.
func (p *Policy) Close() error {
	if p == nil || p.ownTmp == "" {
		return nil
	}
	return os.RemoveAll(p.ownTmp)
}
