package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// acpReport is what acp-client.mjs prints.
type acpReport struct {
	SessionID  string `json:"sessionId"`
	Initialize struct {
		AgentCapabilities struct {
			LoadSession bool `json:"loadSession"`
		} `json:"agentCapabilities"`
		AgentInfo struct{ Name string } `json:"agentInfo"`
	}
	Errors map[string]*struct {
		Code    int
		Message string
	}
	Updates          []map[string]any
	Replayed         []map[string]any
	CancelledUpdates []map[string]any `json:"cancelledUpdates"`
	Permissions      []struct {
		ToolCall struct {
			ID      string `json:"toolCallId"`
			Title   string
			Kind    string
			Content []map[string]any
		} `json:"toolCall"`
		Options []struct {
			Kind     string
			OptionID string `json:"optionId"`
		}
	}
	Writes      []struct{ Path, Content string }
	StopReasons []string
}

// acpClient runs acp-client.mjs (next to the packages, so node resolves
// them), which starts the yagent command it is given.
func acpClient(t *testing.T, nm string, e *env, args ...string) acpReport {
	t.Helper()
	dir := t.TempDir()
	src, err := os.ReadFile("acp-client.mjs")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "acp-client.mjs"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(nm, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", append([]string{filepath.Join(dir, "acp-client.mjs")}, args...)...)
	cmd.Env = e.vars
	cmd.WaitDelay = 10 * time.Second // the yagent it starts may hold stderr
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("node acp-client.mjs %v: %v\n%s", args, err, errOut.String())
	}
	var r acpReport
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("acp-client.mjs printed %q: %v\n%s", out.String(), err, errOut.String())
	}
	return r
}

// kinds counts updates by their sessionUpdate; text joins the text of one
// kind's chunks.
func kinds(updates []map[string]any) map[string]int {
	n := map[string]int{}
	for _, u := range updates {
		n[u["sessionUpdate"].(string)]++
	}
	return n
}

func chunkText(updates []map[string]any, kind string) string {
	var b strings.Builder
	for _, u := range updates {
		if u["sessionUpdate"] == kind {
			b.WriteString(u["content"].(map[string]any)["text"].(string))
		}
	}
	return b.String()
}

// findCall is the first update of kind about tool call id.
func findCall(updates []map[string]any, kind, id string) map[string]any {
	for _, u := range updates {
		if u["sessionUpdate"] == kind && u["toolCallId"] == id {
			return u
		}
	}
	return nil
}

