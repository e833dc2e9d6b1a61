package sandbox

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// needView skips a test of what only a view gives.
func needView(t *testing.T) {
	t.Helper()
	if !osSupported || probeNamespaces() != nil {
		t.Skipf("no user namespaces here: %v", probeNamespaces())
	}
}

// In a trusted workspace with neither .git nor .yagent, a command must not
// create .yagent/config.yaml (it would apply on the next run), nor .git,
// .mcp.json, .envrc or .claude/settings.json; the empty placeholders the
// view uses for that go once the commands end (after lingering a little,
// or at once when the session ends).
func TestMissingProtectedNotCreated(t *testing.T) {
	needView(t)
	b := newBox(t, View)
	if err := os.RemoveAll(filepath.Join(b.ws, ".git")); err != nil {
		t.Fatal(err)
	}
	p := b.policy(t, WorkspaceWrite)
	cmd, err := p.Command(childCtx(t), b.ws, "sh", "-c", `mkdir -p .yagent && echo 'agents: {sandbox: off}' > .yagent/config.yaml && echo made-yagent
mkdir -p .claude && echo '{"hooks":{}}' > .claude/settings.json && echo made-claude
echo '{}' > .mcp.json && echo made-mcp
echo 'rm -rf ~' > .envrc && echo made-envrc
git init -q . 2>/dev/null && echo made-git
echo fine > new.txt`)
	if err != nil {
		t.Fatal(err)
	}
	outb, _ := cmd.CombinedOutput()
	out := string(outb)
	for _, bad := range []string{"made-yagent", "made-claude", "made-mcp", "made-envrc", "made-git"} {
		if strings.Contains(out, bad) {
			t.Errorf("a command could %s:\n%s", bad, out)
		}
	}
	explained := cmd.Explain(out)
	p.Close()
	var names []string
	entries, _ := os.ReadDir(b.ws)
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{"README", "new.txt", "src"}; !slices.Equal(names, want) {
		t.Errorf("the workspace holds %v after the command; want %v (no protected name, no placeholder left)", names, want)
	}
	if !strings.Contains(explained, "the sandbox keeps commands from creating it") || strings.Count(explained, "protected name") < 4 {
		t.Errorf("Explain(%q) = %q; want it to name each protected name", out, explained)
	}
}

// Placeholders are shared: while one command holds .yagent, another's end
// does not remove it; the last one does, and never a directory a person
// filled meanwhile.
func TestPlaceholdersShared(t *testing.T) {
	needView(t)
	b := newBox(t, View)
	p := b.policy(t, WorkspaceWrite)
	yagent := filepath.Join(b.ws, ".yagent")
	long, err := p.Command(childCtx(t), b.ws, "sh", "-c", "sleep 1; test -d .yagent && echo held")
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	long.Stdout = &out
	if err := long.Start(); err != nil {
		t.Fatal(err)
	}
	if o, ok := run(t, p, b.ws, "mkdir .yagent/x || echo refused"); !ok || !strings.Contains(o, "refused") {
		t.Errorf("second command: %q", o)
	}
	if _, err := os.Stat(yagent); err != nil {
		t.Errorf("the second command's end removed the placeholder the first still holds: %v", err)
	}
	if err := long.Wait(); err != nil || !strings.Contains(out.String(), "held") {
		t.Errorf("first command: %v %q", err, out.String())
	}
	flushPlaceholders() // what Close does; otherwise it lingers a little
	if _, err := os.Stat(yagent); err == nil {
		t.Error("the placeholder outlived the last command")
	}
	// Unheld, it lingers for the next command of a burst, then goes by
	// itself.
	defer func(d time.Duration) { placeholderLinger = d }(placeholderLinger)
	placeholderLinger = 300 * time.Millisecond
	run(t, p, b.ws, "true")
	if _, err := os.Stat(yagent); err != nil {
		t.Errorf("the placeholder did not linger after the command: %v", err)
	}
	time.Sleep(time.Second)
	if _, err := os.Stat(yagent); err == nil {
		t.Error("the placeholder outlived its linger")
	}
	// A person's own .yagent, made while a command runs, stays.
	c, _ := p.Command(childCtx(t), b.ws, "sleep", "0.5")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	mustWrite(t, filepath.Join(yagent, "config.yaml"), "agents: {}\n")
	c.Wait()
	flushPlaceholders()
	if _, err := os.Stat(filepath.Join(yagent, "config.yaml")); err != nil {
		t.Errorf("a person's .yagent/config.yaml went with the placeholder: %v", err)
	}
}

