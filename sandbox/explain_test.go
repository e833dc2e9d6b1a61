package sandbox

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestExplain(t *testing.T) {
	if !osSupported {
		t.Skip("no OS sandbox here: nothing to explain")
	}
	b := newBox(t, LandlockOnly)
	ll := b.policy(t, WorkspaceWrite)
	ll.ABI = func() int { return MinABI } // explanations need no kernel
	ll.TempDir = visibleDir(t)
	view := b.policy(t, WorkspaceWrite)
	view.Namespaces = func() error { return nil }
	view.TempDir = ll.TempDir
	ro := b.policy(t, ReadOnly)
	ro.ABI, ro.TempDir = ll.ABI, ll.TempDir
	off := b.policy(t, Off)
	outside := filepath.Join(b.outside, "o")
	git := filepath.Join(b.ws, ".git")
	tests := []struct {
		name   string
		p      *Policy
		output string
		want   []string // substrings of the explanation; nil = no explanation
	}{
		{"coreutils, outside", ll, "touch: cannot touch '" + outside + "': Permission denied\n", []string{outside + " " + whyOutside}},
		{"dash, relative into .git", ll, "sh: 1: cannot create .git/hooks/pre-commit: Permission denied\n", []string{filepath.Join(git, "hooks", "pre-commit") + " is inside " + git}},
		{"git index lock", ll, "fatal: Unable to create '" + git + "/index.lock': Permission denied\n", []string{"is inside " + git}},
		{"new top-level entry", ll, "sh: 1: cannot create top.txt: Permission denied\n", []string{"entries directly in " + b.ws + " cannot be created"}},
		{"python path", ll, "PermissionError: [Errno 13] Permission denied: '/etc/x'\n", []string{"/etc/x " + whyOutside}},
		{"the last quoted name", ll, "fatal: cannot copy '/usr/share/t' to '" + git + "/description': Permission denied\n", []string{git + "/description is inside"}},
		{"gnu quotes", ll, "mkdir: cannot create directory ‘/etc/a’: Permission denied\n", []string{"/etc/a " + whyOutside}},
		{"go dial", ll, "dial tcp 127.0.0.1:8080: connect: permission denied\n", []string{whyNetwork}},
		{"go socket", ll, "listen tcp 127.0.0.1:0: socket: permission denied\n", []string{whyNetwork}},
		{"curl", ll, "curl: (7) Failed to connect to example.com port 443 after 3 ms: Couldn't connect to server\n", []string{whyNetwork}},
		{"a writable file's own mode", ll, "open src/x: permission denied\n", []string{filepath.Join(b.ws, "src", "x") + " " + whyInside}},
		{"read-only", ro, "sh: 1: cannot create src/x: Permission denied\n", []string{whyRO, "[sandbox read-only]"}},
		{"footer", ll, "rm: cannot remove '/etc/passwd': Operation not permitted\n", []string{
			"[sandbox workspace-write]", "Writable here: " + b.ws + " (except " + git, ll.TempDir + " (the commands' private temp dir, $TMPDIR)", b.extra,
			"agents.sandbox_writable", "--sandbox off", "Do not retry"}},
		{"many lines", ll, strings.Repeat("x: cannot touch '/etc/x': Permission denied\n", 9), []string{"and 4 more such lines"}},
		{"nothing refused", ll, "ok\nexit status fine\n", nil},
		{"off explains nothing", off, "touch: cannot touch '/etc/x': Permission denied\n", nil},
		{"view: read-only file system outside", view, "touch: cannot touch '/etc/x': Read-only file system\n", []string{"/etc/x " + whyOutside}},
		{"view: .git", view, "sh: 1: cannot create .git/config: Read-only file system\n", []string{"is inside " + git}},
		{"view: a new top-level entry is fine", view, "sh: 1: cannot create top.txt: Permission denied\n", []string{filepath.Join(b.ws, "top.txt") + " " + whyInside}},
		{"view: a placeholder", view, "mkdir: cannot create directory ‘.yagent/a’: Read-only file system\n", []string{"protected name (.yagent)"}},
		{"view: network", view, "curl: (6) Could not resolve host: example.com\n", []string{whyNetworkView}},
		{"view: unreachable", view, "dial tcp 1.1.1.1:443: connect: network is unreachable\n", []string{whyNetworkView}},
		{"view: hidden", view, "cat: " + filepath.Join(b.outside, ".ssh", "id_rsa") + ": No such file or directory\n", []string{"hides from commands", "agents.sandbox_visible"}},
		{"view: a missing file is not explained", view, "cat: nope.txt: No such file or directory\n", nil},
		{"view: the system temp dir", view, "sh: 1: cannot create /tmp/elsewhere/x: Directory nonexistent\n", []string{"/tmp/elsewhere/x " + whyHostTemp}},
		{"view: footer", view, "rm: cannot remove '/etc/passwd': Read-only file system\n", []string{ll.TempDir + " (the commands' private temp dir, $TMPDIR, seen as /tmp)", "the network is the command's own loopback only"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.p.Explain(tt.output, b.ws)
			if tt.want == nil {
				if got != "" {
					t.Errorf("Explain(%q) = %q; want nothing", tt.output, got)
				}
				return
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("Explain(%q) =\n%s\nlacks %q", tt.output, got, w)
				}
			}
		})
	}
}

