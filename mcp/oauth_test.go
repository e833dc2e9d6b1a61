package mcp

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"github.com/yagent/yagent/config"
)

// authServer is a minimal OAuth 2.1 authorization server and an MCP
// server it protects: metadata (RFC 8414, RFC 9728), dynamic client
// registration, authorize with a PKCE S256 check, token with
// authorization_code and refresh_token grants.
type authServer struct {
	t   *testing.T
	srv *httptest.Server
	// ttl is the life of an access token it issues.
	ttl time.Duration

	mu        sync.Mutex
	clients   map[string]string // client id → redirect uri
	codes     map[string]pending
	access    map[string]time.Time // access token → expiry
	refresh   map[string]string    // refresh token → client id
	n         int
	grants    []string // grant_type of every token request
	registers int
	// secrets are pre-registered clients' secrets (client id → secret);
	// such a client may redirect to any loopback port (RFC 8252).
	secrets map[string]string
}

type pending struct{ client, challenge, redirect string }

func newAuthServer(t *testing.T) *authServer {
	a := &authServer{t: t, ttl: time.Hour, clients: map[string]string{}, codes: map[string]pending{},
		access: map[string]time.Time{}, refresh: map[string]string{}}
	mux := http.NewServeMux()
	a.srv = httptest.NewServer(mux)
	t.Cleanup(a.srv.Close)
	base := a.srv.URL
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		writeJSONTest(w, oauthex.ProtectedResourceMetadata{Resource: base + "/mcp", AuthorizationServers: []string{base}, ScopesSupported: []string{"tools"}})
	})
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		writeJSONTest(w, map[string]any{"issuer": base, "authorization_endpoint": base + "/authorize", "token_endpoint": base + "/token",
			"registration_endpoint": base + "/register", "response_types_supported": []string{"code"},
			"code_challenge_methods_supported": []string{"S256"}, "scopes_supported": []string{"tools", "offline_access"}})
	})
	mux.HandleFunc("POST /register", func(w http.ResponseWriter, r *http.Request) {
		var m oauthex.ClientRegistrationMetadata
		if err := json.NewDecoder(r.Body).Decode(&m); err != nil || len(m.RedirectURIs) != 1 {
			http.Error(w, "bad registration", 400)
			return
		}
		a.mu.Lock()
		a.registers++
		a.n++
		id := fmt.Sprintf("client%d", a.n)
		a.clients[id] = m.RedirectURIs[0]
		a.mu.Unlock()
		w.WriteHeader(http.StatusCreated)
		writeJSONTest(w, map[string]any{"client_id": id, "redirect_uris": m.RedirectURIs, "token_endpoint_auth_method": "none"})
	})
	mux.HandleFunc("GET /authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		a.mu.Lock()
		defer a.mu.Unlock()
		redirect, ok := a.clients[q.Get("client_id")]
		if redirect == "loopback" && strings.HasPrefix(q.Get("redirect_uri"), "http://127.0.0.1:") {
			redirect = q.Get("redirect_uri")
		}
		if !ok || redirect != q.Get("redirect_uri") || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" {
			http.Error(w, "bad authorize request", 400)
			return
		}
		a.n++
		code := fmt.Sprintf("code%d", a.n)
		a.codes[code] = pending{client: q.Get("client_id"), challenge: q.Get("code_challenge"), redirect: redirect}
		http.Redirect(w, r, redirect+"?code="+code+"&state="+url.QueryEscape(q.Get("state")), http.StatusFound)
	})
	mux.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		a.mu.Lock()
		defer a.mu.Unlock()
		grant := r.PostForm.Get("grant_type")
		a.grants = append(a.grants, grant)
		id, secret, basic := r.BasicAuth()
		if !basic {
			id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
		}
		if want, ok := a.secrets[id]; ok && secret != want {
			w.WriteHeader(401)
			writeJSONTest(w, map[string]string{"error": "invalid_client"})
			return
		}
		var client string
		switch grant {
		case "authorization_code":
			p, ok := a.codes[r.PostForm.Get("code")]
			delete(a.codes, r.PostForm.Get("code"))
			sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
			if !ok || p.client != cmp.Or(r.PostForm.Get("client_id"), id) || base64.RawURLEncoding.EncodeToString(sum[:]) != p.challenge {
				w.WriteHeader(400)
				writeJSONTest(w, map[string]string{"error": "invalid_grant"})
				return
			}
			client = p.client
		case "refresh_token":
			c, ok := a.refresh[r.PostForm.Get("refresh_token")]
			if !ok {
				w.WriteHeader(400)
				writeJSONTest(w, map[string]string{"error": "invalid_grant"})
				return
			}
			delete(a.refresh, r.PostForm.Get("refresh_token"))
			client = c
		default:
			http.Error(w, "unsupported grant", 400)
			return
		}
		a.n++
		acc, ref := fmt.Sprintf("access-%04d", a.n), fmt.Sprintf("refresh-%04d", a.n)
		a.access[acc] = time.Now().Add(a.ttl)
		a.refresh[ref] = client
		writeJSONTest(w, map[string]any{"access_token": acc, "token_type": "Bearer", "refresh_token": ref, "expires_in": int(a.ttl.Seconds())})
	})
	server := sdk.NewServer(&sdk.Implementation{Name: "protected"}, nil)
	sdk.AddTool(server, &sdk.Tool{Name: "ping"}, func(ctx context.Context, req *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, struct{}, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "pong"}}}, struct{}{}, nil
	})
	// whoami echoes the bearer token it was called with, as a careless
	// server's error would.
	sdk.AddTool(server, &sdk.Tool{Name: "whoami"}, func(ctx context.Context, req *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, struct{}, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "you are Bearer " + auth.TokenInfoFromContext(ctx).UserID}}}, struct{}{}, nil
	})
	verify := func(ctx context.Context, tok string, _ *http.Request) (*auth.TokenInfo, error) {
		a.mu.Lock()
		defer a.mu.Unlock()
		exp, ok := a.access[tok]
		if !ok || time.Now().After(exp) {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{Scopes: []string{"tools"}, Expiration: exp, UserID: tok}, nil
	}
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, &sdk.StreamableHTTPOptions{Stateless: true})
	mux.Handle("/mcp", auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{
		ResourceMetadataURL: base + "/.well-known/oauth-protected-resource/mcp"})(h))
	return a
}

