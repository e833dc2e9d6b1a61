package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/yagent/yagent/internal/testio"
	"github.com/yagent/yagent/llm/llmtest"
)

// mcpGateScenario makes the model call the helper server's write_file
// with a path outside the workspace (OUT/<case>.txt); case:always writes
// twice, then calls echo.
const mcpGateScenario = `
name: mcp-gate
steps:
  - id: always-1
    repeat: true
    match: {contains: "case:always", last_role: user}
    reply:
      tool_calls:
        - {name: mcp_helper__write_file, arguments: {path: "OUT/always-1.txt", content: pwned}}
  - id: always-2
    repeat: true
    match: {contains: "case:always", last_contains: "always-1.txt"}
    reply:
      tool_calls:
        - {name: mcp_helper__write_file, arguments: {path: "OUT/always-2.txt", content: pwned}}
  - id: always-echo
    repeat: true
    match: {contains: "case:always", last_contains: "always-2.txt"}
    reply:
      tool_calls:
        - {name: mcp_helper__echo, arguments: {text: hi}}
  - id: write
    repeat: true
    match: {contains: "case:", last_role: user}
    capture: {file: 'case:([a-z0-9-]+)'}
    reply:
      tool_calls:
        - {name: mcp_helper__write_file, arguments: {path: "OUT/${file}.txt", content: pwned}}
  - id: done
    repeat: true
    match: {last_role: tool}
    reply: {text: "Done."}
`

