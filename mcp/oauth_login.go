package mcp

import (
	"context"
	"errors"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ErrNoOAuth is a server that login and logout do not apply to: not a
// url server, or one with its own credential (token_env, an
// Authorization header).
var ErrNoOAuth = errors.New("not an OAuth server")

// ErrUnknownServer is a server name that is not configured.
var ErrUnknownServer = errors.New("no such mcp server")

// Login authorizes server name ahead of time (`yagent mcp login`): it
// connects with the browser flow allowed whatever Interactive says, and
// without the start timeout (the flow's own wait bounds it); a stored
// token that still works (or refreshes) is used as is.
func (s *Servers) Login(ctx context.Context, name string) error {
	r, err := s.oauthRemote(name)
	if err != nil {
		return err
	}
	opts := s.opts.OAuth
	opts.Interactive = true
	flow := &oauthFlow{server: r.name, url: r.cfg.URL, opts: &opts, say: r.sayf, issued: r.secrets.Add,
		clientID: r.oauth.clientID, secretEnv: r.oauth.secretEnv, getenv: r.oauth.getenv}
	client := sdk.NewClient(&sdk.Implementation{Name: "yagent", Version: s.opts.Version}, nil)
	t := &sdk.StreamableClientTransport{Endpoint: r.cfg.URL, DisableStandaloneSSE: true, OAuthHandler: flow}
	if t.HTTPClient, err = r.httpClient(); err != nil {
		return err
	}
	sess, err := client.Connect(ctx, t, nil)
	if err != nil {
		return fmt.Errorf("log in to mcp server %s (%s): %w", name, r.cfg.URL, r.secrets.Error(err))
	}
	if err := sess.Close(); err != nil && !errors.Is(err, sdk.ErrConnectionClosed) {
		return fmt.Errorf("log in to mcp server %s: close: %w", name, r.secrets.Error(err))
	}
	return nil
}

// Logout forgets the stored token of server name; removed says there
// was one.
func (s *Servers) Logout(name string) (removed bool, err error) {
	r, err := s.oauthRemote(name)
	if err != nil {
		return false, err
	}
	return s.opts.OAuth.Store.Remove(r.name, r.cfg.URL)
}

// TokenFile is where the token of server name is kept ("" when it has
// none to keep).
func (s *Servers) TokenFile(name string) string {
	r, err := s.oauthRemote(name)
	if err != nil {
		return ""
	}
	return s.opts.OAuth.Store.Path(r.name, r.cfg.URL)
}

func (s *Servers) oauthRemote(name string) (*remote, error) {
	r, ok := s.remotes[name]
	switch {
	case !ok:
		return nil, fmt.Errorf("%w %q: `yagent mcp ls` lists the configured ones", ErrUnknownServer, name)
	case r.cfg.URL == "":
		return nil, fmt.Errorf("mcp server %s runs a command (stdio): %w; only url servers log in", name, ErrNoOAuth)
	case r.oauth == nil && s.opts.OAuth.Store == nil:
		return nil, fmt.Errorf("mcp server %s: %w: there is no token store (set YAGENT_HOME)", name, ErrNoOAuth)
	case r.oauth == nil:
		return nil, fmt.Errorf("mcp server %s sends its own credential (token_env or an Authorization header): %w", name, ErrNoOAuth)
	}
	return r, nil
}
