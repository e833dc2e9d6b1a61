package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// childSpec is what a child test process (SANDBOXTEST_CHILD) does: run
// each script confined under workspace-write in Workspace, one after the
// other, as a yagent process would across shell tool calls, and print
// Describe first.
type childSpec struct {
	Workspace, Home string
	Scripts         []string
}

// childRun runs a childSpec and prints each script's output; it returns
// the exit code of the child process.
func childRun(spec string) int {
	var c childSpec
	if err := json.Unmarshal([]byte(spec), &c); err != nil {
		fmt.Fprintln(os.Stderr, "SANDBOXTEST_CHILD:", err)
		return 2
	}
	p, err := New(WorkspaceWrite, c.Workspace, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	p.Home = c.Home
	defer p.Close()
	fmt.Println(p.Describe())
	for _, script := range c.Scripts {
		cmd, err := p.Command(context.Background(), c.Workspace, "sh", "-c", script)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		out, err := cmd.CombinedOutput()
		fmt.Printf("$ %s\n%s(%v)\n", script, out, err)
	}
	return 0
}

// startChild runs this test binary (copied to exe when exe is set) as a
// child doing spec, with env added.
func startChild(t *testing.T, exe string, spec childSpec, env ...string) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if exe != "" {
		copyFile(t, self, exe, 0o755)
		self = exe
	}
	js, _ := json.Marshal(spec)
	cmd := withWaitDelay(exec.CommandContext(childCtx(t), self)) // a hung child fails the test
	cmd.Env = append(append(os.Environ(), "SANDBOXTEST_CHILD="+string(js)), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	return string(out)
}

func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestHelperNotFoundByPath: yagent's binary lies in a writable root (here
// ./bin/yagent in the workspace, as after `go build -o bin/yagent`); one
// confined command tries to replace it with a script, and the next command
// must still be confined — the helper is this process's image, not
// whatever file now has its name. (In a view the binary is also bound
// read-only: the replacement itself fails.)
func TestHelperNotFoundByPath(t *testing.T) {
	for _, mech := range []string{"view", "landlock"} {
		t.Run(mech, func(t *testing.T) {
			needSandbox(t)
			ws, outside := visibleDir(t), visibleDir(t)
			escaped := filepath.Join(outside, "escaped")
			exe := filepath.Join(ws, "bin", "yagent")
			replace := fmt.Sprintf("printf '#!/bin/sh\\ntouch %s\\n' > bin/new && chmod +x bin/new && mv bin/new bin/yagent && echo replaced", escaped)
			var env []string
			if mech == "landlock" {
				env = append(env, "SANDBOXTEST_NO_USERNS=1")
			}
			out := startChild(t, exe, childSpec{Workspace: ws, Home: t.TempDir(), Scripts: []string{replace, "touch " + escaped + " || echo refused"}}, env...)
			if _, err := os.Stat(escaped); err == nil {
				t.Fatalf("the second command ran unconfined: the replaced binary was run as the helper\n%s", out)
			}
			if !strings.Contains(out, "refused") {
				t.Errorf("the second command was not confined as asked:\n%s", out)
			}
			if mech == "view" && strings.Contains(out, "\nreplaced\n") {
				t.Errorf("a command replaced the yagent binary in the workspace, which a view binds read-only:\n%s", out)
			}
		})
	}
}

// TestYagentHomeUnderTemp: $YAGENT_HOME lies in the system temp dir, as
// README's own commands put it; a command must not rewrite its config.yaml
// (sandbox off, an MCP server) for the next run. Commands get a private
// temp dir (TMPDIR, under $YAGENT_HOME/tmp) instead of the system's; in a
// view $YAGENT_HOME is not even visible.
func TestYagentHomeUnderTemp(t *testing.T) {
	eachMechanism(t, func(t *testing.T, mech Mechanism) {
		ws := visibleDir(t)
		home := t.TempDir() // under os.TempDir()
		mustWrite(t, filepath.Join(home, "config.yaml"), "agents:\n  sandbox: workspace-write\n")
		p, err := New(WorkspaceWrite, ws, nil)
		if err != nil {
			t.Fatal(err)
		}
		p.Home = home
		force(p, mech)
		out, _ := run(t, p, ws, `printf 'agents:\n  sandbox: off\n' > "$H/config.yaml" || echo refused-write
mv "$H/config.yaml" "$H/old.yaml" || echo refused-move
touch "$TMPDIR/mine" && echo tmp-ok
touch "$H/../other" || echo refused-system-temp`, "H="+home)
		if data, err := os.ReadFile(filepath.Join(home, "config.yaml")); err != nil || strings.Contains(string(data), "off") {
			t.Fatalf("a confined command rewrote $YAGENT_HOME/config.yaml:\n%s", out)
		}
		for _, want := range []string{"refused-write", "refused-move", "tmp-ok", "refused-system-temp"} {
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		}
		tmp := p.scope.dir
		if !within(filepath.Join(home, "tmp"), tmp) {
			t.Errorf("the private temp dir %s is not under $YAGENT_HOME/tmp", tmp)
		}
		p.Close()
		if _, err := os.Stat(tmp); err == nil {
			t.Errorf("Close left the private temp dir %s", tmp)
		}
	})
}
