package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/config"
)

// elicitingServer is a go-sdk MCP server whose tool "ask" asks the
// client a question (elicitation/create) and returns what came back.
func elicitingServer(t *testing.T) string {
	server := sdk.NewServer(&sdk.Implementation{Name: "asking"}, nil)
	sdk.AddTool(server, &sdk.Tool{Name: "ask"}, func(ctx context.Context, req *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, struct{}, error) {
		res, err := req.Session.Elicit(ctx, &sdk.ElicitParams{Message: "Which deployment?", RequestedSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"env":     map[string]any{"type": "string", "enum": []string{"staging", "prod"}},
				"replica": map[string]any{"type": "integer", "title": "Replicas"},
				"note":    map[string]any{"type": "string"},
				"confirm": map[string]any{"type": "boolean", "description": "really deploy"},
			},
			"required": []string{"env", "replica", "confirm"},
		}})
		if err != nil {
			return nil, struct{}{}, err
		}
		b, _ := json.Marshal(res)
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(b)}}}, struct{}{}, nil
	})
	srv := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, nil))
	t.Cleanup(srv.Close)
	return srv.URL
}

// lineAsker answers yes to every question and types the lines it holds,
// by the prompt's first word.
type lineAsker struct {
	mu    sync.Mutex
	asked []string
	lines map[string]string
}

func (a *lineAsker) Ask(_ context.Context, q agents.Question) (agents.Answer, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, q.Action)
	return agents.Allow, nil
}

func (a *lineAsker) AskLine(_ context.Context, prompt string) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, prompt)
	return a.lines[strings.Fields(prompt)[0]], nil
}

func askTool(t *testing.T, elicit bool, ask agents.Asker) (string, *notes) {
	t.Helper()
	n := &notes{}
	cfg := map[string]config.MCPServer{"asking": {URL: elicitingServer(t), Enabled: true, Timeout: config.Duration(10 * time.Second), Allow: []string{"*"}}}
	s := NewServers(cfg, ServersOptions{Version: "test", Notify: n.add, Elicit: elicit})
	t.Cleanup(func() { s.Close() })
	tools, errs := s.Tools(t.Context(), agents.ShellPolicy{Approval: agents.ApproveOnRequest, Ask: ask})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	res, err := toolByName(tools, "mcp_asking__ask").Run(t.Context(), &agents.Call{Name: "mcp_asking__ask", Args: json.RawMessage(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	return res.Content, n
}

// TestElicitationRoundTrip pins elicitation: the server's question is
// asked through the session's asker (the message, then each field:
// booleans as yes/no, the rest typed), and the server receives the
// content, typed as its schema says.
func TestElicitationRoundTrip(t *testing.T) {
	a := &lineAsker{lines: map[string]string{"env": "2", "Replicas": "3", "note": "friday"}}
	got, _ := askTool(t, true, a)
	var res sdk.ElicitResult
	if err := json.Unmarshal([]byte(got), &res); err != nil {
		t.Fatalf("tool result %q: %v", got, err)
	}
	want := map[string]any{"env": "prod", "replica": float64(3), "note": "friday", "confirm": true}
	if res.Action != "accept" || !mapsEqual(res.Content, want) {
		t.Errorf("the server received %+v; want accept %v", res, want)
	}
	if len(a.asked) == 0 || !strings.Contains(a.asked[0], "mcp server asking asks: Which deployment?") {
		t.Errorf("questions = %q; want the server's message first", a.asked)
	}
}

func mapsEqual(a, b map[string]any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

// TestElicitationHeadless pins that with nobody to ask an elicitation is
// declined (with a notice), and that elicitation is not declared where it
// cannot be answered (Elicit false): the server's request fails.
func TestElicitationHeadless(t *testing.T) {
	got, n := askTool(t, true, nil)
	if !strings.Contains(got, `"action":"decline"`) || !strings.Contains(n.all(), "declined: nobody can answer") {
		t.Errorf("headless: result %q, notices %q; want a decline and a notice", got, n.all())
	}
	got, _ = askTool(t, false, &lineAsker{})
	if !strings.Contains(got, "elicitation") || strings.Contains(got, `"action"`) {
		t.Errorf("undeclared: result %q; want the server's elicitation refused by the client", got)
	}
}

// yesOnly is an approval asker without lines (the TUI's modal).
type yesOnly struct {
	mu    sync.Mutex
	asked []string
}

func (a *yesOnly) Ask(_ context.Context, q agents.Question) (agents.Answer, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, q.Action)
	return agents.Allow, nil
}

// TestElicitationWithoutLines pins what an asker without text input (the
// TUI's, behind the hook wrapper) does: a question with a field that needs
// typing is declined before the person is asked anything, rather than an
// answer invented; enums are asked one choice at a time as yes/no.
func TestElicitationWithoutLines(t *testing.T) {
	a := &yesOnly{}
	got, n := askTool(t, true, agents.HookAsker(a))
	if !strings.Contains(got, `"action":"decline"`) || !strings.Contains(n.all(), "note needs typed text") || len(a.asked) > 0 {
		t.Errorf("result %q, notices %q, questions %q; want a decline naming the typed field, nobody asked", got, n.all(), a.asked)
	}
	var f elicitField
	f.Enum = []string{"staging", "prod"}
	b := &yesOnly{}
	v, ok, err := askField(t.Context(), agents.HookAsker(b), nil, "env", f, true)
	if v != "staging" || !ok || err != nil || !slices.Contains(b.asked, "env: staging?") {
		t.Errorf("enum without lines = %v, %v, %v (asked %q); want staging, asked as yes/no", v, ok, err, b.asked)
	}
}