// TestMCPToolApproval pins, on the real binary with a real MCP server
// (mcp-test-server, a child process outside the sandbox whose write_file
// writes anywhere), that a tool of an external MCP server is asked about
// like a command (issue 25, item 10): headless — run, under
// --allow-shell, --approval never or untrusted, and a batch's sub-agent —
// the call is refused with the shell's wording and the file outside the
// workspace is not written; on a terminal y runs it, n refuses it, a runs
// that tool unasked for the rest of the session while another tool is
// still asked about; mcp_servers.helper.allow [write_file] or ["*"] in the
// person's config runs it unasked, headless; the same key in an untrusted
// workspace's file is ignored, in a trusted one's it applies.
func TestMCPToolApproval(t *testing.T) {
	bin, err := exec.LookPath("yagent") // testscript.Main put it on PATH
	if err != nil {
		t.Fatalf("yagent test binary not on PATH: %v", err)
	}
	out := t.TempDir() // outside every workspace
	sc, err := llmtest.Parse([]byte(strings.ReplaceAll(mcpGateScenario, "OUT/", out+"/")), "mcp-gate")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := llmtest.Start(sc)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	written := func(name string) bool {
		_, err := os.Stat(filepath.Join(out, name+".txt"))
		return err == nil
	}

	// setup returns yagent with args in a fresh workspace and home whose
	// config has the helper server with allow ("": no allow key), and
	// the workspace.
	setup := func(t *testing.T, allow string, args ...string) (*exec.Cmd, string) {
		t.Helper()
		work := t.TempDir()
		home := filepath.Join(work, "home", ".yagent")
		cfg := "kb:\n  enabled: false\nmcp_servers:\n  helper:\n    command: mcp-test-server\n    env: {MCPTEST_SERVER: \"1\"}\n    timeout: 20s\n"
		if allow != "" {
			cfg += "    allow: " + allow + "\n"
		}
		agent := "---\nname: mcp-user\ndescription: Uses the helper server.\ntools: [mcp_helper__write_file]\n---\nUse the helper.\n"
		for name, content := range map[string]string{"config.yaml": cfg, "agents/mcp-user.md": agent} {
			if err := os.MkdirAll(filepath.Dir(filepath.Join(home, name)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(home, name), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		cmd := testio.Command(t, testio.ChildTimeout, bin, args...)
		cmd.Dir = work
		cmd.Env = append(os.Environ(),
			"HOME="+filepath.Join(work, "home"), "YAGENT_HOME="+home,
			"YAGENT_NOTES_ROOT="+filepath.Join(work, "notes"),
			"OPENAI_BASE_URL="+srv.URL(), "OPENAI_API_KEY=", "YAGENT_MODEL=scripted", "TERM=dumb",
		)
		return cmd, work
	}
	// headless runs cmd with stdin /dev/null and returns stdout, stderr.
	headless := func(t *testing.T, cmd *exec.Cmd) (string, string) {
		t.Helper()
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		stdout, err := cmd.Output()
		if err != nil {
			t.Fatalf("%v: %v\nstderr:\n%s", cmd.Args, err, stderr.String())
		}
		return string(stdout), stderr.String()
	}
	refused := func(t *testing.T, name, stderr string) {
		t.Helper()
		if written(name) {
			t.Errorf("the MCP server's write_file wrote %s outside the workspace with nobody asked\nstderr:\n%s", name, stderr)
		}
		if strings.Contains(stderr, "allow?") {
			t.Errorf("asked a question nobody can answer\nstderr:\n%s", stderr)
		}
		for _, want := range []string{"`write_file` of mcp server `helper` is not allowed in this run: nobody can be asked", "mcp_servers.helper.allow"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("the refusal lacks %q\nstderr:\n%s", want, stderr)
			}
		}
	}

	for _, tt := range []struct {
		name  string
		flags []string
	}{
		{"allow-shell", []string{"--allow-shell"}},
		{"never", []string{"--allow-shell", "--approval", "never"}},
		{"untrusted", []string{"--approval", "untrusted"}},
	} {
		t.Run("headless "+tt.name, func(t *testing.T) {
			name := "headless-" + tt.name
			cmd, _ := setup(t, "", append(append([]string{"run"}, tt.flags...), "case:"+name)...)
			stdout, stderr := headless(t, cmd)
			refused(t, name, stderr)
			if strings.TrimSpace(stdout) != "Done." {
				t.Errorf("stdout = %q; want the final answer", stdout)
			}
		})
	}
	t.Run("batch sub-agent", func(t *testing.T) {
		cmd, work := setup(t, "", "batch", "plan.yaml")
		plan := "delegations:\n  - id: w\n    agent: mcp-user\n    task: case:batch\n"
		if err := os.WriteFile(filepath.Join(work, "plan.yaml"), []byte(plan), 0o644); err != nil {
			t.Fatal(err)
		}
		headless(t, cmd)
		// The batch printer shows delegations, not tool results: read the
		// result the sub-agent's model got.
		got := ""
		for _, r := range srv.Requests() {
			if last := r.Messages[len(r.Messages)-1]; r.Agent == "mcp-user" && last.Role == "tool" {
				got = last.Content
			}
		}
		refused(t, "batch", got)
	})
	for _, allow := range []string{"[write_file]", `["*"]`} {
		t.Run("allow "+allow, func(t *testing.T) {
			name := "allowed-" + strings.Trim(allow, `[]"`)
			name = strings.NewReplacer("_", "-", "*", "all").Replace(name)
			cmd, _ := setup(t, allow, "run", "case:"+name)
			if _, stderr := headless(t, cmd); !written(name) {
				t.Errorf("a tool listed in mcp_servers.helper.allow did not run\nstderr:\n%s", stderr)
			}
		})
	}
	for _, trusted := range []bool{false, true} {
		t.Run(fmt.Sprintf("workspace allow, trusted %v", trusted), func(t *testing.T) {
			name := fmt.Sprintf("workspace-trusted-%v", trusted)
			cmd, work := setup(t, "", "run", "case:"+name)
			if err := os.MkdirAll(filepath.Join(work, ".yagent"), 0o755); err != nil {
				t.Fatal(err)
			}
			ws := "mcp_servers:\n  helper:\n    allow: [\"*\"]\n"
			if err := os.WriteFile(filepath.Join(work, ".yagent", "config.yaml"), []byte(ws), 0o644); err != nil {
				t.Fatal(err)
			}
			if trusted {
				trust := testio.Command(t, testio.ChildTimeout, bin, "trust", work)
				trust.Env, trust.Dir = cmd.Env, work
				if b, err := trust.CombinedOutput(); err != nil {
					t.Fatalf("yagent trust: %v\n%s", err, b)
				}
			}
			_, stderr := headless(t, cmd)
			if trusted {
				if !written(name) {
					t.Errorf("a trusted workspace's mcp_servers.helper.allow did not apply\nstderr:\n%s", stderr)
				}
				return
			}
			refused(t, name, stderr)
			if !strings.Contains(stderr, "ignoring mcp_servers.helper.allow of") {
				t.Errorf("the untrusted workspace's allow is not reported as ignored\nstderr:\n%s", stderr)
			}
		})
	}

	// On a terminal: the question, then the answer's effect.
	terminal := func(t *testing.T, prompt string, keys ...string) string {
		t.Helper()
		cmd, _ := setup(t, "", "run", prompt)
		ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 200})
		if err != nil {
			t.Skipf("no pseudo-terminal here: %v", err)
		}
		defer ptmx.Close()
		screen := &testio.Buffer{}
		go io.Copy(screen, ptmx)
		for i, key := range keys {
			if !waitForCount(screen, "allow?", i+1, screenWait) {
				cmd.Process.Kill()
				t.Fatalf("no question %d on the terminal; screen:\n%s", i+1, screen)
			}
			ptmx.Write([]byte(key))
		}
		// A question more than expected waits for a key: do not wait for ever.
		stop := time.AfterFunc(60*time.Second, func() { cmd.Process.Kill() })
		defer stop.Stop()
		if err := cmd.Wait(); err != nil {
			t.Fatalf("yagent run: %v; screen:\n%s", err, screen)
		}
		if n := strings.Count(screen.String(), "allow?"); n != len(keys) {
			t.Errorf("asked %d times; want %d; screen:\n%s", n, len(keys), screen)
		}
		return screen.String()
	}
	t.Run("terminal y", func(t *testing.T) {
		screen := terminal(t, "case:tty-yes", "y")
		if !written("tty-yes") {
			t.Errorf("approved call did not run; screen:\n%s", screen)
		}
		for _, want := range []string{"? call the tool `write_file` of mcp server `helper` (mcp_helper__write_file) with these arguments:",
			`    "path": "` + filepath.Join(out, "tty-yes.txt") + `",`, `    "content": "pwned"`,
			"[a]lways `mcp_helper__write_file …` this session"} {
			if !strings.Contains(screen, want) {
				t.Errorf("the question lacks %q; screen:\n%s", want, screen)
			}
		}
	})
	t.Run("terminal n", func(t *testing.T) {
		screen := terminal(t, "case:tty-no", "n")
		if written("tty-no") || !strings.Contains(screen, "declined") {
			t.Errorf("declined call ran or was not reported; screen:\n%s", screen)
		}
	})
	t.Run("terminal a", func(t *testing.T) {
		screen := terminal(t, "case:always", "a", "y")
		if !written("always-1") || !written("always-2") {
			t.Errorf("always: both calls of write_file should run; screen:\n%s", screen)
		}
		if !strings.Contains(screen, "? call the tool `echo` of mcp server `helper`") {
			t.Errorf("another tool of the server was not asked about after always; screen:\n%s", screen)
		}
	})
}

// waitForCount waits until text occurs n times in b.
func waitForCount(b *testio.Buffer, text string, n int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if strings.Count(b.String(), text) >= n {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}
