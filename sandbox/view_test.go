package sandbox

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
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
// filled meanwhile. Each process records its hold under $YAGENT_HOME. An
// unheld placeholder lingers a little for the next command of a burst (2 s
// by default), and is made again if it went meanwhile.
func TestPlaceholdersShared(t *testing.T) {
	needView(t)
	b := newBox(t, View)
	p := b.policy(t, WorkspaceWrite)
	yagent := filepath.Join(b.ws, ".yagent")
	defer func(d time.Duration) { placeholderLinger = d }(placeholderLinger)
	// By default it lingers after the command.
	if placeholderLinger < time.Second {
		t.Errorf("placeholders linger %v by default; want a second or more", placeholderLinger)
	}
	run(t, p, b.ws, "true")
	if _, err := os.Stat(yagent); err != nil {
		t.Errorf("the placeholder did not linger after the command: %v", err)
	}
	// Gone meanwhile (a person removed it): the next command makes it
	// again.
	if err := os.Remove(yagent); err != nil {
		t.Fatal(err)
	}
	if o, _ := run(t, p, b.ws, "mkdir -p .yagent/x && echo made"); strings.Contains(o, "made") {
		t.Errorf("a lingering placeholder removed meanwhile was not made again: %q", o)
	}
	flushPlaceholders()
	if _, err := os.Stat(yagent); err == nil {
		t.Error("flushPlaceholders left the placeholder")
	}

	placeholderLinger = 0 // removed as soon as unheld
	long, err := p.Command(childCtx(t), b.ws, "sh", "-c", "sleep 1; test -d .yagent && echo held")
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	long.Stdout = &out
	if err := long.Start(); err != nil {
		t.Fatal(err)
	}
	if markers, _ := filepath.Glob(filepath.Join(b.home, "sandbox", "placeholders", "*", fmt.Sprint(os.Getpid()))); len(markers) == 0 {
		t.Error("no marker of this process's hold under $YAGENT_HOME/sandbox/placeholders")
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
	if _, err := os.Stat(yagent); err == nil {
		t.Error("the placeholder outlived the last command")
	}
	// Unheld, it lingers for the next command of a burst, then goes by
	// itself.
	placeholderLinger = 300 * time.Millisecond
	run(t, p, b.ws, "true")
	if _, err := os.Stat(yagent); err != nil {
		t.Errorf("the placeholder did not linger after the command: %v", err)
	}
	time.Sleep(time.Second)
	if _, err := os.Stat(yagent); err == nil {
		t.Error("the placeholder outlived its linger")
	}
	// A command planned while a placeholder lingers holds it: its linger
	// ending before the command starts (a busy machine) must not leave
	// the name missing from the view, where the command could create it.
	run(t, p, b.ws, "true")
	c, err := p.Command(childCtx(t), b.ws, "sh", "-c", "mkdir -p .yagent/x 2>/dev/null && echo created; test -d .yagent && echo held")
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	if o, _ := c.CombinedOutput(); strings.Contains(string(o), "created") || !strings.Contains(string(o), "held") {
		t.Errorf("a command planned while the placeholder lingered, started after its linger: %q; want .yagent there, read-only", o)
	}
	if _, err := os.Stat(filepath.Join(yagent, "x")); err == nil {
		t.Error("a command created .yagent/x")
	}
	flushPlaceholders()
	os.RemoveAll(yagent)
	// A person's own .yagent, made while a command runs, stays.
	c, _ = p.Command(childCtx(t), b.ws, "sleep", "0.5")
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

// Two holds of one placeholder (two commands planned at once, before
// either made it) keep it until both are released.
func TestPlaceholderHolds(t *testing.T) {
	if !osSupported {
		t.Skip("no placeholders here")
	}
	b := newBox(t, View)
	p := b.policy(t, WorkspaceWrite)
	defer func(d time.Duration) { placeholderLinger = d }(placeholderLinger)
	placeholderLinger = 0
	yagent := filepath.Join(b.ws, ".yagent")
	// Each hold and release takes the marker directory's flock: one left
	// held (a release that never unlocks) blocks the next for ever, so
	// each step has a deadline that fails saying what it waited on.
	lock := filepath.Join(p.markerDir(yagent), "lock")
	hold := func(what string) func() {
		t.Helper()
		var r func()
		var err error
		stepWithin(t, what+" (takes "+lock+")", func() { r, err = p.hold([]string{yagent}) })
		if err != nil {
			t.Fatal(err)
		}
		return func() { t.Helper(); stepWithin(t, "release of "+what+" (takes "+lock+")", r) }
	}
	r1 := hold("the first hold")
	r2 := hold("the second hold")
	r1()
	if _, err := os.Stat(yagent); err != nil {
		t.Errorf("released once of two holds, the placeholder went: %v", err)
	}
	r2()
	if _, err := os.Stat(yagent); err == nil {
		t.Error("released twice, the placeholder stays")
	}
	// Another yagent process (a live pid's marker) still holds it; a
	// dead one's marker does not.
	other := exec.Command("sleep", "30")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { other.Process.Kill(); other.Wait() }()
	r3 := hold("a hold after both were released")
	otherMarker := filepath.Join(p.markerDir(yagent), fmt.Sprint(other.Process.Pid))
	mustWrite(t, otherMarker, yagent+"\n")
	r3()
	if _, err := os.Stat(yagent); err != nil {
		t.Errorf("released here while another process holds it, the placeholder went: %v", err)
	}
	other.Process.Kill()
	other.Wait()
	r4 := hold("a hold after the other process ended")
	r4()
	if _, err := os.Stat(yagent); err == nil {
		t.Error("the marker of a process that ended keeps the placeholder")
	}
	if _, err := os.Stat(otherMarker); err == nil {
		t.Error("the marker of a process that ended stays")
	}
}

// placeholderDeadline bounds one step of TestPlaceholderHolds.
var placeholderDeadline = 30 * time.Second

// stepWithin runs f and fails the test when it has not returned within
// placeholderDeadline, naming what it waited on and where f is blocked.
// f stays blocked (a flock cannot be interrupted), holding the
// placeholders' mutex that every later hold and the test's own cleanup
// wait on: neither t.Fatal nor a panic would end the run (the cleanup
// would hang in its turn), so the failure is written to stderr and the
// test binary exits.
func stepWithin(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(placeholderDeadline):
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		var stuck []string
		for _, g := range strings.Split(string(buf), "\n\n") {
			if strings.Contains(g, "sandbox.lockDir") || strings.Contains(g, "syscall.Flock") {
				stuck = append(stuck, g)
			}
		}
		fmt.Fprintf(os.Stderr, "--- FAIL: %s\n    %s: still waiting after %s (a lock left held?); blocked in:\n%s\n",
			t.Name(), what, placeholderDeadline, strings.Join(stuck, "\n\n"))
		os.Exit(1)
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
	if out, ok := run(t, p, b.ws, "find /run/ /var/run/ -mindepth 1"); !ok || strings.TrimSpace(out) != "" {
		t.Errorf("/run is not empty in a view (daemons' sockets): %q", out)
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
		// What a command made unreadable or unwritable goes too.
		if out, ok := in(a, `mkdir -p "$TMPDIR/locked/sub" && touch "$TMPDIR/locked/sub/f" && chmod 0 "$TMPDIR/locked/sub" "$TMPDIR/locked"`); !ok {
			t.Fatalf("scope a: %q", out)
		}
		dir := a.dir
		if err := a.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		if _, err := os.Stat(dir); err == nil {
			t.Errorf("Close left %s", dir)
		}
		if _, err := a.tempDir(p.tempRoot()); err == nil {
			t.Error("a closed scope gave a temp dir")
		}
	})
	asNobody(t) // (root removes what a command locked anyway)
}

// A scope's temp dir is a real path, links resolved, wherever the system
// temp dir leads.
func TestScopeDirResolved(t *testing.T) {
	real := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", link)
	p := &Policy{Mode: WorkspaceWrite}
	defer p.Close()
	dir, err := p.tempDir(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if r, err := filepath.EvalSymlinks(dir); err != nil || r != dir || !strings.HasPrefix(dir, real) {
		t.Errorf("scope dir %s (real %s, %v); want it resolved, under %s", dir, r, err, real)
	}
	if again, _ := p.tempDir(t.Context()); again != dir {
		t.Errorf("a scope's second command got %s, not %s", again, dir)
	}
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

// hostListeners serve on the host's loopback, IPv4 and (where the host
// has it) IPv6, over TCP and UDP: what a confined command must never
// reach. reached reports a connection accepted or a datagram received
// since the last call.
type hostListeners struct {
	tcp, udp []string // addresses
	accepted chan string
	packets  []net.PacketConn
}

func listenOnHost(t *testing.T) *hostListeners {
	t.Helper()
	h := &hostListeners{accepted: make(chan string, 64)}
	for _, host := range []string{"127.0.0.1", "[::1]"} {
		l, err := net.Listen("tcp", host+":0")
		if err != nil {
			if host == "[::1]" {
				t.Logf("no IPv6 loopback on this host: %v", err)
				continue
			}
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				h.accepted <- "tcp " + l.Addr().String() + " from " + c.RemoteAddr().String()
				c.Close()
			}
		}()
		u, err := net.ListenPacket("udp", host+":0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { u.Close() })
		h.tcp = append(h.tcp, l.Addr().String())
		h.udp = append(h.udp, u.LocalAddr().String())
		h.packets = append(h.packets, u)
	}
	return h
}

// reached returns what reached the listeners: connections accepted and
// datagrams received (waiting a little for those in flight).
func (h *hostListeners) reached() []string {
	var got []string
	deadline := time.After(200 * time.Millisecond)
	for done := false; !done; {
		select {
		case a := <-h.accepted:
			got = append(got, a)
		case <-deadline:
			done = true
		}
	}
	for _, u := range h.packets {
		buf := make([]byte, 64)
		for {
			u.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
			n, from, err := u.ReadFrom(buf)
			if err != nil {
				break
			}
			got = append(got, fmt.Sprintf("udp %s: %q from %s", u.LocalAddr(), buf[:n], from))
		}
	}
	return got
}

// tryNet runs the network client (netClient) confined under p and
// returns its output and whether it succeeded.
func tryNet(t *testing.T, p *Policy, dir, spec string) (string, bool) {
	t.Helper()
	if !slices.Contains(p.Env, "SANDBOXTEST_NET") {
		p.Env = append(p.Env, "SANDBOXTEST_NET")
	}
	cmd, err := p.Command(childCtx(t), dir, client(t))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Env = append(cmd.Env, "SANDBOXTEST_NET="+spec)
	out, err := cmd.CombinedOutput()
	return string(out), err == nil
}

// A view's network is its own loopback: a test's local server works (IPv4
// and IPv6), nothing outside is reachable — not the host's loopback
// listeners, IPv4 or IPv6, over TCP, MPTCP or UDP. Landlock alone refuses
// every IP socket, IPv6 included (the seccomp filter: Landlock does not
// see UDP), with EACCES.
func TestNetwork(t *testing.T) {
	host := listenOnHost(t)
	eachMechanism(t, func(t *testing.T, mech Mechanism) {
		b := newBox(t, mech)
		for _, mode := range []Mode{WorkspaceWrite, ReadOnly} {
			p := b.policy(t, mode)
			var outside []string
			for _, a := range host.tcp {
				outside = append(outside, "tcp "+a, "mptcp "+a)
			}
			for _, a := range host.udp {
				outside = append(outside, "udp "+a)
			}
			for _, spec := range outside {
				out, ok := tryNet(t, p, b.ws, spec)
				// UDP is sent into a view's own loopback (which
				// no one serves), or refused.
				if ok && !strings.HasPrefix(spec, "udp ") {
					t.Errorf("%s: %s: reached outside (%q)", mode, spec, out)
				}
				if mech == LandlockOnly && (ok || !strings.Contains(out, "permission denied")) {
					t.Errorf("%s: %s: ok = %v, %q; want the socket refused with EACCES", mode, spec, ok, out)
				}
			}
			for _, spec := range []string{"loopback", "loopback6", "listen"} {
				out, ok := tryNet(t, p, b.ws, spec)
				if want := mech == View; ok != want {
					t.Errorf("%s: %s: ok = %v; want %v (%q)", mode, spec, ok, want, out)
				}
				if mech == LandlockOnly && !strings.Contains(out, "permission denied") {
					t.Errorf("%s: %s failed, but not with EACCES: %q", mode, spec, out)
				}
			}
			if got := host.reached(); len(got) > 0 {
				t.Errorf("%s: a confined command reached the host's loopback: %q", mode, got)
			}
		}
	})
}

// An abstract Unix socket served outside the sandbox (as D-Bus, X11 or a
// container runtime serve theirs) is unreachable: a view has its own
// network namespace, whose abstract names are its own; Landlock alone
// scopes abstract sockets from ABI 6 on. A socket the command serves
// itself stays usable.
func TestAbstractSocket(t *testing.T) {
	name := fmt.Sprintf("yagent-sandbox-test-%d", os.Getpid())
	l, err := net.Listen("unix", "@"+name)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	accepted := make(chan struct{}, 16)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
			accepted <- struct{}{}
		}
	}()
	eachMechanism(t, func(t *testing.T, mech Mechanism) {
		if mech == LandlockOnly && probeABI() < 6 {
			t.Skipf("Landlock ABI %d cannot scope abstract Unix sockets (a limit of Landlock alone before ABI 6)", probeABI())
		}
		b := newBox(t, mech)
		for _, mode := range []Mode{WorkspaceWrite, ReadOnly} {
			p := b.policy(t, mode)
			if out, ok := tryNet(t, p, b.ws, "abstract "+name); ok {
				t.Errorf("%s: connected to @%s served outside (%q)", mode, name, out)
			}
			if out, ok := tryNet(t, p, b.ws, "abstract-self"); !ok {
				t.Errorf("%s: a command could not use an abstract socket of its own: %q", mode, out)
			}
		}
		// At ABI 6, the first that scopes them, as at this kernel's.
		if mech == LandlockOnly {
			p := b.policy(t, WorkspaceWrite)
			p.ABI = func() int { return 6 }
			if out, ok := tryNet(t, p, b.ws, "abstract "+name); ok {
				t.Errorf("at Landlock ABI 6: connected to @%s served outside (%q)", name, out)
			}
		}
		select {
		case <-accepted:
			t.Error("a confined command reached an abstract socket outside")
		case <-time.After(100 * time.Millisecond):
		}
	})
}

// System calls that would reach outside, or give back what was dropped,
// are refused in both mechanisms; reading addresses over netlink works.
// Where the kernel would answer otherwise without the sandbox's seccomp
// filter the answer must be the filter's own: EACCES for a socket, EPERM
// for io_uring (whose operations bypass the socket and file checks) and
// the x32 ABI (whose calls the filter's numbers do not name); a device's
// own ioctl is Landlock's (ABI 5) — and the same probes run unconfined
// show the kernel would not refuse them.
func TestSyscallsRefused(t *testing.T) {
	const eperm, eacces = "operation not permitted", "permission denied"
	filterOnly := []string{"syscall io_uring", "syscall io_uring_enter", "syscall io_uring_register", "syscall rndgetentcnt", "syscall ptrace"}
	if runtime.GOARCH == "amd64" {
		filterOnly = append(filterOnly, "syscall x32")
	}
	eachMechanism(t, func(t *testing.T, mech Mechanism) {
		b := newBox(t, mech)
		p := b.policy(t, WorkspaceWrite)
		for _, c := range []struct{ spec, want string }{
			{"socket packet", eacces}, {"socket vsock", eacces}, {"socket netlink-audit", eacces},
			{"syscall unshare-user", eperm}, {"syscall clone-user", eperm}, {"syscall mount", ""}, {"syscall chroot", ""},
			{"syscall sethostname", ""}, {"syscall settimeofday", ""}, {"syscall ptrace", eperm},
			{"syscall bpf", ""}, {"syscall keyctl", eperm},
			{"syscall io_uring", eperm}, {"syscall io_uring_enter", eperm}, {"syscall io_uring_register", eperm},
			{"syscall x32", eperm},
			{"syscall rndgetentcnt", eacces}, // Landlock ABI 5's ioctl right on devices
		} {
			if c.spec == "syscall x32" && runtime.GOARCH != "amd64" || c.spec == "syscall rndgetentcnt" && probeABI() < 5 {
				continue // the x32 ABI is amd64's; device ioctls are Landlock ABI 5's
			}
			if out, ok := tryNet(t, p, b.ws, c.spec); ok || !strings.Contains(out, c.want) {
				t.Errorf("%s: ok = %v, %q; want it refused (%q)", c.spec, ok, out, c.want)
			}
		}
		if out, ok := tryNet(t, p, b.ws, "socket netlink-route"); !ok {
			t.Errorf("reading addresses over netlink refused: %q", out)
		}
		off := b.policy(t, Off)
		for _, spec := range filterOnly {
			if out, _ := tryNet(t, off, b.ws, spec); strings.Contains(out, eperm) || strings.Contains(out, eacces) {
				t.Logf("%s unconfined: %q: this system refuses it itself, so here the test cannot tell the sandbox's refusal", spec, out)
			}
		}
	})
}

// Every capability is gone, also for root: a command keeping one could
// unmount the view's read-only binds; the securebits that keep root from
// regaining any at exec are set and locked. Run as root, the test runs
// again as an unprivileged user (whose helper gets ambient capabilities
// to build the view, and must drop them).
func TestCapabilitiesDropped(t *testing.T) {
	eachMechanism(t, func(t *testing.T, mech Mechanism) {
		b := newBox(t, mech)
		p := b.policy(t, WorkspaceWrite)
		out, ok := run(t, p, b.ws, "grep -E '^Cap(Inh|Prm|Eff|Bnd|Amb)' /proc/self/status; grep NoNewPrivs /proc/self/status")
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
		// (Unprivileged under Landlock alone they cannot change, and
		// need not: there is no capability to regain.)
		if mech == View || os.Getuid() == 0 {
			const locked = 0xef // NOROOT, NO_SETUID_FIXUP, NO_CAP_AMBIENT_RAISE and their locks, KEEP_CAPS_LOCKED
			out, ok := tryNet(t, p, b.ws, "securebits")
			var bits int
			if _, err := fmt.Sscanf(strings.TrimSpace(out), "securebits %v", &bits); !ok || err != nil || bits&locked != locked {
				t.Errorf("securebits: %q; want %#x set", out, locked)
			}
		}
		if os.Getuid() == 0 {
			mustWrite(t, filepath.Join(b.ws, "src", "mine"), "x")
			if out, ok := run(t, b.policy(t, WorkspaceWrite), b.ws, "chown 1234 src/mine"); ok {
				t.Errorf("root in the sandbox could chown: %q", out)
			}
		}
	})
	asNobody(t)
}

// asNobody runs the calling test (one of eachMechanism's) again in a copy
// of this test binary as the unprivileged user 65534, when the tests run
// as root, and fails with its output if it fails, skips every mechanism,
// or has not ended within two minutes.
func asNobody(t *testing.T) {
	t.Helper()
	if os.Getuid() != 0 || !osSupported {
		return
	}
	home, err := os.MkdirTemp("", "yagent-sandbox-nobody-") // its TMPDIR: in the system temp dir
	if err != nil {
		t.Fatal(err)
	}
	defer removeTree(home)
	if err := os.Chown(home, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, client(t), "-test.run=^"+t.Name()+"$", "-test.count=1", "-test.v")
	cmd.Dir = home
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TMPDIR=" + home}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	// (A run whose every subtest skipped proves nothing.)
	if err != nil || !strings.Contains(string(out), "--- PASS: "+t.Name()+"/") {
		t.Errorf("%s as uid 65534: %v (deadline: %v)\n%s", t.Name(), err, ctx.Err(), out)
	}
}

// Run by root, a view maps every user and group id as it is: files keep
// their owners (a root command still cannot chown: it has no capability).
func TestOwnersKept(t *testing.T) {
	needView(t)
	if os.Getuid() != 0 {
		t.Skip("an unprivileged person's view maps their own ids only")
	}
	b := newBox(t, View)
	f := filepath.Join(b.ws, "src", "owned")
	mustWrite(t, f, "x")
	if err := os.Chown(f, 1234, 5678); err != nil {
		t.Fatal(err)
	}
	if out, ok := run(t, b.policy(t, WorkspaceWrite), b.ws, "stat -c '%u %g' src/owned; id -u"); !ok || strings.Join(strings.Fields(out), " ") != "1234 5678 0" {
		t.Errorf("owner in the view, and the command's uid: %q; want 1234 5678, 0", out)
	}
}

// A view holds without Landlock (a kernel with namespaces but no Landlock,
// 5.12 and older, or one built without it): each of its own steps
// confines by itself — the read-only root, the protected paths, a minimal
// read-only /dev, read-only masks, a visible path read-only, and the
// read-only skeleton around a workspace under the system temp dir.
func TestViewAlone(t *testing.T) {
	needView(t)
	b := newBox(t, View)
	mustMkdir(t, filepath.Join(b.outside, ".ssh"))
	mustWrite(t, filepath.Join(b.outside, ".ssh", "known_hosts"), "host key\n")
	mustMkdir(t, filepath.Join(b.outside, ".aws"))
	mustWrite(t, filepath.Join(b.outside, ".aws", "config"), "[default]\n")
	mustWrite(t, filepath.Join(b.outside, ".netrc"), "machine x password y\n")
	p := b.policy(t, WorkspaceWrite)
	p.ABI = func() int { return 0 }
	// One visible path is a hidden one itself, the other inside one.
	p.Visible = []string{filepath.Join(b.outside, ".aws"), filepath.Join(b.outside, ".ssh", "known_hosts")}
	if d := p.Describe(); !strings.Contains(d, "no Landlock") {
		t.Fatalf("not a view without Landlock: %s", d)
	}
	for _, c := range []struct{ name, script string }{
		{"outside every root", "echo x > " + filepath.Join(b.outside, "o")},
		{".git", "echo x >> .git/config"},
		{"a new device node's place", "touch /dev/yagent-sandbox-probe-$$ && rm /dev/yagent-sandbox-probe-$$"},
		{"a hidden directory's mask", "mkdir " + filepath.Join(b.outside, ".ssh", "x")},
		// (the mask is the host's /dev/null: a write goes nowhere, but its
		// times and mode are the host's device's)
		{"a hidden file's mask", "touch -d 2000-01-01 " + filepath.Join(b.outside, ".netrc")},
		{"a visible path", "echo x >> " + filepath.Join(b.outside, ".aws", "config")},
		{"a visible path inside a hidden one", "echo x >> " + filepath.Join(b.outside, ".ssh", "known_hosts")},
		{"the root", "mkdir /yagent-sandbox-probe-$$ && rmdir /yagent-sandbox-probe-$$"},
	} {
		if out, ok := run(t, p, b.ws, c.script+" && echo wrote"); ok || strings.Contains(out, "wrote") {
			t.Errorf("%s: %q wrote (%q)", c.name, c.script, out)
		}
	}
	if out, ok := run(t, p, b.ws, "ls -A /dev | tr '\\n' ' '"); !ok || strings.TrimSpace(out) != "fd full null ptmx pts random shm stderr stdin stdout urandom zero" {
		t.Errorf("/dev holds %q; want the few harmless devices only", out)
	}
	if out, ok := run(t, p, b.ws, "echo x > src/ok && cat .git/config "+filepath.Join(b.outside, ".ssh", "known_hosts")); !ok || !strings.Contains(out, "host key") {
		t.Errorf("the workspace is not writable, or .git or a visible path not readable: %q", out)
	}
	// No Landlock means no ruleset at all: one of ABI 1 (the least there
	// is) would refuse a hard link from one directory to another (EXDEV).
	if out, ok := run(t, p, b.ws, "mkdir -p src/la src/lb && echo x > src/la/f && ln src/la/f src/lb/f && echo linked"); !ok || !strings.Contains(out, "linked") {
		t.Errorf("a hard link across workspace directories failed in a view without Landlock: %q", out)
	}
	// A workspace under the system temp dir: the directories on the way
	// to it in the private /tmp are read-only.
	ws := filepath.Join(t.TempDir(), "deep", "ws")
	mustMkdir(t, ws)
	q, err := New(WorkspaceWrite, ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	q.Home, q.UserHome, q.ABI = b.home, b.outside, p.ABI
	defer q.Close()
	if out, ok := run(t, q, ws, "touch ../escape && echo wrote; mkdir ../../x && echo made; echo x > mine"); strings.Contains(out, "wrote") || strings.Contains(out, "made") || !ok {
		t.Errorf("around a workspace under the system temp dir: %q", out)
	}
	if _, err := os.Stat(filepath.Join(ws, "mine")); err != nil {
		t.Errorf("the workspace under the system temp dir is not writable: %v", err)
	}
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
	hostTmp := t.TempDir()
	t.Setenv("TMPDIR", hostTmp)
	t.Setenv("XDG_CACHE_HOME", hostTmp)
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
			// The command's temp dir and cache are the sandbox's, never
			// the host's, whatever yagent's environment says.
			if out, _ := run(t, p, b.ws, "printenv TMPDIR XDG_CACHE_HOME"); mode != Off && strings.Contains(out, hostTmp) || mode == Off && !strings.Contains(out, hostTmp) {
				t.Errorf("TMPDIR, XDG_CACHE_HOME: %q (yagent's: %s)", out, hostTmp)
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

// A path of the spec gone between the plan and the helper (a writable
// root, a read-only one, a bind's source) is skipped: nothing to bind,
// and the command runs in the rest of the view.
func TestViewSkipsVanishedPaths(t *testing.T) {
	needView(t)
	b := newBox(t, View)
	p := b.policy(t, WorkspaceWrite)
	cmd, err := p.Command(childCtx(t), b.ws, "sh", "-c", "echo x > ran && cat ran")
	if err != nil {
		t.Fatal(err)
	}
	i := slices.Index(cmd.Args, "--")
	if i < 0 {
		t.Fatalf("no -- in %q", cmd.Args)
	}
	gone := filepath.Join(b.outside, "gone")
	extra := []string{"-rw", gone + "-rw", "-ro", gone + "-ro", "-bind", gone + "-bind", filepath.Join(b.ws, "bound")}
	cmd.Args = slices.Insert(cmd.Args, i, extra...)
	if out, err := cmd.CombinedOutput(); err != nil || string(out) != "x\n" {
		t.Errorf("with vanished paths in the spec: %v, %q; want the command run", err, out)
	}
}

// Where the kernel refuses a new proc (a /proc with something mounted over
// part of it, as in many containers), the command gets an empty read-only
// /proc, never the host's with its processes and their environments. The
// test runs itself again in a mount namespace where /proc/version is
// covered (by a mount the sandbox's user namespace cannot remove: the
// kernel then refuses it a proc of its own).
func TestViewWithoutProc(t *testing.T) {
	needView(t)
	if os.Getenv("YAGENT_TEST_PROC_COVERED") == "1" {
		b := newBox(t, View)
		mustMkdir(t, filepath.Join(b.outside, ".ssh"))
		p := b.policy(t, WorkspaceWrite)
		p.ABI = func() int { return 0 } // the view alone: the rest of it is built too
		out, ok := run(t, p, b.ws, "echo entries $(ls -A /proc | wc -l); cat /proc/self/status || echo no status; mkdir "+filepath.Join(b.outside, ".ssh", "x")+" && echo made; true")
		if !ok || !strings.Contains(out, "entries 0\n") || !strings.Contains(out, "no status") || strings.Contains(out, "made") {
			t.Errorf("with proc refused: %v, %q; want an empty /proc, and the rest of the view (a hidden directory's mask read-only)", ok, out)
		}
		return
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("no unshare (util-linux) to cover part of /proc")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	flags := []string{"--mount", "--propagation", "private"}
	if os.Geteuid() != 0 {
		flags = append([]string{"--user", "--map-root-user"}, flags...)
	}
	cmd := exec.CommandContext(childCtx(t), "unshare", append(flags, "--", "sh", "-c", `mount --bind /dev/null /proc/version && exec "$@"`,
		"sh", self, "-test.run", "^TestViewWithoutProc$", "-test.v", "-test.count=1")...)
	cmd.Env = append(os.Environ(), "YAGENT_TEST_PROC_COVERED=1")
	out, err := cmd.CombinedOutput()
	if err == nil && strings.Contains(string(out), "--- SKIP: TestViewWithoutProc") {
		// As a user without privileges, unshare's user namespace may not
		// nest the sandbox's (seen as uid 65534 here).
		t.Skipf("in a mount namespace with /proc/version covered, the view could not start:\n%s", out)
	}
	if err != nil || !strings.Contains(string(out), "--- PASS: TestViewWithoutProc") {
		t.Errorf("in a mount namespace with /proc/version covered: %v\n%s", err, out)
	}
}
