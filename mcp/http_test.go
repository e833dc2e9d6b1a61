package mcp

import (
	"encoding/json"
	"io"
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

// post sends a tools/list request to url with the given headers and
// returns the response (body read and closed).
func post(t *testing.T, method, url string, header map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// TestHTTPOriginGuard pins the DNS-rebinding guard of the MCP transport
// spec, ahead of authentication: a request without Origin (a non-browser
// client) or from a loopback origin is served; a foreign, "null" or
// look-alike origin gets 403 whether or not it carries a token; an
// allowed origin is served with CORS headers and its preflight answered;
// on a loopback address a foreign Host (a rebound name) gets 403 unless it
// is an allowed origin's host.
func TestHTTPOriginGuard(t *testing.T) {
	f := newFixture(t)
	f.gw.AllowedOrigins = []string{"https://app.example", "not an origin"}
	srv := httptest.NewServer(f.gw.HTTPHandler())
	defer srv.Close()
	bearer := "Bearer " + f.read
	for _, tc := range []struct {
		name   string
		header map[string]string
		status int
	}{
		{"no origin", map[string]string{"Authorization": bearer}, http.StatusOK},
		{"localhost", map[string]string{"Authorization": bearer, "Origin": "http://localhost:6274"}, http.StatusOK},
		{"127.0.0.1", map[string]string{"Authorization": bearer, "Origin": "http://127.0.0.1:3000"}, http.StatusOK},
		{"::1", map[string]string{"Authorization": bearer, "Origin": "http://[::1]:3000"}, http.StatusOK},
		{"allowed", map[string]string{"Authorization": bearer, "Origin": "https://app.example:443"}, http.StatusOK},
		{"foreign", map[string]string{"Authorization": bearer, "Origin": "https://evil.example"}, http.StatusForbidden},
		{"foreign without token", map[string]string{"Origin": "https://evil.example"}, http.StatusForbidden},
		{"allowed host, other port", map[string]string{"Authorization": bearer, "Origin": "https://app.example:8443"}, http.StatusForbidden},
		{"null", map[string]string{"Authorization": bearer, "Origin": "null"}, http.StatusForbidden},
		{"look-alike", map[string]string{"Authorization": bearer, "Origin": "http://localhost.evil.example"}, http.StatusForbidden},
		{"rebound host", map[string]string{"Authorization": bearer, "Host": "evil.example:80"}, http.StatusForbidden},
		{"rebound host and origin", map[string]string{"Authorization": bearer, "Host": "evil.example", "Origin": "http://evil.example"}, http.StatusForbidden},
		{"allowed origin's host", map[string]string{"Authorization": bearer, "Host": "app.example"}, http.StatusOK},
		{"localhost host", map[string]string{"Authorization": bearer, "Host": "localhost"}, http.StatusOK},
	} {
		resp, body := post(t, http.MethodPost, srv.URL+EndpointPath, tc.header)
		if resp.StatusCode != tc.status {
			t.Errorf("%s: status %d; want %d (%s)", tc.name, resp.StatusCode, tc.status, body)
		}
		if tc.status == http.StatusOK && !strings.Contains(body, `"board_list_boards"`) {
			t.Errorf("%s: served %q; want the tool list", tc.name, body)
		}
		if tc.status == http.StatusForbidden && !strings.Contains(body, "DNS-rebinding guard") {
			t.Errorf("%s: 403 body %q does not say why", tc.name, body)
		}
		origin := tc.header["Origin"]
		if got := resp.Header.Get("Access-Control-Allow-Origin"); (tc.status == http.StatusOK && origin != "") != (got == origin && got != "") {
			t.Errorf("%s: Access-Control-Allow-Origin %q", tc.name, got)
		}
	}
	for origin, want := range map[string]int{"https://app.example": http.StatusNoContent, "https://evil.example": http.StatusForbidden} {
		resp, _ := post(t, http.MethodOptions, srv.URL+EndpointPath, map[string]string{"Origin": origin, "Access-Control-Request-Method": "POST"})
		if resp.StatusCode != want || (want == http.StatusNoContent && !strings.Contains(resp.Header.Get("Access-Control-Allow-Headers"), "Authorization")) {
			t.Errorf("preflight from %s: %d %v; want %d", origin, resp.StatusCode, resp.Header, want)
		}
	}
	if err := CheckOrigins([]string{"https://app.example:8443", "http://[::1]:3000"}); err != nil {
		t.Errorf("CheckOrigins of valid origins: %v", err)
	}
	for _, bad := range []string{"app.example", "ftp://app.example", "https://app.example/path", "https://", "not an origin"} {
		if err := CheckOrigins([]string{bad}); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("CheckOrigins(%q) = %v; want an error naming it", bad, err)
		}
	}
}

// TestHTTPUnauthorizedWWWAuthenticate pins the 401 of RFC 6750 §3: every
// one carries WWW-Authenticate: Bearer with the realm and the resource
// metadata (RFC 9728) that MetadataPath serves; error="invalid_token" only
// when a token was sent (unknown or revoked), none when it was missing.
func TestHTTPUnauthorizedWWWAuthenticate(t *testing.T) {
	f := newFixture(t)
	srv := httptest.NewServer(f.gw.HTTPHandler())
	defer srv.Close()
	meta := `resource_metadata="` + srv.URL + MetadataPath + `"`
	revoked, _, err := f.store.CreateToken(t.Context(), f.person, kb.TokenSpec{Name: "gone"})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.store.RevokeToken(t.Context(), f.person, "gone"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, auth, errCode string }{
		{"missing", "", ""},
		{"not bearer", "Basic YWxpY2U6eA==", ""},
		{"empty bearer", "Bearer ", ""},
		{"unknown", "Bearer ykb_notatoken", "invalid_token"},
		{"revoked", "Bearer " + revoked, "invalid_token"},
	} {
		resp, body := post(t, http.MethodPost, srv.URL+EndpointPath, map[string]string{"Authorization": tc.auth})
		h := resp.Header.Get("WWW-Authenticate")
		if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(h, `Bearer realm="yagent"`) || !strings.Contains(h, meta) {
			t.Errorf("%s: %d, WWW-Authenticate %q; want 401, Bearer realm=\"yagent\", %s", tc.name, resp.StatusCode, h, meta)
		}
		if got := strings.Contains(h, `error="invalid_token"`); got != (tc.errCode != "") {
			t.Errorf("%s: WWW-Authenticate %q; want error=invalid_token: %v", tc.name, h, tc.errCode != "")
		}
		if !strings.Contains(body, "yagent kb token create") {
			t.Errorf("%s: body %q does not say where tokens come from", tc.name, body)
		}
	}
	resp, body := post(t, http.MethodGet, srv.URL+MetadataPath, nil)
	var m struct {
		Resource string   `json:"resource"`
		Scopes   []string `json:"scopes_supported"`
		Methods  []string `json:"bearer_methods_supported"`
	}
	if err := json.Unmarshal([]byte(body), &m); err != nil || resp.StatusCode != http.StatusOK ||
		m.Resource != srv.URL+EndpointPath || !slices.Equal(m.Scopes, []string{"kb:read", "kb:write"}) || !slices.Equal(m.Methods, []string{"header"}) {
		t.Errorf("metadata: %d %s (%v)", resp.StatusCode, body, err)
	}
}

// TestHTTPClientNameKept: a client of a revision before 2026-07-28 (Codex)
// names itself in initialize only; over stateless HTTP each later request
// is a session of its own. Its writes are still booked under that name,
// not "mcp-http", and a client that initializes again without a name
// drops it.
func TestHTTPClientNameKept(t *testing.T) {
	f := newFixture(t)
	srv := httptest.NewServer(f.gw.HTTPHandler())
	defer srv.Close()
	rpc := rpc2025(t, srv.URL, f.write)
	initialize := func(client string) {
		info := ""
		if client != "" {
			info = `,"clientInfo":{"name":"` + client + `","version":"0.1"}`
		}
		rpc(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}` + info + `}}`)
		rpc(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	}
	provenance := func(title string) string {
		t.Helper()
		out := rpc(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"create_note","arguments":{"project":"acme/web","body":"# ` + title + `\n\nhello"}}}`)
		if !strings.Contains(out, title) {
			t.Fatalf("create_note %s: %s", title, out)
		}
		return rpc(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_note","arguments":{"ref":"[[` + title + `]]"}}}`)
	}
	initialize("codex-mcp-client")
	if out := provenance("From Codex"); !strings.Contains(out, `\"client\":\"codex-mcp-client\"`) {
		t.Errorf("the note of an old client over stateless HTTP is not booked under its name:\n%s", out)
	}
	initialize("")
	if out := provenance("Anonymous"); !strings.Contains(out, `\"client\":\"mcp-http\"`) {
		t.Errorf("a client that initialized again without a name kept the old one:\n%s", out)
	}
}
