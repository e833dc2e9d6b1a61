package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/mcp/mcptest"
)

// helperServer configures this test binary as a stdio MCP server (see
// TestMain), every tool allowed (the gate is TestClientToolsGated's).
func helperServer(extraEnv ...string) config.MCPServer {
	env := map[string]string{mcptest.EnvVar: "1"}
	for i := 0; i+1 < len(extraEnv); i += 2 {
		env[extraEnv[i]] = extraEnv[i+1]
	}
	return config.MCPServer{Command: os.Args[0], Env: env, Timeout: config.Duration(10 * time.Second), Enabled: true, Allow: []string{"*"}}
}

// headless is the policy of a run where nobody can be asked.
var headless = agents.ShellPolicy{Approval: agents.ApproveOnRequest}

// notes collects Notify messages.
type notes struct {
	mu  sync.Mutex
	got []string
}

func (n *notes) add(msg string) { n.mu.Lock(); n.got = append(n.got, msg); n.mu.Unlock() }
func (n *notes) all() string    { n.mu.Lock(); defer n.mu.Unlock(); return strings.Join(n.got, "\n") }

func newServers(t *testing.T, cfg map[string]config.MCPServer) (*Servers, *notes) {
	t.Helper()
	n := &notes{}
	s := NewServers(cfg, ServersOptions{Version: "test", Notify: n.add})
	t.Cleanup(func() { s.Close() })
	return s, n
}

func toolByName(tools []*agents.Tool, name string) *agents.Tool {
	for _, t := range tools {
		if t.Name == name {
			return t
		}
	}
	return nil
}