func writeJSONTest(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// browser plays the person's browser: it GETs the authorization URL and
// follows the redirect to yagent's loopback listener. tamper, when set,
// rewrites the redirect first.
func browser(t *testing.T, tamper func(*url.URL)) func(context.Context, string) error {
	return func(ctx context.Context, u string) error {
		go func() {
			c := &http.Client{CheckRedirect: func(req *http.Request, via []*http.Request) error {
				if tamper != nil && strings.HasPrefix(req.URL.Host, "127.0.0.1") && req.URL.Path == "/callback" {
					tamper(req.URL)
				}
				return nil
			}}
			resp, err := c.Get(u)
			if err != nil {
				t.Logf("browser: %v", err)
				return
			}
			resp.Body.Close()
		}()
		return nil
	}
}

func oauthServers(t *testing.T, a *authServer, dir string, opts OAuthOptions) (*Servers, *notes) {
	t.Helper()
	n := &notes{}
	opts.Store = &TokenStore{Dir: dir}
	cfg := map[string]config.MCPServer{"remote": {URL: a.srv.URL + "/mcp", Enabled: true, Timeout: config.Duration(10 * time.Second), Allow: []string{"*"}}}
	s := NewServers(cfg, ServersOptions{Version: "test", Notify: n.add, OAuth: opts})
	t.Cleanup(func() { s.Close() })
	return s, n
}

func pingRemote(t *testing.T, s *Servers) {
	t.Helper()
	tools, errs := s.Tools(t.Context(), headless)
	if len(errs) > 0 {
		t.Fatalf("start: %v", errs)
	}
	ping := toolByName(tools, "mcp_remote__ping")
	if ping == nil {
		t.Fatalf("tools = %v; want mcp_remote__ping", tools)
	}
	if res := runExternal(t, ping, `{}`); res.IsError || !strings.Contains(res.Content, "pong") {
		t.Fatalf("ping = %+v", res)
	}
}

// TestOAuthFlow pins the OAuth client: the first connection to a server
// answering 401 discovers, registers, runs the authorization-code flow
// with PKCE through the browser and the loopback redirect, and keeps the
// token in a 0600 file; a second connection (a new process) reuses it
// without a browser; an expired token is refreshed and the new one kept;
// a refresh that fails authorizes again.
func TestOAuthFlow(t *testing.T) {
	a := newAuthServer(t)
	dir := t.TempDir()
	s, n := oauthServers(t, a, dir, OAuthOptions{Interactive: true, Open: browser(t, nil)})
	pingRemote(t, s)
	if !strings.Contains(n.all(), "needs authorization: open "+a.srv.URL+"/authorize?") {
		t.Errorf("notices = %q; want the authorization URL shown", n.all())
	}
	file := s.TokenFile("remote")
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatalf("token file: %v", err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("token file mode = %v; want 0600", fi.Mode().Perm())
	}
	s.Close()

	// A second process: the stored token, no browser.
	s2, _ := oauthServers(t, a, dir, OAuthOptions{Interactive: true, Open: func(context.Context, string) error {
		t.Error("the browser was opened though a token was stored")
		return nil
	}})
	pingRemote(t, s2)
	s2.Close()
	a.mu.Lock()
	if a.registers != 1 {
		t.Errorf("registrations = %d; want 1", a.registers)
	}
	a.mu.Unlock()

	// The stored token expired: refreshed, the new one kept.
	rec := (&TokenStore{Dir: dir}).load("remote", a.srv.URL+"/mcp")
	rec.Token.Expiry = time.Now().Add(-time.Minute)
	(&TokenStore{Dir: dir}).save(rec)
	s3, _ := oauthServers(t, a, dir, OAuthOptions{Interactive: false})
	pingRemote(t, s3)
	s3.Close()
	a.mu.Lock()
	grants := strings.Join(a.grants, ",")
	a.mu.Unlock()
	if grants != "authorization_code,refresh_token" {
		t.Errorf("token requests = %s; want authorization_code,refresh_token", grants)
	}
	after := (&TokenStore{Dir: dir}).load("remote", a.srv.URL+"/mcp")
	if after == nil || after.Token.AccessToken == rec.Token.AccessToken || !after.Token.Expiry.After(time.Now()) {
		t.Errorf("after refresh the file holds %+v; want the new token", after)
	}

	// The refresh token is no longer valid: authorized again.
	after.Token.Expiry = time.Now().Add(-time.Minute)
	after.Token.RefreshToken = "revoked"
	(&TokenStore{Dir: dir}).save(after)
	s4, n4 := oauthServers(t, a, dir, OAuthOptions{Interactive: true, Open: browser(t, nil)})
	pingRemote(t, s4)
	if !strings.Contains(n4.all(), "could not be refreshed") || !strings.Contains(n4.all(), "needs authorization: open") {
		t.Errorf("notices = %q; want a failed refresh, then the authorization again", n4.all())
	}
}

// TestOAuthHeadless pins that without a terminal a server needing
// authorization fails to start at once, naming the command that
// authorizes it, and that login then authorizes it.
func TestOAuthHeadless(t *testing.T) {
	a := newAuthServer(t)
	dir := t.TempDir()
	s, _ := oauthServers(t, a, dir, OAuthOptions{Interactive: false, Wait: 3 * time.Second, Open: func(context.Context, string) error {
		t.Error("a browser was opened headless")
		return nil
	}})
	start := time.Now()
	_, errs := s.Tools(t.Context(), headless)
	var need *NeedsLoginError
	if len(errs) != 1 || !errors.As(errs[0], &need) || !strings.Contains(errs[0].Error(), "yagent mcp login remote") {
		t.Fatalf("errs = %v; want a NeedsLoginError naming `yagent mcp login remote`", errs)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("headless start took %v; want at once", d)
	}
	if list := s.List(t.Context()); len(list) != 1 || list[0].Status != "needs login" || !strings.Contains(list[0].Error, "yagent mcp login remote") {
		t.Errorf("List = %+v; want remote as needing login, naming the command", list)
	}
	s.Close()

	s2, _ := oauthServers(t, a, dir, OAuthOptions{Interactive: false, Open: browser(t, nil)})
	if err := s2.Login(t.Context(), "remote"); err != nil {
		t.Fatalf("login: %v", err)
	}
	if _, err := os.Stat(s2.TokenFile("remote")); err != nil {
		t.Fatalf("after login: %v", err)
	}
	s3, _ := oauthServers(t, a, dir, OAuthOptions{Interactive: false})
	pingRemote(t, s3)
	if removed, err := s3.Logout("remote"); !removed || err != nil {
		t.Errorf("logout = %v, %v; want the token removed", removed, err)
	}
	if _, err := os.Stat(s3.TokenFile("remote")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("after logout the token file: %v", err)
	}
}

// TestOAuthPreregisteredClient pins mcp_servers.NAME.oauth_client_id:
// a server whose authorization server offers no registration is
// authorized with the configured client and the secret its variable
// holds; nothing registers, and the secret is among the server's
// secrets. An empty secret variable fails the flow naming it.
func TestOAuthPreregisteredClient(t *testing.T) {
	a := newAuthServer(t)
	a.clients["pre1"], a.secrets = "loopback", map[string]string{"pre1": "s3cret-value"}
	env := map[string]string{"GH_OAUTH_TOKEN": "s3cret-value"}
	cfg := map[string]config.MCPServer{"remote": {URL: a.srv.URL + "/mcp", Enabled: true, Timeout: config.Duration(10 * time.Second), Allow: []string{"*"},
		OAuthClientID: "pre1", OAuthClientSecretEnv: "GH_OAUTH_TOKEN"}}
	s := NewServers(cfg, ServersOptions{Version: "test", Getenv: func(k string) string { return env[k] }, Notify: (&notes{}).add,
		OAuth: OAuthOptions{Store: &TokenStore{Dir: t.TempDir()}, Interactive: true, Open: browser(t, nil)}})
	t.Cleanup(func() { s.Close() })
	pingRemote(t, s)
	a.mu.Lock()
	registers := a.registers
	a.mu.Unlock()
	if registers != 0 {
		t.Errorf("%d dynamic registrations; want none with a pre-registered client", registers)
	}
	if got := s.remotes["remote"].secrets.Error(errors.New("echo s3cret-value")).Error(); strings.Contains(got, "s3cret-value") {
		t.Errorf("the client secret is not among the server's secrets: %q", got)
	}

	env["GH_OAUTH_TOKEN"] = ""
	s2 := NewServers(cfg, ServersOptions{Version: "test", Getenv: func(k string) string { return env[k] }, Notify: (&notes{}).add,
		OAuth: OAuthOptions{Store: &TokenStore{Dir: t.TempDir()}, Interactive: true, Open: browser(t, nil)}})
	t.Cleanup(func() { s2.Close() })
	if _, errs := s2.Tools(t.Context(), headless); len(errs) != 1 || !strings.Contains(errs[0].Error(), "its client secret variable GH_OAUTH_TOKEN is empty") {
		t.Errorf("errs = %v; want the empty secret variable named", errs)
	}
}

// TestOAuthWrongStateRefused pins that a redirect whose state is not the
// one sent is refused and the flow fails with ErrStateMismatch; no token
// is kept.
func TestOAuthWrongStateRefused(t *testing.T) {
	a := newAuthServer(t)
	dir := t.TempDir()
	s, _ := oauthServers(t, a, dir, OAuthOptions{Interactive: true, Open: browser(t, func(u *url.URL) {
		q := u.Query()
		q.Set("state", "forged")
		u.RawQuery = q.Encode()
	})})
	_, errs := s.Tools(t.Context(), headless)
	if len(errs) != 1 || !errors.Is(errs[0], ErrStateMismatch) {
		t.Fatalf("errs = %v; want ErrStateMismatch", errs)
	}
	if _, err := os.Stat(s.TokenFile("remote")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a token file after a refused callback: %v", err)
	}
}

// TestTokenStoreBindsURL pins that a token is sent only to the URL it was
// issued for: another server under the same name (a workspace's
// .mcp.json) finds none.
func TestTokenStoreBindsURL(t *testing.T) {
	st := &TokenStore{Dir: t.TempDir()}
	rec := &tokenRecord{Server: "x", URL: "https://a.example/mcp", ClientID: "c", TokenURL: "https://a.example/token", Token: nil}
	rec.Token = newTestToken()
	if err := st.save(rec); err != nil {
		t.Fatal(err)
	}
	if st.load("x", "https://a.example/mcp") == nil {
		t.Fatal("the saved token was not found")
	}
	if st.load("x", "https://evil.example/mcp") != nil {
		t.Error("a token was handed to another URL under the same name")
	}
	// A file copied under the other URL's name still names its own URL.
	if err := os.Rename(st.Path("x", "https://a.example/mcp"), st.Path("x", "https://evil.example/mcp")); err != nil {
		t.Fatal(err)
	}
	if st.load("x", "https://evil.example/mcp") != nil {
		t.Error("a token file renamed to another URL's name was handed to that URL")
	}
}

func newTestToken() *oauth2.Token {
	return &oauth2.Token{AccessToken: "a", RefreshToken: "r", Expiry: time.Now().Add(time.Hour)}
}

// TestOAuthPausesStartTimeout pins that the server's start timeout does
// not run while the person is in the browser: a flow slower than the
// timeout still connects.
func TestOAuthPausesStartTimeout(t *testing.T) {
	a := newAuthServer(t)
	slow := browser(t, nil)
	n := &notes{}
	cfg := map[string]config.MCPServer{"remote": {URL: a.srv.URL + "/mcp", Enabled: true, Timeout: config.Duration(300 * time.Millisecond), Allow: []string{"*"}}}
	s := NewServers(cfg, ServersOptions{Version: "test", Notify: n.add, OAuth: OAuthOptions{Store: &TokenStore{Dir: t.TempDir()}, Interactive: true,
		Open: func(ctx context.Context, u string) error {
			time.Sleep(time.Second) // the person reads the consent page
			return slow(ctx, u)
		}}})
	defer s.Close()
	pingRemote(t, s)
}

// TestOAuthTokensScrubbed: an OAuth access token the server echoes back
// (a tool's result, an error) is scrubbed like a token_env one — it is
// learnt as it is issued, refreshed ones too.
func TestOAuthTokensScrubbed(t *testing.T) {
	a := newAuthServer(t)
	s, _ := oauthServers(t, a, t.TempDir(), OAuthOptions{Interactive: true, Open: browser(t, nil)})
	tools, errs := s.Tools(t.Context(), headless)
	if len(errs) > 0 {
		t.Fatalf("start: %v", errs)
	}
	who := toolByName(tools, "mcp_remote__whoami")
	if who == nil {
		t.Fatalf("tools = %v; want mcp_remote__whoami", tools)
	}
	res := runExternal(t, who, `{}`)
	if strings.Contains(res.Content, "access-") || !strings.Contains(res.Content, "[redacted]") {
		t.Errorf("whoami = %q; want the access token scrubbed", res.Content)
	}
}