// Existing protected paths stay as they are: Claude Code's settings,
// .mcp.json, .envrc, .yagent.
func TestProtectedNames(t *testing.T) {
	eachMechanism(t, func(t *testing.T, mech Mechanism) {
		b := newBox(t, mech)
		files := map[string]string{
			".claude/settings.json":       "{}\n",
			".claude/settings.local.json": "{}\n",
			".mcp.json":                   "{}\n",
			".envrc":                      "export A=1\n",
			".yagent/config.yaml":         "agents: {}\n",
		}
		for name, content := range files {
			mustMkdir(t, filepath.Dir(filepath.Join(b.ws, name)))
			mustWrite(t, filepath.Join(b.ws, name), content)
		}
		p := b.policy(t, WorkspaceWrite)
		for name := range files {
			if out, ok := run(t, p, b.ws, "echo evil >> "+name); ok {
				t.Errorf("%s: a command appended to it (%q)", name, out)
			}
			if out, ok := run(t, p, b.ws, "rm -f "+name+" && test ! -e "+name); ok {
				t.Errorf("%s: a command removed it (%q)", name, out)
			}
		}
		for name, content := range files {
			if data, _ := os.ReadFile(filepath.Join(b.ws, name)); string(data) != content {
				t.Errorf("%s = %q; want it unchanged", name, data)
			}
		}
		// (Landlock alone splits .claude around the settings: no new
		// entries there.)
		if out, ok := run(t, p, b.ws, "echo x > .claude/agents.md"); !ok && mech == View {
			t.Errorf("the rest of .claude stays writable: %q", out)
		}
	})
}

// What a view hides is not there for a command: $YAGENT_HOME, the
// credential stores of the person's home, $XDG_RUNTIME_DIR (a Unix socket
// there is unreachable), the ssh-agent socket; agents.sandbox_visible
// shows one again, read-only.
func TestHiddenPaths(t *testing.T) {
	needView(t)
	b := newBox(t, View)
	mustWrite(t, filepath.Join(b.home, "config.yaml"), "secret: 1\n")
	for _, f := range []string{".ssh/id_ed25519", ".aws/credentials", ".config/gcloud/token", ".docker/config.json"} {
		mustMkdir(t, filepath.Dir(filepath.Join(b.outside, f)))
		mustWrite(t, filepath.Join(b.outside, f), "secret\n")
	}
	runtimeDir := visibleDir(t)
	sock := filepath.Join(runtimeDir, "bus")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("reached"))
			c.Close()
		}
	}()
	agentSock := filepath.Join(visibleDir(t), "agent.sock")
	la, err := net.Listen("unix", agentSock)
	if err != nil {
		t.Fatal(err)
	}
	defer la.Close()
	t.Setenv("XDG_RUNTIME_DIR", runtimeDir)
	t.Setenv("SSH_AUTH_SOCK", agentSock)
	p := b.policy(t, WorkspaceWrite)
	p.Visible = []string{filepath.Join(b.outside, ".aws")}
	exe := client(t)
	p.Env = []string{"SANDBOXTEST_NET"}
	for _, path := range []string{filepath.Join(b.home, "config.yaml"), filepath.Join(b.outside, ".ssh/id_ed25519"), filepath.Join(b.outside, ".config/gcloud/token"), filepath.Join(b.outside, ".docker/config.json")} {
		if out, ok := run(t, p, b.ws, "cat "+path); ok || strings.Contains(out, "secret") {
			t.Errorf("%s is readable: %q", path, out)
		}
	}
	if out, ok := run(t, p, b.ws, "cat "+filepath.Join(b.outside, ".aws/credentials")); !ok {
		t.Errorf("agents.sandbox_visible did not show ~/.aws: %q", out)
	}
	if out, ok := run(t, p, b.ws, "echo x >> "+filepath.Join(b.outside, ".aws/credentials")); ok {
		t.Errorf("a visible path is writable: %q", out)
	}
	for _, s := range []string{sock, agentSock} {
		cmd, err := p.Command(childCtx(t), b.ws, exe)
		if err != nil {
			t.Fatal(err)
		}
		cmd.Env = append(cmd.Env, "SANDBOXTEST_NET=unix "+s)
		if out, err := cmd.CombinedOutput(); err == nil {
			t.Errorf("the socket %s was reachable: %q", s, out)
		}
	}
	out, _ := run(t, p, b.ws, "cat "+filepath.Join(b.outside, ".ssh/id_ed25519"))
	if e := p.Explain(out, b.ws); !strings.Contains(e, "hides from commands") || !strings.Contains(e, "agents.sandbox_visible") {
		t.Errorf("Explain(%q) = %q; want it to say the path is hidden and how to show it", out, e)
	}
}

