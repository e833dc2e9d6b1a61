package mcp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"runtime"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// OAuthOptions let url servers that answer 401 with an OAuth challenge
// (WWW-Authenticate with resource_metadata) be authorized: discovery,
// dynamic client registration and the authorization-code flow with PKCE
// are the go-sdk's (auth.AuthorizationCodeHandler); yagent adds the
// browser, the loopback redirect, and the token store.
type OAuthOptions struct {
	// Store keeps the tokens; nil switches OAuth off (a 401 is a start
	// failure, as for any server).
	Store *TokenStore
	// Interactive says a person can finish the flow in a browser.
	// Headless, a server needing authorization fails to start with a
	// *NeedsLoginError naming `yagent mcp login NAME`, at once.
	Interactive bool
	// Open opens a URL in a browser (nil: xdg-open, or open on macOS); a
	// failure is a notice only, the URL is printed anyway.
	Open func(ctx context.Context, url string) error
	// Say tells the person what to open (nil: ServersOptions.Notify).
	Say func(string)
	// HTTPClient makes discovery, registration and token requests (nil:
	// http.DefaultClient).
	HTTPClient *http.Client
	// Wait bounds the wait for the browser's redirect (0: 5 minutes). The
	// server's start timeout does not run meanwhile.
	Wait time.Duration
}

// NeedsLoginError is a server that needs authorization where nobody can
// open a browser.
type NeedsLoginError struct{ Server string }

func (e *NeedsLoginError) Error() string {
	return fmt.Sprintf("mcp server %s needs authorization (OAuth), and no browser flow runs here (nobody at a terminal, or a command that only lists servers): run `yagent mcp login %s` once, then start again", e.Server, e.Server)
}

// ErrStateMismatch is a browser redirect whose state is not the one the
// flow sent: a stale or forged callback, refused.
var ErrStateMismatch = errors.New("the authorization callback's state does not match the request (a stale or forged redirect): refused")

// oauthFlow is one url server's auth.OAuthHandler: the stored token (and
// its refresh) first; on a 401 the go-sdk's authorization-code flow over
// a loopback redirect, its token kept in the store.
type oauthFlow struct {
	server, url string
	opts        *OAuthOptions
	say         func(string)
	// clientID, when set, is a client registered ahead of time
	// (mcp_servers.NAME.oauth_client_id): no dynamic registration; its
	// secret is read from the variable secretEnv names, when set.
	clientID, secretEnv string
	getenv              func(string) string
	// issued learns each token handed out (the server's secrets: no error
	// or result shows them).
	issued func(...string)

	mu     sync.Mutex
	ts     oauth2.TokenSource
	loaded bool
	// pause stops the server's start deadline while the person is in the
	// browser; it returns what restarts it. Set per connection attempt.
	pause func() (resume func())
}

func (f *oauthFlow) client() *http.Client {
	if f.opts.HTTPClient != nil {
		return f.opts.HTTPClient
	}
	return http.DefaultClient
}

// TokenSource is the token of the last authorization, else the stored one.
func (f *oauthFlow) TokenSource(ctx context.Context) (oauth2.TokenSource, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ts == nil && !f.loaded {
		f.loaded = true
		if rec := f.opts.Store.load(f.server, f.url); rec != nil {
			cfg := &oauth2.Config{ClientID: rec.ClientID, ClientSecret: rec.ClientSecret,
				Endpoint: oauth2.Endpoint{TokenURL: rec.TokenURL, AuthStyle: rec.AuthStyle}}
			// Refreshes outlive the request that first asked for the token.
			rctx := context.WithValue(context.WithoutCancel(ctx), oauth2.HTTPClient, f.client())
			f.ts = f.saving(cfg.TokenSource(rctx, rec.Token), *rec)
		}
	}
	return f.ts, nil
}

func (f *oauthFlow) saving(src oauth2.TokenSource, rec tokenRecord) oauth2.TokenSource {
	return &reauthSource{server: f.server, say: f.say, src: &savingSource{src: src, store: f.opts.Store, rec: rec, issued: f.issued,
		warn: func(err error) {
			f.say(fmt.Sprintf("mcp server %s: %v (the token works for this run only)", f.server, err))
		}}}
}

// reauthSource turns any failure to refresh into invalid_grant, which
// the go-sdk's transport answers by sending the request without a token:
// the server's 401 then runs the authorization again.
type reauthSource struct {
	server string
	say    func(string)
	src    oauth2.TokenSource
}

func (s *reauthSource) Token() (*oauth2.Token, error) {
	tok, err := s.src.Token()
	if err != nil {
		s.say(fmt.Sprintf("mcp server %s: the token could not be refreshed (%v); authorizing again", s.server, err))
		return nil, &oauth2.RetrieveError{ErrorCode: "invalid_grant", ErrorDescription: err.Error()}
	}
	return tok, nil
}

// clientRegistration is how the flow gets its client: registered ahead
// of time, or dynamically.
type clientRegistration struct {
	pre     *oauthex.ClientCredentials
	dynamic *auth.DynamicClientRegistrationConfig
}

