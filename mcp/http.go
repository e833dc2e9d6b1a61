package mcp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/yagent/yagent/kb"
)

// Scopes of a bearer token: kb:write lets write handlers run.
const (
	scopeRead  = "kb:read"
	scopeWrite = "kb:write"
)

// callerExtra is the TokenInfo.Extra key of the authenticated kb.Caller.
const callerExtra = "yagent.kb.caller"

// EndpointPath is where `yagent mcp serve --http` mounts the gateway, and
// MetadataPath its OAuth protected resource metadata (RFC 9728), which the
// WWW-Authenticate header of a 401 points to.
const (
	EndpointPath = "/mcp"
	MetadataPath = "/.well-known/oauth-protected-resource" + EndpointPath
)

// realm is the protection space named in WWW-Authenticate (RFC 6750 §3).
const realm = "yagent"

// HTTPHandler serves the gateway over streamable HTTP, stateless, with kb
// tokens as bearer tokens, and its protected resource metadata at
// MetadataPath (every other path is the endpoint; mount it at
// EndpointPath and MetadataPath). Every request passes the DNS-rebinding
// guard first: a foreign Origin, or a foreign Host on a loopback address,
// gets 403 (Gateway.AllowedOrigins widens both). A missing, unknown or
// revoked token then gets 401 with WWW-Authenticate: Bearer. Each request
// gets the server of its token's class (built once per class), so a read
// token's tools/list holds read tools only; calls run as that token.
func (g *Gateway) HTTPHandler() http.Handler {
	var (
		once        sync.Once
		read, write *sdk.Server
	)
	caller := func(_ context.Context, req *sdk.CallToolRequest) (grant, error) {
		if req.Extra == nil || req.Extra.TokenInfo == nil {
			return grant{}, fmt.Errorf("no bearer token on the request")
		}
		ti := req.Extra.TokenInfo
		c, ok := ti.Extra[callerExtra].(kb.Caller)
		if !ok {
			return grant{}, fmt.Errorf("bearer token carries no kb caller")
		}
		c.Client = clientName(req, g.conns.client(bearerKey(req), "mcp-http"))
		c.Session = g.conns.name(bearerKey(req))
		return grant{caller: c, write: slices.Contains(ti.Scopes, scopeWrite)}, nil
	}
	servers := func(r *http.Request) *sdk.Server {
		once.Do(func() {
			read, write = g.newServer(false, caller, bearerKey), g.newServer(true, caller, bearerKey)
		})
		ti := auth.TokenInfoFromContext(r.Context())
		if c, ok := ti.Extra[callerExtra].(kb.Caller); ok && c.Write {
			return write
		}
		return read
	}
	// The guard replaces the SDK's own localhost protection, which would
	// refuse the Host of an allowed origin.
	endpoint := g.requireToken(sdk.NewStreamableHTTPHandler(servers, &sdk.StreamableHTTPOptions{Stateless: true, DisableLocalhostProtection: true}))
	return newOriginGuard(g.AllowedOrigins).wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == MetadataPath {
			serveMetadata(w, r)
			return
		}
		endpoint.ServeHTTP(w, r)
	}))
}

// bearerKey keys a stateless HTTP connection by its bearer token (every
// request is a session of its own there): a connection runs from the
// token's initialize to its next.
func bearerKey(req sdk.Request) any {
	extra := req.GetExtra()
	if extra == nil || extra.TokenInfo == nil {
		return nil
	}
	if c, ok := extra.TokenInfo.Extra[callerExtra].(kb.Caller); ok {
		return bearerConn(c.TokenID)
	}
	return nil
}

// bearerConn is a bearer token's connection key.
type bearerConn int64

// CheckOrigins checks origins for Gateway.AllowedOrigins: each is
// scheme://host[:port] with scheme http or https, and nothing more.
func CheckOrigins(origins []string) error {
	for _, o := range origins {
		if _, _, err := parseOrigin(o); err != nil {
			return fmt.Errorf("origin %q: %w; write it as scheme://host[:port], e.g. https://app.example:8443", o, err)
		}
	}
	return nil
}

// tokenKey carries the verified token info from requireToken to the SDK's
// middleware, so a token is looked up once per request.
type tokenKey struct{}

// requireToken answers a request without a live kb token with 401 and
// WWW-Authenticate: Bearer (RFC 6750 §3: realm, error="invalid_token" when
// a token was given, and the resource metadata of RFC 9728), and passes
// the others on with their token info.
func (g *Gateway) requireToken(next http.Handler) http.Handler {
	inner := auth.RequireBearerToken(func(ctx context.Context, _ string, _ *http.Request) (*auth.TokenInfo, error) {
		if ti, ok := ctx.Value(tokenKey{}).(*auth.TokenInfo); ok {
			return ti, nil
		}
		return nil, auth.ErrInvalidToken
	}, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scheme, token, _ := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
		token = strings.TrimSpace(token)
		if !strings.EqualFold(scheme, "bearer") || token == "" {
			unauthorized(w, r, "", "no bearer token: send Authorization: Bearer <token from yagent kb token create>")
			return
		}
		ti, err := g.verify(r.Context(), token)
		if errors.Is(err, auth.ErrInvalidToken) {
			unauthorized(w, r, "invalid_token", "the token is unknown or revoked; ask the person for a new one (yagent kb token create)")
			return
		}
		if err != nil {
			http.Error(w, "authenticate: "+err.Error(), http.StatusInternalServerError)
			return
		}
		inner.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), tokenKey{}, ti)))
	})
}