// A real refusal, as the kernel reports it, is explained with its path.
func TestExplainRealRefusal(t *testing.T) {
	eachMechanism(t, func(t *testing.T, mech Mechanism) {
		b := newBox(t, mech)
		p := b.policy(t, WorkspaceWrite)
		outside := filepath.Join(b.outside, "o")
		for _, tc := range []struct{ script, want string }{
			{"echo x > " + outside, outside + " " + whyOutside},
			{"echo x > .git/hooks/pre-commit", "is inside " + filepath.Join(b.ws, ".git")},
		} {
			cmd, err := p.Command(childCtx(t), b.ws, "sh", "-c", tc.script)
			if err != nil {
				t.Fatal(err)
			}
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("%q ran", tc.script)
			}
			if x := cmd.Explain(string(out)); !strings.Contains(x, tc.want) {
				t.Errorf("output %q explained as %q; want %q", out, x, tc.want)
			}
		}
	})
}

// FuzzRefusedTarget: never panics; a target is always taken from the line.
func FuzzRefusedTarget(f *testing.F) {
	for _, s := range []string{
		"touch: cannot touch '/x': Permission denied",
		"sh: 1: cannot create a: Permission denied",
		"PermissionError: [Errno 13] Permission denied: '/etc/x'",
		"dial tcp 1.2.3.4:80: connect: permission denied",
		": Permission denied", "'", "‘",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		target, _ := refusedTarget(line)
		if !strings.Contains(line, target) {
			t.Fatalf("refusedTarget(%q) = %q, not in the line", line, target)
		}
	})
}

// refusedTarget takes the refused path from the usual spellings of a
// refusal, a quoted name holding ": " included, or says the line is about
// a connection.
func TestRefusedTarget(t *testing.T) {
	for _, c := range []struct {
		line, want string
		network    bool
	}{
		{"touch: cannot touch 'a: b': Permission denied", "a: b", false},
		{"sh: 1: cannot create /etc/x: Permission denied", "/etc/x", false},
		{"open /etc/x: permission denied", "/etc/x", false},
		{"x: Permission denied", "x", false},
		{"cannot write x: Permission denied", "", false},
		{"PermissionError: [Errno 13] Permission denied: '/etc/x'", "/etc/x", false},
		{"dial tcp 127.0.0.1:80: connect: permission denied", "", true},
		{": Permission denied", "", false},
		{"Permission denied", "", false},
	} {
		got, network := refusedTarget(c.line)
		if got != c.want || network != c.network {
			t.Errorf("refusedTarget(%q) = %q, %v; want %q, %v", c.line, got, network, c.want, c.network)
		}
	}
}

// The footer names each writable root once, with what is kept read-only
// inside it and, under Landlock alone, where nothing can be created.
func TestWritableList(t *testing.T) {
	for _, c := range []struct {
		name string
		pl   *plan
		want []string
	}{
		{"plain roots", &plan{writable: []string{"/w", "/e"}}, []string{"/w", "/e"}},
		{"a protected path inside", &plan{writable: []string{"/w", "/e"}, protected: []string{"/w/.git"}}, []string{"/w (except /w/.git)", "/e"}},
		{"split under Landlock", &plan{writable: []string{"/w"}, protected: []string{"/w/.git"}, rules: &rules{Split: []string{"/w"}}},
			[]string{"/w (except /w/.git; nothing created or removed directly in /w)"}},
		{"protected, not split", &plan{writable: []string{"/w"}, protected: []string{"/w"}, rules: &rules{}}, []string{"/w (except /w)"}},
		{"temp dir and cache", &plan{writable: []string{"/t", "/c"}, tmp: "/t", cache: "/c", mech: View, protected: []string{"/t/x"}},
			[]string{"/t (the commands' private temp dir, $TMPDIR, seen as /tmp)", "/c (the workspace's cache for commands, $XDG_CACHE_HOME)"}},
	} {
		var p *Policy
		if got := p.writableList(c.pl); !slices.Equal(got, c.want) {
			t.Errorf("%s: %q; want %q", c.name, got, c.want)
		}
	}
	if got := clip("abc", 3); got != "abc" {
		t.Errorf("clip at its length: %q", got)
	}
	if got := clip("abcd", 3); got != "abc…" {
		t.Errorf("clip past its length: %q", got)
	}
}