// registration is the configured client (oauth_client_id, its secret
// from oauth_client_secret_env) or else dynamic registration.
func (f *oauthFlow) registration(redirect string) (clientRegistration, error) {
	if f.clientID == "" {
		return clientRegistration{dynamic: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			RedirectURIs: []string{redirect}, ClientName: "yagent", TokenEndpointAuthMethod: "none",
			GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"},
		}}}, nil
	}
	pre := &oauthex.ClientCredentials{ClientID: f.clientID}
	if f.secretEnv != "" {
		secret := f.getenv(f.secretEnv)
		if secret == "" {
			return clientRegistration{}, fmt.Errorf("authorize mcp server %s: its client secret variable %s is empty; export it or drop oauth_client_secret_env", f.server, f.secretEnv)
		}
		pre.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: secret}
	}
	return clientRegistration{pre: pre}, nil
}

// Authorize runs the authorization-code flow (the go-sdk's), headless a
// *NeedsLoginError.
func (f *oauthFlow) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	if !f.opts.Interactive {
		resp.Body.Close()
		return &NeedsLoginError{Server: f.server}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		resp.Body.Close()
		return fmt.Errorf("authorize mcp server %s: listen for the browser's redirect: %w", f.server, err)
	}
	defer ln.Close()
	redirect := "http://" + ln.Addr().String() + "/callback"
	reg, err := f.registration(redirect)
	if err != nil {
		resp.Body.Close()
		return err
	}
	h, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		PreregisteredClient:             reg.pre,
		DynamicClientRegistrationConfig: reg.dynamic,
		RedirectURL:                     redirect,
		AuthorizationCodeFetcher:        f.fetcher(ln),
		RequestRefreshToken:             true,
		Client:                          f.client(),
		NewTokenSource: func(ctx context.Context, cfg *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
			rec := tokenRecord{Server: f.server, URL: f.url, ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret,
				TokenURL: cfg.Endpoint.TokenURL, AuthStyle: cfg.Endpoint.AuthStyle, Token: tok}
			if err := f.opts.Store.save(&rec); err != nil {
				f.say(fmt.Sprintf("mcp server %s: %v (the token works for this run only)", f.server, err))
			}
			return f.saving(cfg.TokenSource(ctx, tok), rec), nil
		},
	})
	if err != nil {
		resp.Body.Close()
		return fmt.Errorf("authorize mcp server %s: %w", f.server, err)
	}
	if err := h.Authorize(ctx, req, resp); err != nil {
		return fmt.Errorf("authorize mcp server %s: %w", f.server, err)
	}
	ts, err := h.TokenSource(ctx)
	if err != nil {
		return fmt.Errorf("authorize mcp server %s: %w", f.server, err)
	}
	f.mu.Lock()
	f.ts, f.loaded = ts, true
	f.mu.Unlock()
	f.say(fmt.Sprintf("mcp server %s: authorized", f.server))
	return nil
}

// fetcher shows the authorization URL (and opens a browser) and waits
// for the redirect on ln: a callback whose state is not the request's
// fails the flow with ErrStateMismatch.
func (f *oauthFlow) fetcher(ln net.Listener) auth.AuthorizationCodeFetcher {
	return func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
		u, err := url.Parse(args.URL)
		if err != nil {
			return nil, fmt.Errorf("authorization url: %w", err)
		}
		want := u.Query().Get("state")
		type result struct {
			res *auth.AuthorizationResult
			err error
		}
		done := make(chan result, 1)
		srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/callback" {
				http.NotFound(w, r)
				return
			}
			q := r.URL.Query()
			var res result
			switch {
			case q.Get("state") != want:
				res.err = ErrStateMismatch
			case q.Get("error") != "":
				res.err = fmt.Errorf("the authorization server said %s: %s", q.Get("error"), q.Get("error_description"))
			case q.Get("code") == "":
				res.err = errors.New("the authorization callback carried no code")
			default:
				res.res = &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}
			}
			if res.err != nil {
				http.Error(w, "yagent: "+res.err.Error(), http.StatusBadRequest)
			} else {
				fmt.Fprintln(w, "yagent: authorized. You can close this tab.")
			}
			select {
			case done <- res:
			default: // the flow has its answer already
			}
		})}
		go srv.Serve(ln)
		defer func() {
			sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
			defer cancel()
			srv.Shutdown(sctx)
		}()
		f.mu.Lock()
		pause := f.pause
		f.mu.Unlock()
		if pause != nil {
			defer pause()()
		}
		f.say(fmt.Sprintf("mcp server %s needs authorization: open %s", f.server, args.URL))
		open := f.opts.Open
		if open == nil {
			open = openBrowser
		}
		if err := open(ctx, args.URL); err != nil {
			f.say(fmt.Sprintf("could not open a browser (%v): open the URL above yourself", err))
		}
		wait := f.opts.Wait
		if wait <= 0 {
			wait = 5 * time.Minute
		}
		timer := time.NewTimer(wait)
		defer timer.Stop()
		select {
		case r := <-done:
			return r.res, r.err
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-timer.C:
			return nil, fmt.Errorf("no redirect from the browser within %s: run `yagent mcp login %s` to try again", wait, f.server)
		}
	}
}

// openBrowser starts the system's opener and does not wait for it.
func openBrowser(ctx context.Context, u string) error {
	name := "xdg-open"
	if runtime.GOOS == "darwin" {
		name = "open"
	}
	cmd := exec.CommandContext(context.WithoutCancel(ctx), name, u)
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait()
	return nil
}