func unauthorized(w http.ResponseWriter, r *http.Request, code, desc string) {
	params := []string{fmt.Sprintf("realm=%q", realm)}
	if code != "" { // RFC 6750 §3.1: no error code when no credentials were sent
		params = append(params, fmt.Sprintf("error=%q", code), fmt.Sprintf("error_description=%q", desc))
	}
	params = append(params, fmt.Sprintf("resource_metadata=%q", baseURL(r)+MetadataPath))
	w.Header().Set("WWW-Authenticate", "Bearer "+strings.Join(params, ", "))
	http.Error(w, "401 unauthorized: "+desc, http.StatusUnauthorized)
}

// serveMetadata serves the protected resource metadata (RFC 9728) of the
// endpoint: bearer tokens in the header, the two scopes, and no
// authorization server — tokens come from `yagent kb token create`.
func serveMetadata(w http.ResponseWriter, r *http.Request) {
	auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource:               baseURL(r) + EndpointPath,
		ScopesSupported:        []string{scopeRead, scopeWrite},
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "yagent knowledge base (tokens: yagent kb token create)",
	}).ServeHTTP(w, r)
}

func baseURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// verify turns a bearer token into token info carrying the kb caller. The
// UserID is the token's id, not the person's: two tokens of one person
// must not share anything.
func (g *Gateway) verify(ctx context.Context, token string) (*auth.TokenInfo, error) {
	c, err := g.Store.Authenticate(ctx, token)
	if errors.Is(err, kb.ErrUnauthenticated) {
		return nil, fmt.Errorf("%w: %v", auth.ErrInvalidToken, err)
	}
	if err != nil {
		return nil, err
	}
	scope := scopeRead
	if c.Write {
		scope = scopeWrite
	}
	return &auth.TokenInfo{
		UserID: fmt.Sprintf("t%d", c.TokenID),
		Scopes: []string{scope},
		Extra:  map[string]any{callerExtra: c},
	}, nil
}

// originGuard is the DNS-rebinding guard of the MCP transport spec.
type originGuard struct {
	origins map[string]bool // allowed origins, normalised
	hosts   map[string]bool // their host names
}

// newOriginGuard allows the given origins (those CheckOrigins refuses are
// left out: they could never match a browser's Origin header).
func newOriginGuard(allowed []string) *originGuard {
	g := &originGuard{origins: map[string]bool{}, hosts: map[string]bool{}}
	for _, a := range allowed {
		if o, host, err := parseOrigin(a); err == nil {
			g.origins[o], g.hosts[host] = true, true
		}
	}
	return g
}

// parseOrigin normalises an origin (scheme://host[:port], nothing more)
// and returns its host name.
func parseOrigin(s string) (origin, host string, err error) {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil {
		return "", "", err
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return "", "", fmt.Errorf("the scheme must be http or https")
	case u.Hostname() == "":
		return "", "", fmt.Errorf("no host")
	case u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "":
		return "", "", fmt.Errorf("an origin has no user, path, query or fragment")
	}
	hostport := strings.ToLower(u.Host)
	if p := u.Port(); (u.Scheme == "http" && p == "80") || (u.Scheme == "https" && p == "443") {
		hostport = strings.TrimSuffix(hostport, ":"+p) // the default port is implied
	}
	return u.Scheme + "://" + hostport, strings.ToLower(u.Hostname()), nil
}

// wrap refuses, with 403, a request whose Origin is neither absent (a
// non-browser client), nor loopback, nor the address the request arrived
// on, nor allowed; and a request that arrived on a loopback address whose
// Host is neither loopback nor an allowed origin's host (a DNS-rebound
// name). Allowed origins get CORS headers, and their preflight is answered.
func (g *originGuard) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		local := localAddr(r)
		if local.IsValid() && local.IsLoopback() && !isLoopbackName(hostOnly(r.Host)) && !g.hosts[strings.ToLower(hostOnly(r.Host))] {
			http.Error(w, fmt.Sprintf("403 forbidden: Host %q is not this machine (DNS-rebinding guard); to serve behind a proxy that keeps the Host, start yagent mcp serve with --allow-origin for it", r.Host), http.StatusForbidden)
			return
		}
		origin := r.Header.Get("Origin")
		if origin == "" {
			next.ServeHTTP(w, r)
			return
		}
		if !g.allows(origin, local) {
			http.Error(w, fmt.Sprintf("403 forbidden: Origin %q may not use this server (DNS-rebinding guard); allow it with yagent mcp serve --allow-origin %s", origin, origin), http.StatusForbidden)
			return
		}
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", origin)
		h.Add("Vary", "Origin")
		h.Set("Access-Control-Expose-Headers", "Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate")
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			h.Set("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS")
			h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// allows reports whether a browser at origin may use the server: a
// loopback origin, the literal address the request arrived on (an address
// cannot be rebound, a name can), or an allowed one.
func (g *originGuard) allows(origin string, local netip.Addr) bool {
	o, host, err := parseOrigin(origin)
	if err != nil {
		return false // "null" (sandboxed frames, files) included
	}
	if g.origins[o] || isLoopbackName(host) {
		return true
	}
	ip, err := netip.ParseAddr(strings.Trim(host, "[]"))
	return err == nil && local.IsValid() && ip.Unmap() == local.Unmap()
}

func localAddr(r *http.Request) netip.Addr {
	a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || a == nil {
		return netip.Addr{}
	}
	ap, err := netip.ParseAddrPort(a.String())
	if err != nil {
		return netip.Addr{}
	}
	return ap.Addr().Unmap()
}

// hostOnly is the host of a Host header, without port or brackets.
func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return strings.Trim(hostport, "[]")
}

// isLoopbackName reports whether a host name or address is this machine's
// loopback: localhost (and *.localhost, RFC 6761), 127.0.0.0/8, ::1.
func isLoopbackName(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}
