package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yagent/yagent/kb"
)

// Scopes of a bearer token: kb:write lets write handlers run.
const (
	scopeRead  = "kb:read"
	scopeWrite = "kb:write"
)

// callerExtra is the TokenInfo.Extra key of the authenticated kb.Caller.
const callerExtra = "yagent.kb.caller"

// HTTPHandler serves the gateway over streamable HTTP, stateless, with kb
// tokens as bearer tokens: an unknown or revoked token gets 401. Each
// request gets the server of its token's class (built once per class), so a
// read token's tools/list holds read tools only; calls run as that token.
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
		c.Client = clientName(req, "mcp-http")
		return grant{caller: c, write: slices.Contains(ti.Scopes, scopeWrite)}, nil
	}
	servers := func(r *http.Request) *sdk.Server {
		once.Do(func() {
			read, write = g.newServer(false, caller), g.newServer(true, caller)
		})
		ti := auth.TokenInfoFromContext(r.Context())
		if c, ok := ti.Extra[callerExtra].(kb.Caller); ok && c.Write {
			return write
		}
		return read
	}
	h := sdk.NewStreamableHTTPHandler(servers, &sdk.StreamableHTTPOptions{Stateless: true})
	return auth.RequireBearerToken(g.verify, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(h)
}

// verify turns a bearer token into token info carrying the kb caller. The
// UserID is the token's id, not the person's: two tokens of one person
// must not share anything.
func (g *Gateway) verify(ctx context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
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