func runExternal(t *testing.T, tool *agents.Tool, args string) agents.Result {
	t.Helper()
	res, err := tool.Run(t.Context(), &agents.Call{Name: tool.Name, Args: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("%s: %v", tool.Name, err)
	}
	return res
}

var validName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// TestClientToolsNamingAndFamily pins how external tools join the
// registry: family mcp_<server>, names mcp_<server>__<tool> sanitised and
// at most 64 bytes, descriptions as the server gave them, Writes unless the
// server says read-only, a schema that does not compile left out (with a
// notice), a disabled server never started.
func TestClientToolsNamingAndFamily(t *testing.T) {
	off := helperServer()
	off.Enabled = false
	s, n := newServers(t, map[string]config.MCPServer{"helper": helperServer(), "off": off})
	tools, errs := s.Tools(t.Context(), headless)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	var names []string
	for _, tool := range tools {
		names = append(names, tool.Name)
		if tool.Family != "mcp_helper" || !validName.MatchString(tool.Name) {
			t.Errorf("tool %s family %s; want family mcp_helper and a name matching %s", tool.Name, tool.Family, validName)
		}
	}
	want := []string{"mcp_helper__crash", "mcp_helper__dotted_name_with_spaces", "mcp_helper__echo", "mcp_helper__fail", "mcp_helper__slow", "mcp_helper__write_file"}
	if !slices.Equal(names, want) {
		t.Errorf("tools = %v; want %v (bad_schema left out)", names, want)
	}
	if !strings.Contains(n.all(), "bad_schema left out") {
		t.Errorf("notices = %q; want the skipped tool reported", n.all())
	}
	echo := toolByName(tools, "mcp_helper__echo")
	if echo.Description != "Echo the text back. (as the server wrote it)" || !echo.Flags.Has(agents.Writes) {
		t.Errorf("echo: description %q, flags %v", echo.Description, echo.Flags)
	}
	if slow := toolByName(tools, "mcp_helper__slow"); slow.Flags.Has(agents.Writes) {
		t.Error("a tool the server marks read-only got the Writes flag")
	}
	if res := runExternal(t, echo, `{"text":"hi"}`); res.IsError || !strings.HasPrefix(res.Content, "echo: hi") {
		t.Errorf("echo = %+v", res)
	}
	if res := runExternal(t, toolByName(tools, "mcp_helper__fail"), `{}`); !res.IsError || !strings.Contains(res.Content, "always fails") {
		t.Errorf("fail = %+v; want the server's error as an error result", res)
	}
	list := s.List(t.Context())
	if len(list) != 2 || list[0].Status != "running" || list[1].Status != "disabled" || len(list[1].Tools) != 0 {
		t.Errorf("List = %+v", list)
	}
}

func TestToolName(t *testing.T) {
	long := strings.Repeat("x", 80)
	for _, tc := range []struct{ server, tool, want string }{
		{"fs", "list_directory", "mcp_fs__list_directory"},
		{"my.server", "a/b c", "mcp_my_server__a_b_c"},
		{"s", "ünï", "mcp_s___n_"},
	} {
		if got := ToolName(tc.server, tc.tool); got != tc.want {
			t.Errorf("ToolName(%q, %q) = %q; want %q", tc.server, tc.tool, got, tc.want)
		}
	}
	a, b := ToolName("s", long+"a"), ToolName("s", long+"b")
	if len(a) > 64 || !validName.MatchString(a) || a == b {
		t.Errorf("long names %q and %q: want ≤ 64 valid bytes, distinct", a, b)
	}
}

// TestClientGates pins that external tools pass the registry's gates like
// any tool: a sub-agent whose definition lists tools gets only those (by
// name, glob or family), one without a tools list gets them all (existing
// behaviour), a read-only turn loses tools that may write.
func TestClientGates(t *testing.T) {
	s, _ := newServers(t, map[string]config.MCPServer{"helper": helperServer()})
	tools, _ := s.Tools(t.Context(), headless)
	reg := agents.NewRegistry(tools...)
	count := func(g agents.Gates) []string { return agents.Names(reg.Reachable(g)) }
	if got := count(agents.Gates{SubAgent: true, Master: true, Allow: []string{"read_file"}}); len(got) != 0 {
		t.Errorf("sub-agent without mcp tools in its list reaches %v", got)
	}
	if got := count(agents.Gates{SubAgent: true, Master: true, Allow: []string{"mcp_helper__echo"}}); !slices.Equal(got, []string{"mcp_helper__echo"}) {
		t.Errorf("by name: %v", got)
	}
	if got := count(agents.Gates{SubAgent: true, Master: true, Allow: []string{"family:mcp_helper"}}); len(got) != len(tools) {
		t.Errorf("by family: %v", got)
	}
	if got := count(agents.Gates{SubAgent: true, Master: true, Allow: []string{"mcp_helper__*"}}); len(got) != len(tools) {
		t.Errorf("by glob: %v", got)
	}
	if got := count(agents.Gates{SubAgent: true, Master: true}); len(got) != len(tools) {
		t.Errorf("no tools list: %v; want every tool", got)
	}
	if got := count(agents.Gates{ReadOnly: true}); !slices.Equal(got, []string{"mcp_helper__slow"}) {
		t.Errorf("read-only turn: %v; want only the read-only tool", got)
	}
}

// TestClientTimeout pins the per-call timeout: a call the server does not
// answer in time is an error result naming the timeout, and the server
// keeps serving.
func TestClientTimeout(t *testing.T) {
	// The timeout also bounds the server's start: 2s leaves room for a
	// loaded machine to start the helper under the race detector.
	cfg := helperServer()
	cfg.Timeout = config.Duration(2 * time.Second)
	s, _ := newServers(t, map[string]config.MCPServer{"helper": cfg})
	tools, errs := s.Tools(t.Context(), headless)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	start := time.Now()
	res := runExternal(t, toolByName(tools, "mcp_helper__slow"), `{"millis":30000}`)
	if !res.IsError || !strings.Contains(res.Content, "within 2s") || !strings.Contains(res.Content, "mcp_servers.helper.timeout") {
		t.Errorf("slow = %+v; want a timeout result", res)
	}
	if d := time.Since(start); d > 15*time.Second { // half the 30s the call asked for
		t.Errorf("the timed-out call took %v", d)
	}
	if res := runExternal(t, toolByName(tools, "mcp_helper__slow"), `{"millis":1}`); res.IsError {
		t.Errorf("after a timeout: %+v", res)
	}
}

// TestClientCrashRestartOnce pins crash handling: a server that dies is
// reported, restarted at the next call (once: the call says so), and a
// second death leaves its tools answering that they are unavailable.
func TestClientCrashRestartOnce(t *testing.T) {
	s, n := newServers(t, map[string]config.MCPServer{"helper": helperServer()})
	tools, _ := s.Tools(t.Context(), headless)
	echo, crash := toolByName(tools, "mcp_helper__echo"), toolByName(tools, "mcp_helper__crash")
	pid := func(res agents.Result) string { _, p, _ := strings.Cut(res.Content, "pid="); return p }
	first := runExternal(t, echo, `{"text":"a"}`)
	if res := runExternal(t, crash, `{}`); !res.IsError {
		t.Errorf("crash = %+v; want an error result", res)
	}
	waitFor(t, func() bool { return strings.Contains(n.all(), "mcp server helper stopped") })
	second := runExternal(t, echo, `{"text":"b"}`)
	if second.IsError || !strings.Contains(second.Content, "restarted") || pid(second) == pid(first) {
		t.Errorf("after a crash: %+v; want the echo from a new process, marked restarted", second)
	}
	if !strings.Contains(n.all(), "mcp server helper restarted") {
		t.Errorf("notices %q; want the restart reported", n.all())
	}
	runExternal(t, crash, `{}`)
	waitFor(t, func() bool { return strings.Count(n.all(), "mcp server helper stopped") == 2 })
	third := runExternal(t, echo, `{"text":"c"}`)
	if !third.IsError || !strings.Contains(third.Content, "already restarted 1 time") {
		t.Errorf("after a second crash: %+v; want unavailable", third)
	}
	if st := s.List(t.Context())[0]; st.Status != "stopped" {
		t.Errorf("status = %+v; want stopped", st)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatal("condition not met within 10s")
}

// TestClientStartFailure pins that a server that cannot start is reported
// with its name and command, its tools are left out, the others still
// work, and it is not started again for the next session.
func TestClientStartFailure(t *testing.T) {
	s, _ := newServers(t, map[string]config.MCPServer{
		"broken":  helperServer("MCPTEST_CRASH_ON_START", "no config"),
		"missing": {Command: "yagent-no-such-program", Enabled: true, Timeout: config.Duration(5 * time.Second)},
		"helper":  helperServer(),
	})
	tools, errs := s.Tools(t.Context(), headless)
	if len(errs) != 2 || !strings.Contains(errs[0].Error(), "start mcp server broken") || !strings.Contains(errs[1].Error(), "yagent-no-such-program") {
		t.Errorf("errs = %v; want both failures named", errs)
	}
	if len(tools) == 0 || tools[0].Family != "mcp_helper" {
		t.Errorf("tools = %v; want the helper's", agents.Names(tools))
	}
	_, errs2 := s.Tools(t.Context(), headless)
	if len(errs2) != 2 || errs2[0] != errs[0] {
		t.Errorf("second session: %v; want the same recorded failures, no new start", errs2)
	}
}

// TestClientHTTPBearer pins url servers: the bearer token comes from
// token_env, and yagent's own gateway serves as the peer.
func TestClientHTTPBearer(t *testing.T) {
	f := newFixture(t)
	srv := httptest.NewServer(f.gw.HTTPHandler())
	defer srv.Close()
	getenv := func(k string) string {
		if k == "KB_TOKEN" {
			return f.read
		}
		return ""
	}
	cfg := map[string]config.MCPServer{
		"kb":    {URL: srv.URL, TokenEnv: "KB_TOKEN", Enabled: true, Timeout: config.Duration(10 * time.Second), Allow: []string{"whoami"}},
		"nokey": {URL: srv.URL, TokenEnv: "UNSET_TOKEN", Enabled: true},
	}
	s := NewServers(cfg, ServersOptions{Getenv: getenv})
	defer s.Close()
	tools, errs := s.Tools(t.Context(), headless)
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "UNSET_TOKEN is empty") {
		t.Errorf("errs = %v; want the empty token variable named", errs)
	}
	whoami := toolByName(tools, "mcp_kb__whoami")
	if whoami == nil || toolByName(tools, "mcp_kb__create_note") != nil {
		t.Fatalf("tools = %v; want the read token's tools", agents.Names(tools))
	}
	if whoami.Flags.Has(agents.Writes) {
		t.Error("whoami (readOnlyHint) got the Writes flag")
	}
	if res := runExternal(t, whoami, `{}`); res.IsError || !strings.Contains(res.Content, `"access":"read"`) {
		t.Errorf("whoami over HTTP = %+v", res)
	}
}

// TestServerTimeoutAsConfigured pins that a server's timeout is the
// configured one (config resolves the default and refuses 0): no fallback
// of this package's own, and 0 would be no bound rather than a default.
func TestServerTimeoutAsConfigured(t *testing.T) {
	for _, d := range []time.Duration{0, 2 * time.Second} {
		r := &remote{cfg: config.MCPServer{Timeout: config.Duration(d)}}
		ctx, cancel := r.bounded(t.Context())
		deadline, ok := ctx.Deadline()
		cancel()
		if want := d > 0; ok != want || ok && time.Until(deadline) > d {
			t.Errorf("timeout %v: deadline %v (set %v); want one %v away", d, deadline, ok, d)
		}
	}
}

// TestClientNeverEchoesBearerToken pins that a url server's bearer token
// (token_env) never comes back out of yagent: not in a start failure (a
// 401 whose JSON-RPC error echoes the Authorization header), not in
// `mcp ls`'s error, not in a tool's result when the server refuses a call
// with the header echoed.
func TestClientNeverEchoesBearerToken(t *testing.T) {
	f := newFixture(t)
	gw := f.gw.HTTPHandler()
	echo := func(w http.ResponseWriter, r *http.Request, status int) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		msg, _ := json.Marshal("refused, you sent " + r.Header.Get("Authorization"))
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":%s}}`, msg)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		switch {
		case strings.Contains(r.URL.Path, "/locked"):
			echo(w, r, http.StatusUnauthorized)
		case bytes.Contains(body, []byte(`"tools/call"`)):
			echo(w, r, http.StatusForbidden)
		default:
			gw.ServeHTTP(w, r)
		}
	}))
	defer srv.Close()
	getenv := func(k string) string { return map[string]string{"KB_TOKEN": f.read}[k] }
	cfg := map[string]config.MCPServer{
		"kb":     {URL: srv.URL, TokenEnv: "KB_TOKEN", Enabled: true, Timeout: config.Duration(10 * time.Second), Allow: []string{"*"}},
		"locked": {URL: srv.URL + "/locked", TokenEnv: "KB_TOKEN", Enabled: true, Timeout: config.Duration(10 * time.Second)},
	}
	s := NewServers(cfg, ServersOptions{Getenv: getenv})
	defer s.Close()
	tools, errs := s.Tools(t.Context(), headless)
	var texts []string
	for _, err := range errs {
		texts = append(texts, err.Error())
	}
	for _, info := range s.List(t.Context()) {
		texts = append(texts, info.Error)
	}
	whoami := toolByName(tools, "mcp_kb__whoami")
	if whoami == nil || len(errs) != 1 {
		t.Fatalf("tools %v, errs %v; want kb's tools and locked's failure", agents.Names(tools), errs)
	}
	res := runExternal(t, whoami, `{}`)
	texts = append(texts, res.Content, res.Summary)
	if !res.IsError || !strings.Contains(res.Content, "refused, you sent Bearer [redacted]") {
		t.Errorf("whoami = %+v; want the refusal with the token redacted", res)
	}
	if !strings.Contains(errs[0].Error(), "Bearer [redacted]") {
		t.Errorf("start failure %q; want the echoed header, redacted", errs[0])
	}
	for _, text := range texts {
		if strings.Contains(text, f.read) {
			t.Errorf("the token shows in %q", text)
		}
	}
}
