package sandbox

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestExplain(t *testing.T) {
	if !osSupported {
		t.Skip("no OS sandbox here: nothing to explain")
	}
	b := newBox(t)
	ww := b.policy(t, WorkspaceWrite)
	ww.ABI = func() int { return MinABI } // explanations need no kernel
	ro := b.policy(t, ReadOnly)
	ro.ABI = ww.ABI
	off := b.policy(t, Off)
	outside := filepath.Join(b.outside, "o")
	git := filepath.Join(b.ws, ".git")
	tests := []struct {
		name   string
		p      *Policy
		output string
		want   []string // substrings of the explanation; nil = no explanation
	}{
		{"coreutils, outside", ww, "touch: cannot touch '" + outside + "': Permission denied\n", []string{outside + " " + whyOutside}},
		{"dash, relative into .git", ww, "sh: 1: cannot create .git/hooks/pre-commit: Permission denied\n", []string{filepath.Join(git, "hooks", "pre-commit") + " is inside " + git}},
		{"git index lock", ww, "fatal: Unable to create '" + git + "/index.lock': Permission denied\n", []string{"is inside " + git}},
		{"new top-level entry", ww, "sh: 1: cannot create top.txt: Permission denied\n", []string{"entries directly in " + b.ws + " cannot be created"}},
		{"python path", ww, "PermissionError: [Errno 13] Permission denied: '/etc/x'\n", []string{"/etc/x " + whyOutside}},
		{"the last quoted name", ww, "fatal: cannot copy '/usr/share/t' to '" + git + "/description': Permission denied\n", []string{git + "/description is inside"}},
		{"gnu quotes", ww, "mkdir: cannot create directory ‘/etc/a’: Permission denied\n", []string{"/etc/a " + whyOutside}},
		{"go dial", ww, "dial tcp 127.0.0.1:8080: connect: permission denied\n", []string{whyNetwork}},
		{"go socket", ww, "listen tcp 127.0.0.1:0: socket: permission denied\n", []string{whyNetwork}},
		{"curl", ww, "curl: (7) Failed to connect to example.com port 443 after 3 ms: Couldn't connect to server\n", []string{whyNetwork}},
		{"a writable file's own mode", ww, "open src/x: permission denied\n", []string{filepath.Join(b.ws, "src", "x") + " " + whyInside}},
		{"read-only", ro, "sh: 1: cannot create src/x: Permission denied\n", []string{whyRO, "[sandbox read-only]"}},
		{"footer", ww, "rm: cannot remove '/etc/passwd': Operation not permitted\n", []string{
			"[sandbox workspace-write]", "Writable here: " + b.ws + " (except " + git, b.tmp + " (the commands' private temp dir, $TMPDIR)", b.extra,
			"agents.sandbox_writable", "--sandbox off", "Do not retry"}},
		{"many lines", ww, strings.Repeat("x: cannot touch '/etc/x': Permission denied\n", 9), []string{"and 4 more such lines"}},
		{"nothing refused", ww, "ok\nexit status fine\n", nil},
		{"off explains nothing", off, "touch: cannot touch '/etc/x': Permission denied\n", nil},
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
	needLandlock(t)
	b := newBox(t)
	p := b.policy(t, WorkspaceWrite)
	outside := filepath.Join(b.outside, "o")
	for _, tc := range []struct{ script, want string }{
		{"echo x > " + outside, outside + " " + whyOutside},
		{"echo x > .git/hooks/pre-commit", "is inside " + filepath.Join(b.ws, ".git")},
	} {
		out, ok := run(t, p, b.ws, tc.script)
		if ok {
			t.Fatalf("%q ran", tc.script)
		}
		if x := p.Explain(out, b.ws); !strings.Contains(x, tc.want) {
			t.Errorf("output %q explained as %q; want %q", out, x, tc.want)
		}
	}
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
