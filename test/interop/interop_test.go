// Package interop tests yagent's MCP server and client against real peers
// from the npm registry: the official TypeScript SDK's client against
// `yagent mcp serve` (stdio and streamable HTTP, read and write tokens), and
// server-everything and server-filesystem as MCP servers of a yagent run;
// and `yagent acp` against the official TypeScript ACP client SDK
// (acp_test.go, acp-client.mjs).
// The packages are pinned in package.json and package-lock.json; .ci/run
// installs them into .ci/node (YAGENT_INTEROP_NODE_DIR moves it). Without
// node or the packages every test skips, saying how to install them.
package interop

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/yagent/yagent/internal/testio"
	"github.com/yagent/yagent/kb"
	"github.com/yagent/yagent/llm/llmtest"
)

var packages = []string{"@agentclientprotocol/sdk", "@modelcontextprotocol/sdk", "@modelcontextprotocol/server-everything", "@modelcontextprotocol/server-filesystem"}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// nodeModules returns the node_modules directory holding the pinned
// packages, or skips the test saying what is missing.
func nodeModules(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: the MCP and ACP interop tests need node ≥ 18 and the packages .ci/run installs")
	}
	dir := os.Getenv("YAGENT_INTEROP_NODE_DIR")
	if dir == "" {
		dir = filepath.Join(repoRoot(t), ".ci", "node")
	}
	nm := filepath.Join(dir, "node_modules")
	for _, p := range packages {
		if _, err := os.Stat(filepath.Join(nm, p, "package.json")); err != nil {
			t.Skipf("%s is not installed under %s: run `cp test/interop/package*.json .ci/node/ && npm ci --prefix .ci/node` (bash .ci/run does)", p, dir)
		}
	}
	return nm
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binary != "" {
		os.RemoveAll(filepath.Dir(binary))
	}
	os.Exit(code)
}

var (
	buildOnce sync.Once
	binary    string
	buildErr  error
)

// yagentBinary builds the yagent command once per test binary.
func yagentBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "yagent-interop-")
		if err != nil {
			buildErr = err
			return
		}
		binary = filepath.Join(dir, "yagent")
		cmd := testio.Command(t, 5*time.Minute, "go", "build", "-o", binary, "./cmd/yagent")
		cmd.Dir = repoRoot(t)
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binary
}

// env is a yagent home of its own.
type env struct {
	t    *testing.T
	bin  string
	home string // YAGENT_HOME
	vars []string
}

func newEnv(t *testing.T, extra ...string) *env {
	dir := t.TempDir()
	home := filepath.Join(dir, ".yagent")
	vars := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "USER=alice",
		"YAGENT_HOME=" + home, "YAGENT_NOTES_ROOT=" + filepath.Join(dir, "notes")}
	return &env{t: t, bin: yagentBinary(t), home: home, vars: append(vars, extra...)}
}

// with returns the environment plus more variables.
func (e *env) with(vars ...string) *env {
	c := *e
	c.vars = append(slices.Clone(e.vars), vars...)
	return &c
}

// cmd is the yagent command with args, killed when ctx ends (WaitDelay:
// even when a child of its own holds its output).
func (e *env) cmd(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, e.bin, args...)
	cmd.Env = e.vars
	cmd.WaitDelay = 10 * time.Second
	return cmd
}

// yagent runs a command and returns its stdout, failing the test on error
// (or when it still runs after testio.ChildTimeout).
func (e *env) yagent(args ...string) string {
	e.t.Helper()
	var out, errOut bytes.Buffer
	ctx, cancel := context.WithTimeout(e.t.Context(), testio.ChildTimeout)
	defer cancel()
	cmd := e.cmd(ctx, args...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		e.t.Fatalf("yagent %s: %v\n%s", strings.Join(args, " "), err, errOut.String())
	}
	return out.String()
}

// seed makes a project with one note and returns a read and a write token.
func (e *env) seed() (read, write string) {
	e.t.Helper()
	docs := e.t.TempDir()
	os.WriteFile(filepath.Join(docs, "deploy.md"), []byte("# Deploy guide\n\nRun make deploy.\n"), 0o644)
	e.yagent("kb", "projects", "create", "acme/web")
	e.yagent("kb", "import", docs, "--project", "acme/web")
	read = strings.TrimSpace(e.yagent("kb", "token", "create", "--name", "ts-read", "--read"))
	write = strings.TrimSpace(e.yagent("kb", "token", "create", "--name", "ts-write", "--write"))
	return read, write
}

// report is what client.mjs prints.
type report struct {
	Server        struct{ Name string }
	Tools         []string
	Annotations   map[string]map[string]any
	OutputSchemas []string
	Calls         map[string]struct {
		IsError    bool
		Text       string
		Structured map[string]any
		Thrown     string
	}
}

// tsClient runs client.mjs (next to the packages, so node resolves them).
func tsClient(t *testing.T, nm string, e *env, args ...string) report {
	t.Helper()
	dir := t.TempDir()
	src, err := os.ReadFile("client.mjs")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "client.mjs"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(nm, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", append([]string{filepath.Join(dir, "client.mjs")}, args...)...)
	cmd.Env = e.vars
	cmd.WaitDelay = 10 * time.Second // the yagent it starts may hold stderr
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("node client.mjs %v: %v\n%s", args, err, errOut.String())
	}
	var r report
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("client.mjs printed %q: %v", out.String(), err)
	}
	return r
}