// Each scope has its own /tmp, kept between its commands; two scopes (two
// delegations) never see each other's files, nor the system's temp dir.
func TestPrivateTmp(t *testing.T) {
	eachMechanism(t, func(t *testing.T, mech Mechanism) {
		b := newBox(t, mech)
		p := b.policy(t, WorkspaceWrite)
		hostFile := filepath.Join(t.TempDir(), "host-secret")
		mustWrite(t, hostFile, "x")
		a, c := new(Scope), new(Scope)
		defer a.Close()
		defer c.Close()
		in := func(s *Scope, script string) (string, bool) {
			cmd, err := p.Command(WithScope(childCtx(t), s), b.ws, "sh", "-c", script)
			if err != nil {
				t.Fatal(err)
			}
			out, err := cmd.CombinedOutput()
			return string(out), err == nil
		}
		if out, ok := in(a, `echo mine > "$TMPDIR/a"`); !ok {
			t.Fatalf("scope a: %q", out)
		}
		if out, ok := in(a, `cat "$TMPDIR/a"`); !ok || !strings.Contains(out, "mine") {
			t.Errorf("scope a's next command lost its file: %q", out)
		}
		if out, ok := in(c, `cat "$TMPDIR/a"`); ok {
			t.Errorf("scope c sees scope a's file: %q", out)
		}
		if out, ok := in(c, "cat "+hostFile); ok && mech == View {
			t.Errorf("a view shows the system's temp dir: %q", out)
		}
		if mech == View {
			if out, ok := in(a, `test "$TMPDIR" = /tmp && ls /tmp`); !ok || strings.TrimSpace(out) != "a" {
				t.Errorf("in a view /tmp is the private temp dir; got %q", out)
			}
		}
		dir := a.dir
		a.Close()
		if _, err := os.Stat(dir); err == nil {
			t.Errorf("Close left %s", dir)
		}
	})
}

// In a view a command sees its own processes only.
func TestPidNamespace(t *testing.T) {
	needView(t)
	victim := exec.Command("sleep", "30")
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { victim.Process.Kill(); victim.Wait() }()
	b := newBox(t, View)
	out, ok := run(t, b.policy(t, WorkspaceWrite), b.ws, "ls /proc | grep -c '^[0-9]'; ps -e -o comm=")
	if !ok {
		t.Fatalf("%q", out)
	}
	if strings.Contains(out, "sleep") || strings.Contains(out, ".test") {
		t.Errorf("the command sees processes outside it:\n%s", out)
	}
	if out, ok := run(t, b.policy(t, WorkspaceWrite), b.ws, fmt.Sprintf("kill -0 %d", victim.Process.Pid)); ok {
		t.Errorf("the command reached pid %d outside: %q", victim.Process.Pid, out)
	}
}

