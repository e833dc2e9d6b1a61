package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
// ./bin/yagent in the workspace, as after `go build -o bin/yagent`). A
// confined command cannot replace it (it is protected: bound read-only in
// a view, split around under Landlock alone); and when it is replaced
// between two commands anyway (by the person, or anything unconfined), the
// next command is still confined — the helper is this process's image
// (/proc/self/exe), not whatever file now has its name.
func TestHelperNotFoundByPath(t *testing.T) {
	for _, mech := range []string{"view", "landlock"} {
		t.Run(mech, func(t *testing.T) {
			needSandbox(t)
			ws, outside := visibleDir(t), visibleDir(t)
			mustMkdir(t, filepath.Join(ws, "sync"))
			escaped := filepath.Join(outside, "escaped")
			exe := filepath.Join(ws, "bin", "yagent")
			self, err := os.Executable()
			if err != nil {
				t.Fatal(err)
			}
			copyFile(t, self, exe, 0o755)
			script := []byte(fmt.Sprintf("#!/bin/sh\ntouch %s\n", escaped))
			replace := fmt.Sprintf("printf '#!/bin/sh\\ntouch %s\\n' > bin/new && chmod +x bin/new && mv bin/new bin/yagent && echo replaced", escaped)
			// The first command waits (10 s at most) for the test to
			// replace the binary behind its back.
			wait := "touch sync/ready; i=0; while [ ! -e sync/go ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done"
			js, _ := json.Marshal(childSpec{Workspace: ws, Home: t.TempDir(), Scripts: []string{replace, wait, "touch " + escaped + " || echo refused"}})
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, exe)
			cmd.Env = append(os.Environ(), "SANDBOXTEST_CHILD="+string(js))
			if mech == "landlock" {
				cmd.Env = append(cmd.Env, "SANDBOXTEST_NO_USERNS=1")
			}
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
				if _, err := os.Stat(filepath.Join(ws, "sync", "ready")); err == nil {
					break
				}
				if time.Now().After(deadline) {
					cancel()
					cmd.Wait()
					t.Fatalf("the child never reached its second command:\n%s", out.String())
				}
			}
			if err := os.WriteFile(exe+".new", script, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(exe+".new", exe); err != nil {
				t.Fatal(err)
			}
			mustWrite(t, filepath.Join(ws, "sync", "go"), "")
			if err := cmd.Wait(); err != nil {
				t.Fatalf("child: %v (deadline: %v)\n%s", err, ctx.Err(), out.String())
			}
			if _, err := os.Stat(escaped); err == nil {
				t.Fatalf("the last command ran unconfined: the replaced binary was run as the helper\n%s", out.String())
			}
			if !strings.Contains(out.String(), "refused") {
				t.Errorf("the last command was not confined as asked:\n%s", out.String())
			}
			if strings.Contains(out.String(), "\nreplaced\n") {
				t.Errorf("a confined command replaced the yagent binary in the workspace:\n%s", out.String())
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

// TestYagentHomeInWorkspace: $YAGENT_HOME inside the workspace (a person's
// YAGENT_HOME=./.state) stays out of a command's reach: hidden in a view,
// kept read-only under Landlock alone; the rest of the workspace stays
// writable.
func TestYagentHomeInWorkspace(t *testing.T) {
	eachMechanism(t, func(t *testing.T, mech Mechanism) {
		ws := visibleDir(t)
		home := filepath.Join(ws, "state")
		mustMkdir(t, filepath.Join(home, "sessions"))
		mustWrite(t, filepath.Join(home, "config.yaml"), "agents:\n  sandbox: workspace-write\n")
		mustMkdir(t, filepath.Join(ws, "src"))
		p, err := New(WorkspaceWrite, ws, nil)
		if err != nil {
			t.Fatal(err)
		}
		p.Home = home
		force(p, mech)
		defer p.Close()
		out, _ := run(t, p, ws, `echo 'agents: {sandbox: off}' > state/config.yaml && echo wrote-config
touch state/sessions/x && echo wrote-session
rm -rf state/sessions
echo ok > src/f && echo wrote-src`)
		for _, bad := range []string{"wrote-config", "wrote-session"} {
			if strings.Contains(out, bad) {
				t.Errorf("a command %s in $YAGENT_HOME inside the workspace:\n%s", bad, out)
			}
		}
		if !strings.Contains(out, "wrote-src") {
			t.Errorf("the workspace around $YAGENT_HOME is not writable:\n%s", out)
		}
		if data, _ := os.ReadFile(filepath.Join(home, "config.yaml")); strings.Contains(string(data), "off") {
			t.Errorf("config.yaml rewritten: %q", data)
		}
		if _, err := os.Stat(filepath.Join(home, "sessions")); err != nil {
			t.Errorf("a command removed $YAGENT_HOME/sessions: %v\n%s", err, out)
		}
	})
}