// checkReport asserts what the TypeScript client saw with a read or a
// write token.
func checkReport(t *testing.T, r report, write bool) {
	t.Helper()
	if r.Server.Name != "yagent" {
		t.Errorf("server name %q", r.Server.Name)
	}
	var want []string
	for _, ti := range kb.ToolsFor(kb.Caller{Write: write}) {
		want = append(want, ti.Name)
	}
	want = append(want, "board_list_boards", "board_list_notes", "board_read_note")
	slices.Sort(want)
	if !slices.Equal(r.Tools, want) {
		t.Errorf("tools/list (write %v) = %v; want %v", write, r.Tools, want)
	}
	for name, a := range r.Annotations {
		for _, k := range []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"} {
			if _, ok := a[k]; !ok {
				t.Errorf("%s: annotation %s missing on the wire", name, k)
			}
		}
		if a["openWorldHint"] != false {
			t.Errorf("%s: openWorldHint = %v", name, a["openWorldHint"])
		}
	}
	if n := len(r.OutputSchemas); n != len(kb.ToolsFor(kb.Caller{Write: write})) {
		t.Errorf("%d tools declare an output schema; want every intent tool", n)
	}
	for _, key := range []string{"whoami", "search", "get_note", "boards"} {
		c := r.Calls[key]
		if c.IsError || c.Thrown != "" {
			t.Errorf("%s: %+v", key, c)
		}
	}
	if got := r.Calls["whoami"].Structured["access"]; got != map[bool]string{true: "write", false: "read"}[write] {
		t.Errorf("whoami access = %v", got)
	}
	if c := r.Calls["bad_project"]; !c.IsError || !strings.HasPrefix(c.Text, "notFound: ") {
		t.Errorf("list_notes of an unknown project = %+v; want an error result", c)
	}
	c := r.Calls["create_note"]
	if write && (c.IsError || c.Thrown != "" || c.Structured["id"] == nil) {
		t.Errorf("create_note with a write token = %+v", c)
	}
	if !write && !strings.Contains(c.Thrown, "unknown tool") {
		t.Errorf("create_note with a read token = %+v; want an unknown tool", c)
	}
}

// TestTypeScriptClientStdio: the official TypeScript SDK client starts
// `yagent mcp serve` on stdio with a read and a write token.
func TestTypeScriptClientStdio(t *testing.T) {
	nm := nodeModules(t)
	e := newEnv(t)
	read, write := e.seed()
	for _, tc := range []struct {
		token string
		write bool
	}{{read, false}, {write, true}} {
		r := tsClient(t, nm, e.with("YAGENT_KB_TOKEN="+tc.token), "stdio", e.bin, "mcp", "serve")
		checkReport(t, r, tc.write)
	}
}

// TestTypeScriptClientHTTP: the official TypeScript SDK client over
// streamable HTTP with bearer tokens, against `yagent mcp serve --http`.
func TestTypeScriptClientHTTP(t *testing.T) {
	nm := nodeModules(t)
	e := newEnv(t)
	read, write := e.seed()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithTimeout(t.Context(), testio.ChildTimeout)
	defer cancel()
	srv := e.cmd(ctx, "mcp", "serve", "--http", addr)
	stderr, _ := srv.StderrPipe()
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stderr)
	if !lines.Scan() || !strings.Contains(lines.Text(), "serving the knowledge base on http://"+addr+"/mcp") {
		t.Fatalf("mcp serve --http said %q", lines.Text())
	}
	go func() {
		for lines.Scan() {
		}
	}()
	url := "http://" + addr + "/mcp"
	checkReport(t, tsClient(t, nm, e, "http", url, read), false)
	checkReport(t, tsClient(t, nm, e, "http", url, write), true)
	srv.Process.Signal(syscall.SIGINT)
	if err := srv.Wait(); err != nil {
		t.Errorf("mcp serve --http after SIGINT: %v; want exit 0", err)
	}
}

// TestYagentClientWithNpmServers: a yagent run whose model calls a tool of
// server-everything and one of server-filesystem, started from
// mcp_servers:.
func TestYagentClientWithNpmServers(t *testing.T) {
	nm := nodeModules(t)
	model := scriptedModel(t, "mcp-npm-servers")
	e := newEnv(t, "OPENAI_BASE_URL="+model.URL(), "YAGENT_MODEL=scripted")
	shared := t.TempDir()
	os.WriteFile(filepath.Join(shared, "notes.txt"), []byte("hi\n"), 0o644)
	cfg := fmt.Sprintf(`kb:
  enabled: false
mcp_servers:
  everything:
    command: node
    args: [%q, stdio]
    allow: [echo]             # a headless run: the tools it calls must be allowed
  fs:
    command: node
    args: [%q, %q]
    allow: [list_directory]
`, filepath.Join(nm, "@modelcontextprotocol", "server-everything", "dist", "index.js"),
		filepath.Join(nm, "@modelcontextprotocol", "server-filesystem", "dist", "index.js"), shared)
	if err := os.MkdirAll(e.home, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.home, "config.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	ls := e.yagent("mcp", "ls")
	for _, want := range []string{"mcp_everything__echo", "mcp_fs__list_directory"} {
		if !strings.Contains(ls, want) {
			t.Errorf("yagent mcp ls lacks %s:\n%s", want, ls)
		}
	}
	out := e.yagent("run", "--cd", shared, "list the directory "+shared+" and echo a greeting")
	if !strings.Contains(out, "The echo came back and the directory holds notes.txt.") {
		t.Errorf("run printed %q", out)
	}
	if p, u := model.Pending(), model.Unmatched(); len(p) > 0 || len(u) > 0 {
		t.Errorf("scenario: pending steps %v, %d unmatched requests", p, len(u))
	}
}

// scriptedModel serves testdata/scenarios/NAME.yaml until the test ends.
func scriptedModel(t *testing.T, name string) *llmtest.Server {
	t.Helper()
	sc, err := llmtest.Load(filepath.Join(repoRoot(t), "testdata", "scenarios", name+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	model, err := llmtest.Start(sc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(model.Close)
	return model
}