// TestACPTypeScriptClient: the official TypeScript ACP client SDK drives
// a real `yagent acp` (issue 31 item 5, done when): messages out of order
// are JSON-RPC errors and the session stays intact; a prompt streams its
// answer in chunks, asks to approve a write (--approval untrusted) and,
// once allowed, the write is a tool call done through the client's
// fs/write_text_file; the turn ends with end_turn; session/cancel ends the
// next, slow turn (stopReason cancelled). A new process then
// reopens the session with session/load, which replays it, and a prompt
// there sees the first turn. A session opened and never prompted is not
// kept.
func TestACPTypeScriptClient(t *testing.T) {
	nm := nodeModules(t)
	model := scriptedModel(t, "acp-interop")
	e := newEnv(t, "OPENAI_BASE_URL="+model.URL(), "YAGENT_MODEL=scripted")
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}

	r := acpClient(t, nm, e, "new", ws, e.bin, "acp", "--approval", "untrusted")
	for key, code := range map[string]int{"new_before_initialize": -32600, "prompt_unknown_session": -32602, "load_open_session": -32602} {
		if got := r.Errors[key]; got == nil || got.Code != code {
			t.Errorf("%s: error %+v; want JSON-RPC code %d", key, got, code)
		}
	}
	if !r.Initialize.AgentCapabilities.LoadSession || r.Initialize.AgentInfo.Name != "yagent" {
		t.Errorf("initialize = %+v; want yagent with loadSession", r.Initialize)
	}
	if n := kinds(r.Updates)["agent_message_chunk"]; n < 2 {
		t.Errorf("%d agent_message_chunk updates; want the answer streamed in chunks", n)
	}
	if got, want := chunkText(r.Updates, "agent_message_chunk"), "I will write the greeting to hello.txt now.Done: hello.txt holds the greeting."; got != want {
		t.Errorf("streamed text %q; want %q", got, want)
	}
	if len(r.Permissions) != 1 || r.Permissions[0].ToolCall.Title != "write_file hello.txt" || r.Permissions[0].ToolCall.Kind != "edit" ||
		r.Permissions[0].ToolCall.ID != "call_write" {
		t.Errorf("permission requests = %+v; want one about write_file hello.txt, on its tool call call_write", r.Permissions)
	} else if c := r.Permissions[0].ToolCall.Content; len(c) != 1 || c[0]["type"] != "diff" || c[0]["newText"] != "hello from yagent\n" {
		t.Errorf("the permission request shows %v; want the write's diff", c)
	}
	if c := findCall(r.Updates, "tool_call", "call_write"); c == nil || c["kind"] != "edit" {
		t.Errorf("tool_call of call_write = %v; want an edit", c)
	}
	if c := findCall(r.Updates, "tool_call_update", "call_write"); c == nil || c["status"] != "completed" {
		t.Errorf("tool_call_update of call_write = %v; want completed", c)
	}
	if len(r.Writes) != 1 || r.Writes[0].Path != filepath.Join(ws, "hello.txt") || r.Writes[0].Content != "hello from yagent\n" {
		t.Errorf("fs/write_text_file calls = %+v; want hello.txt in %s", r.Writes, ws)
	}
	if len(r.StopReasons) != 2 || r.StopReasons[0] != "end_turn" || r.StopReasons[1] != "cancelled" {
		t.Errorf("stop reasons %v; want end_turn, then cancelled (session/cancel)", r.StopReasons)
	}
	if got := chunkText(r.CancelledUpdates, "agent_message_chunk"); got == "" || strings.Contains(got, "twelve") {
		t.Errorf("the cancelled turn streamed %q; want its start only", got)
	}

	l := acpClient(t, nm, e, "load", r.SessionID, ws, e.bin, "acp", "--approval", "untrusted")
	if got := chunkText(l.Replayed, "user_message_chunk"); got != "Please write the greeting to a file."+"Now count slowly to twelve." {
		t.Errorf("replayed user text %q", got)
	}
	if got := chunkText(l.Replayed, "agent_message_chunk"); got != "I will write the greeting to hello.txt now.Done: hello.txt holds the greeting." {
		t.Errorf("replayed answer %q", got)
	}
	if findCall(l.Replayed, "tool_call", "call_write") == nil || findCall(l.Replayed, "tool_call_update", "call_write") == nil {
		t.Errorf("the replay lacks the write's tool call: %v", l.Replayed)
	}
	if got := chunkText(l.Updates, "agent_message_chunk"); got != "Earlier I wrote hello.txt." {
		t.Errorf("the resumed session answered %q", got)
	}
	if len(l.StopReasons) != 1 || l.StopReasons[0] != "end_turn" {
		t.Errorf("stop reasons after load %v", l.StopReasons)
	}

	// A session the editor opened and never prompted is not kept (as
	// interactive mode keeps none); the prompted one is.
	empty := acpClient(t, nm, e, "empty", ws, e.bin, "acp")
	ls := e.yagent("sessions", "ls", "--all", "--json")
	if empty.SessionID == "" || strings.Contains(ls, empty.SessionID) || !strings.Contains(ls, r.SessionID) {
		t.Errorf("sessions after an empty one (%s): %s; want only %s kept", empty.SessionID, ls, r.SessionID)
	}
	if p, u := model.Pending(), model.Unmatched(); len(p) > 0 || len(u) > 0 {
		t.Errorf("scenario: pending steps %v, %d unmatched requests", p, len(u))
	}
}

// TestACPEditorMCPServers: the MCP servers the editor passes with
// session/new (here server-everything, over stdio as ACP requires every
// agent to support) are the session's tools: the model is offered its
// echo, the call is asked about in the editor, and its result reaches the
// model.
func TestACPEditorMCPServers(t *testing.T) {
	nm := nodeModules(t)
	model := scriptedModel(t, "acp-mcp")
	servers, err := json.Marshal([]map[string]any{{"name": "everything", "command": "node",
		"args": []string{filepath.Join(nm, "@modelcontextprotocol", "server-everything", "dist", "index.js"), "stdio"}, "env": []any{}}})
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, "OPENAI_BASE_URL="+model.URL(), "YAGENT_MODEL=scripted", "ACP_MCP_SERVERS="+string(servers))
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	r := acpClient(t, nm, e, "mcp", ws, e.bin, "acp", "--approval", "untrusted")
	if got := chunkText(r.Updates, "agent_message_chunk"); got != "The editor's server echoed." {
		t.Errorf("streamed %q; want the answer after the echo", got)
	}
	if len(r.Permissions) != 1 || r.Permissions[0].ToolCall.ID != "call_echo" {
		t.Errorf("permission requests %+v; want one, on call_echo", r.Permissions)
	}
	if len(r.StopReasons) != 1 || r.StopReasons[0] != "end_turn" {
		t.Errorf("stop reasons %v", r.StopReasons)
	}
	if p, u := model.Pending(), model.Unmatched(); len(p) > 0 || len(u) > 0 {
		t.Errorf("scenario: pending steps %v, %d unmatched requests", p, len(u))
	}
}
