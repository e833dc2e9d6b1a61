package mcp

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yagent/yagent/kb"
)

type bearerRT struct{ token string }

func (b bearerRT) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	if b.token != "" {
		req.Header.Set("Authorization", "Bearer "+b.token)
	}
	return http.DefaultTransport.RoundTrip(req)
}

func httpSession(t *testing.T, url, token string) (*sdk.ClientSession, error) {
	t.Helper()
	tr := &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearerRT{token}}, MaxRetries: -1}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "http-test", Version: "1"}, nil).Connect(t.Context(), tr, nil)
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

// TestHTTPHandlerPerToken pins streamable HTTP: stateless, bearer kb
// tokens only (none, unknown or revoked → 401), each request served by its
// token class's server, calls run as that token and provenance names the
// client.
func TestHTTPHandlerPerToken(t *testing.T) {
	f := newFixture(t)
	srv := httptest.NewServer(f.gw.HTTPHandler())
	defer srv.Close()
	ctx := t.Context()

	for _, token := range []string{"", "ykb_notatoken", "Basic abc"} {
		resp, err := http.Post(srv.URL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		if token != "" {
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader(`{}`))
			req.Header.Set("Authorization", "Bearer "+token)
			resp, err = http.DefaultClient.Do(req)
		}
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("token %q: status %d; want 401", token, resp.StatusCode)
		}
	}

	read, err := httpSession(t, srv.URL, f.read)
	if err != nil {
		t.Fatal(err)
	}
	write, err := httpSession(t, srv.URL, f.write)
	if err != nil {
		t.Fatal(err)
	}
	rn, wn := toolNamesOf(t, ctx, read), toolNamesOf(t, ctx, write)
	if len(rn) != len(kb.ToolsFor(kb.Caller{}))+len(boardToolNames) || slices.Contains(rn, "create_note") {
		t.Errorf("read token over HTTP lists %v", rn)
	}
	if len(wn) != 21+len(boardToolNames) {
		t.Errorf("write token over HTTP lists %d tools; want %d", len(wn), 21+len(boardToolNames))
	}
	res, err := write.CallTool(ctx, &sdk.CallToolParams{Name: "create_note", Arguments: map[string]any{"project": "acme/web", "body": "# Over HTTP\n\nhello"}})
	if err != nil || res.IsError {
		t.Fatalf("create_note over HTTP: %v %s", err, text(res))
	}
	// The read token cannot call what it cannot list.
	if res, err := read.CallTool(ctx, &sdk.CallToolParams{Name: "create_note", Arguments: map[string]any{"project": "acme/web", "body": "# No"}}); err == nil && !res.IsError {
		t.Errorf("read token created a note over HTTP: %s", text(res))
	}
	res, err = read.CallTool(ctx, &sdk.CallToolParams{Name: "get_note", Arguments: map[string]any{"ref": "[[Over HTTP]]"}})
	if err != nil || res.IsError {
		t.Fatalf("get_note over HTTP: %v %s", err, text(res))
	}
	if !strings.Contains(text(res), `"client":"http-test"`) {
		t.Errorf("provenance does not name the HTTP client: %s", text(res))
	}

	if err := f.store.RevokeToken(ctx, f.person, "reader"); err != nil {
		t.Fatal(err)
	}
	if _, err := read.ListTools(ctx, nil); err == nil {
		t.Error("a revoked token still lists tools over HTTP")
	}
	if _, err := httpSession(t, srv.URL, f.read); err == nil {
		t.Error("a revoked token still connects over HTTP")
	}
}