// From ABI 6 on, a confined command cannot signal a process outside its
// sandbox (yagent, or anything else of the person's); in a view it does
// not even see them. Its own children it can signal.
func TestSignalsScoped(t *testing.T) {
	eachMechanism(t, func(t *testing.T, mech Mechanism) {
		if mech == LandlockOnly && probeABI() < 6 {
			t.Skipf("Landlock ABI %d has no signal scoping", probeABI())
		}
		victim := exec.Command("sleep", "30")
		if err := victim.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { victim.Process.Kill(); victim.Wait() }()
		b := newBox(t, mech)
		pid := fmt.Sprint(victim.Process.Pid)
		if out, ok := run(t, b.policy(t, WorkspaceWrite), b.ws, "kill -TERM "+pid); ok {
			t.Errorf("a confined command signalled pid %s: %q", pid, out)
		}
		if out, _ := run(t, b.policy(t, WorkspaceWrite), b.ws, "sleep 30 & kill $!; wait $!; echo status $?"); !strings.Contains(out, "status 143") {
			t.Errorf("a confined command could not signal its own child: %q", out)
		}
		if victim.ProcessState != nil {
			t.Error("the victim exited")
		}
	})
}

// A view's network is its own loopback: a test's local server works (IPv4
// and IPv6), nothing outside is reachable — not the host's loopback
// listeners over TCP or UDP, nor an abstract Unix socket served outside.
// Landlock alone refuses every IP socket.
func TestNetwork(t *testing.T) {
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer tcp.Close()
	accepted := make(chan struct{}, 16)
	go func() {
		for {
			c, err := tcp.Accept()
			if err != nil {
				return
			}
			c.Close()
			accepted <- struct{}{}
		}
	}()
	udp, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	abstract, err := net.Listen("unix", "@yagent-sandbox-test-"+fmt.Sprint(os.Getpid()))
	if err != nil {
		t.Fatal(err)
	}
	defer abstract.Close()
	go func() {
		for {
			c, err := abstract.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	eachMechanism(t, func(t *testing.T, mech Mechanism) {
		exe := client(t)
		b := newBox(t, mech)
		try := func(mode Mode, spec string) (string, bool) {
			p := b.policy(t, mode)
			p.Env = []string{"SANDBOXTEST_NET"}
			cmd, err := p.Command(childCtx(t), b.ws, exe)
			if err != nil {
				t.Fatal(err)
			}
			cmd.Env = append(cmd.Env, "SANDBOXTEST_NET="+spec)
			out, err := cmd.CombinedOutput()
			return string(out), err == nil
		}
		for _, mode := range []Mode{WorkspaceWrite, ReadOnly} {
			outside := []string{"tcp " + tcp.Addr().String(), "mptcp " + tcp.Addr().String(), "abstract " + strings.TrimPrefix(abstract.Addr().String(), "@")}
			for _, spec := range outside {
				if out, ok := try(mode, spec); ok {
					t.Errorf("%s: %s: reached outside (%q)", mode, spec, out)
				}
			}
			try(mode, "udp "+udp.LocalAddr().String()) // sent into its own loopback, or refused
			for _, spec := range []string{"loopback", "loopback6", "listen"} {
				out, ok := try(mode, spec)
				if want := mech == View; ok != want {
					t.Errorf("%s: %s: ok = %v; want %v (%q)", mode, spec, ok, want, out)
				}
				if mech == LandlockOnly && !strings.Contains(out, "permission denied") {
					t.Errorf("%s: %s failed, but not with EACCES: %q", mode, spec, out)
				}
			}
		}
		select {
		case <-accepted:
			t.Error("a confined command reached the host's listener")
		case <-time.After(100 * time.Millisecond):
		}
		udp.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
		buf := make([]byte, 16)
		if _, from, err := udp.ReadFrom(buf); err == nil {
			t.Errorf("a datagram arrived from %s: a confined command sent it", from)
		}
	})
}

// System calls that would reach outside, or give back what was dropped,
// are refused in both mechanisms; reading addresses over netlink works.
func TestSyscallsRefused(t *testing.T) {
	eachMechanism(t, func(t *testing.T, mech Mechanism) {
		exe := client(t)
		b := newBox(t, mech)
		p := b.policy(t, WorkspaceWrite)
		p.Env = []string{"SANDBOXTEST_NET"}
		try := func(spec string) (string, bool) {
			cmd, err := p.Command(childCtx(t), b.ws, exe)
			if err != nil {
				t.Fatal(err)
			}
			cmd.Env = append(cmd.Env, "SANDBOXTEST_NET="+spec)
			out, err := cmd.CombinedOutput()
			return string(out), err == nil
		}
		for _, spec := range []string{
			"socket packet", "socket vsock", "socket netlink-audit",
			"syscall unshare-user", "syscall clone-user", "syscall mount", "syscall chroot",
			"syscall sethostname", "syscall settimeofday", "syscall io_uring", "syscall ptrace",
			"syscall bpf", "syscall keyctl",
		} {
			if out, ok := try(spec); ok {
				t.Errorf("%s: allowed (%q)", spec, out)
			}
		}
		if out, ok := try("socket netlink-route"); !ok {
			t.Errorf("reading addresses over netlink refused: %q", out)
		}
	})
}

// Every capability is gone, also for root: a command keeping one could
// unmount the view's read-only binds.
func TestCapabilitiesDropped(t *testing.T) {
	eachMechanism(t, func(t *testing.T, mech Mechanism) {
		b := newBox(t, mech)
		out, ok := run(t, b.policy(t, WorkspaceWrite), b.ws, "grep -E '^Cap(Inh|Prm|Eff|Bnd|Amb)' /proc/self/status; grep NoNewPrivs /proc/self/status")
		if !ok {
			t.Fatalf("%q", out)
		}
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			name, val, _ := strings.Cut(l, ":")
			val = strings.TrimSpace(val)
			// Without CAP_SETPCAP (an unprivileged person under Landlock
			// alone) the bounding set cannot shrink, nor needs to: such a
			// process has nothing to lose, and no_new_privs keeps it so.
			keepsBounding := name == "CapBnd" && mech == LandlockOnly && os.Getuid() != 0
			if name == "NoNewPrivs" && val != "1" || strings.HasPrefix(name, "Cap") && !keepsBounding && strings.Trim(val, "0") != "" {
				t.Errorf("%s: %s", name, val)
			}
		}
		if os.Getuid() == 0 {
			mustWrite(t, filepath.Join(b.ws, "src", "mine"), "x")
			if out, ok := run(t, b.policy(t, WorkspaceWrite), b.ws, "chown 1234 src/mine"); ok {
				t.Errorf("root in the sandbox could chown: %q", out)
			}
		}
	})
}

// Metadata outside the writable roots, on .git and under read-only stays:
// mode, owner, times, extended attributes.
func TestMetadataOutside(t *testing.T) {
	needView(t)
	b := newBox(t, View)
	victim := filepath.Join(b.outside, "f")
	mustWrite(t, victim, "x")
	before, _ := os.Stat(victim)
	gitBefore, _ := os.Stat(filepath.Join(b.ws, ".git", "config"))
	readmeBefore, _ := os.Stat(filepath.Join(b.ws, "README"))
	script := func(f string) string {
		return fmt.Sprintf("chmod 777 %[1]s; touch -d 2001-01-01 %[1]s; chown %d %[1]s; setfattr -n user.x -v 1 %[1]s 2>/dev/null; true", f, os.Getuid())
	}
	run(t, b.policy(t, WorkspaceWrite), b.ws, script(victim))
	run(t, b.policy(t, WorkspaceWrite), b.ws, script(".git/config"))
	run(t, b.policy(t, ReadOnly), b.ws, script("README"))
	for _, c := range []struct {
		path   string
		before os.FileInfo
	}{{victim, before}, {filepath.Join(b.ws, ".git", "config"), gitBefore}, {filepath.Join(b.ws, "README"), readmeBefore}} {
		after, _ := os.Stat(c.path)
		if after.Mode() != c.before.Mode() || !after.ModTime().Equal(c.before.ModTime()) {
			t.Errorf("%s changed: mode %v → %v, mtime %v → %v", c.path, c.before.Mode(), after.Mode(), c.before.ModTime(), after.ModTime())
		}
	}
}

// A command's environment is allow-listed: never a provider key or a
// token unless agents.sandbox_env names it.
func TestEnvironment(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-test-secret")
	t.Setenv("GITHUB_TOKEN", "ghp-secret")
	t.Setenv("LC_MESSAGES", "C")
	t.Setenv("LC_SECRET_TOKEN", "nope")
	t.Setenv("GOFLAGS", "-mod=mod")
	for _, mode := range []Mode{WorkspaceWrite, Off} {
		t.Run(string(mode), func(t *testing.T) {
			if mode != Off {
				needSandbox(t)
			}
			b := newBox(t, View)
			p := b.policy(t, mode)
			out, ok := run(t, p, b.ws, "env")
			if !ok {
				t.Fatal(out)
			}
			for _, bad := range []string{"sk-test-secret", "ghp-secret", "LC_SECRET_TOKEN", "GOFLAGS"} {
				if strings.Contains(out, bad) {
					t.Errorf("%s reached the command:\n%s", bad, out)
				}
			}
			good := []string{"PATH=", "LC_MESSAGES=C"}
			if mode != Off {
				good = append(good, "TMPDIR=", "XDG_CACHE_HOME=")
			}
			for _, good := range good {
				if !strings.Contains(out, good) {
					t.Errorf("%s missing:\n%s", good, out)
				}
			}
			p.Env = []string{"GOFLAGS", "GITHUB_TOKEN"}
			if out, _ := run(t, p, b.ws, "env"); !containsAll(out, "GOFLAGS=-mod=mod", "GITHUB_TOKEN=ghp-secret") || strings.Contains(out, "sk-test-secret") {
				t.Errorf("agents.sandbox_env did not pass exactly what it names:\n%s", out)
			}
		})
	}
}

// A kernel that refuses user namespaces (here a seccomp filter on this
// test binary, as a distribution's restriction would) gets Landlock alone,
// says so, and still confines.
func TestUsernsRefusedForReal(t *testing.T) {
	needSandbox(t)
	if probeABI() < MinABI {
		t.Skip("no Landlock to fall back to")
	}
	ws, outside := visibleDir(t), visibleDir(t)
	out := startChild(t, "", childSpec{Workspace: ws, Home: t.TempDir(), Scripts: []string{"touch " + filepath.Join(outside, "x") + " || echo refused", "touch sub-ok && echo wrote"}}, "SANDBOXTEST_NO_USERNS=1")
	if !containsAll(out, "only: user namespaces are unavailable", "refused", "wrote") {
		t.Errorf("with user namespaces refused:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(outside, "x")); err == nil {
		t.Error("a command wrote outside")
	}
}

// A workspace root of 10 000 entries works in a view and costs no more than
// a small one: the view binds the root, it does not list it.
func TestBigWorkspaceRoot(t *testing.T) {
	needView(t)
	b := newBox(t, View)
	for i := range 10000 {
		mustWrite(t, filepath.Join(b.ws, fmt.Sprintf("f%05d", i)), "")
	}
	p := b.policy(t, WorkspaceWrite)
	if out, ok := run(t, p, b.ws, "echo x > f09999 && echo y > new && ls | wc -l"); !ok || !strings.Contains(out, "10003") {
		t.Errorf("10 000-entry root: %q", out)
	}
}

// go test works in a workspace under the system temp dir, with a test that
// listens on loopback, using the workspace's own cache.
func TestGoTestUnderTemp(t *testing.T) {
	needView(t)
	if testing.Short() {
		t.Skip("builds a Go package")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	ws := t.TempDir()
	mustWrite(t, filepath.Join(ws, "go.mod"), "module example.com/m\n\ngo 1.22\n")
	mustWrite(t, filepath.Join(ws, "m_test.go"), `package m

import (
	"net"
	"testing"
)

func TestLoopback(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() { c, _ := l.Accept(); c.Close() }()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
}
`)
	// The workspace's own cache would start empty in every test run (a
	// new workspace): give the build one cache shared across runs, as
	// the person's workspace keeps its own.
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Skip(err)
	}
	gocache := filepath.Join(cache, "yagent-sandbox-test-gocache")
	mustMkdir(t, gocache)
	t.Setenv("GOCACHE", gocache)
	p, err := New(WorkspaceWrite, ws, []string{gocache})
	if err != nil {
		t.Fatal(err)
	}
	p.Home = t.TempDir()
	p.Env = []string{"GOCACHE"}
	defer p.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	cmd, err := p.Command(ctx, ws, goBin, "test", "-count=1", "./...")
	if err != nil {
		t.Fatal(err)
	}
	cmd.Env = append(cmd.Env, "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod", "GOPROXY=off")
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "ok") {
		t.Errorf("go test in a sandboxed workspace under /tmp: %v\n%s", err, out)
	}
}
