package sandbox

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"sync"
	"syscall"
)

// Cmd is a command started through Policy.Command: an exec.Cmd whose Run,
// Wait, Output and CombinedOutput also release what the sandbox set up
// for it (placeholders of protected paths). Start it only through those.
type Cmd struct {
	*exec.Cmd
	release func()
	once    sync.Once
	p       *Policy
	pl      *plan // nil when the mode in force is off
}

func (c *Cmd) done() {
	c.once.Do(func() {
		if c.release != nil {
			c.release()
		}
	})
}

// Start starts the command. A view command that cannot start when the
// view's probe was remembered drops the record: the next run probes again.
func (c *Cmd) Start() error {
	err := c.Cmd.Start()
	if err != nil && c.pl != nil && c.pl.mech == View && c.p.nsRemembered {
		forgetProbe(c.p.Home)
	}
	return err
}

// Run starts the command and waits for it.
func (c *Cmd) Run() error {
	if err := c.Start(); err != nil {
		c.done()
		return err
	}
	return c.Wait()
}

// Wait waits for the command, then releases its sandbox.
func (c *Cmd) Wait() error {
	defer c.done()
	return c.Cmd.Wait()
}

// Output runs the command and returns its standard output.
func (c *Cmd) Output() ([]byte, error) {
	var out bytes.Buffer
	c.Stdout = &out
	err := c.Run()
	return out.Bytes(), err
}

// CombinedOutput runs the command and returns its standard output and
// standard error together.
func (c *Cmd) CombinedOutput() ([]byte, error) {
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	err := c.Run()
	return out.Bytes(), err
}

// Command returns the command that runs argv in dir under the policy: argv
// itself when the mode in force is off, else the helper, which confines
// itself and then becomes argv. It fails when commands must be refused
// (Err). The command gets an allow-listed environment (environ) and a
// process group of its own, which cancelling ctx kills; the caller may
// add to Env and set Stdin, Stdout, Stderr and WaitDelay, and must not
// replace SysProcAttr. Commands started with a ctx carrying a Scope share
// its private temp dir.
func (p *Policy) Command(ctx context.Context, dir string, argv ...string) (*Cmd, error) {
	if len(argv) == 0 {
		return nil, errors.New("sandbox: empty command")
	}
	if p.InForce() == Off {
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.Dir = dir
		cmd.Env = p.environ(os.Environ())
		groupOf(cmd)
		return &Cmd{Cmd: cmd}, nil
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	tmp, err := p.tempDir(ctx)
	if err != nil {
		return nil, err
	}
	pl, err := p.plan(tmp)
	if err != nil {
		return nil, err
	}
	var release func()
	if len(pl.placeholders) > 0 {
		if release, err = p.hold(pl.placeholders); err != nil {
			return nil, err
		}
	}
	helperPath := p.Helper
	if helperPath == "" {
		// Never by its path: a command may have replaced the file there
		// (the binary in a writable root); /proc/self/exe is the image
		// this process runs, whatever became of its name.
		helperPath = selfExe
	}
	spec := pl.spec(dir, argv)
	cmd := exec.CommandContext(ctx, helperPath, spec.Args()...)
	cmd.Args[0] = "yagent-sandbox"
	cmd.Dir = dir
	set := []string{"TMPDIR=" + tmp}
	if pl.cache != "" {
		set = append(set, "XDG_CACHE_HOME="+pl.cache)
	}
	if pl.mech == View {
		set[0] = "TMPDIR=/tmp"
		if pl.cache != "" {
			set[1] = "XDG_CACHE_HOME=" + viewCache
		}
		cmd.SysProcAttr = nsAttr()
	}
	cmd.Env = p.environ(os.Environ(), set...)
	groupOf(cmd)
	return &Cmd{Cmd: cmd, release: release, p: p, pl: pl}, nil
}

// groupOf gives cmd a process group of its own and kills the whole group
// when its context is cancelled (in a view, the helper is the pid
// namespace's init: killing it ends everything in the namespace).
func groupOf(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
