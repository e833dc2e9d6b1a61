package mcp

import (
	"context"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/internal/pgtest"
	"github.com/yagent/yagent/kb"
	"github.com/yagent/yagent/mcp/mcptest"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestMain lets the test binary serve mcptest's server when a client test
// starts it as a child process, and stops the throwaway PostgreSQL server
// of the replica test.
func TestMain(m *testing.M) {
	if os.Getenv(mcptest.EnvVar) != "" {
		mcptest.Main()
	}
	os.Exit(pgtest.Run(m))
}

// clock is a test clock that ticks a millisecond per reading.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Millisecond)
	return c.t
}

// fixture is a knowledge base with one person (alice), her project
// acme/web, a read and a write token, and a board root.
type fixture struct {
	store       *kb.Store
	person      kb.Caller
	read, write string // token plaintexts
	board       *blackboard.Store
	gw          *Gateway
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	ctx := t.Context()
	clk := &clock{t: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)}
	s, err := kb.Open(ctx, filepath.Join(t.TempDir(), "kb.db"), kb.Options{Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	alice, err := s.CreatePrincipal(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{store: s, person: kb.PersonCaller(alice.ID, "test"), board: blackboard.Open(t.TempDir())}
	if _, err := s.CreateProject(ctx, f.person, "acme/web", "Acme web"); err != nil {
		t.Fatal(err)
	}
	if f.read, _, err = s.CreateToken(ctx, f.person, kb.TokenSpec{Name: "reader"}); err != nil {
		t.Fatal(err)
	}
	if f.write, _, err = s.CreateToken(ctx, f.person, kb.TokenSpec{Name: "writer", Write: true}); err != nil {
		t.Fatal(err)
	}
	f.gw = &Gateway{Store: s, Board: f.board, Version: "test", Owner: alice.ID}
	return f
}

// connect runs the server over in-memory transports and returns the
// client's session.
func connect(t *testing.T, s *sdk.Server) *sdk.ClientSession {
	t.Helper()
	ctx := t.Context()
	st, ct := sdk.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test-client", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// session connects a client to the gateway's server for token.
func (f *fixture) session(t *testing.T, token string) *sdk.ClientSession {
	t.Helper()
	s, err := f.gw.ServerForToken(t.Context(), token)
	if err != nil {
		t.Fatal(err)
	}
	return connect(t, s)
}

// call calls a tool with arguments given as JSON and fails the test on a
// protocol error.
func call(t *testing.T, cs *sdk.ClientSession, name, args string) *sdk.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("%s(%s): protocol error %v", name, args, err)
	}
	return res
}

// text is a result's text content.
func text(res *sdk.CallToolResult) string {
	var s string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			s += tc.Text
		}
	}
	return s
}

func toolNamesOf(t *testing.T, ctx context.Context, cs *sdk.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	return names
}

// rpc2025 posts JSON-RPC bodies to url as a client of the 2025 protocol
// over stateless HTTP (Mcp-Protocol-Version after its initialize) with
// token, and returns each response's body; a status of 300 or more fails
// the test.
func rpc2025(t *testing.T, url, token string) func(body string) string {
	return func(body string) string {
		t.Helper()
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+token)
		if !strings.Contains(body, `"initialize"`) {
			req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode >= 300 {
			t.Fatalf("%s: status %d: %s", body, resp.StatusCode, b)
		}
		return string(b)
	}
}
