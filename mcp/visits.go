package mcp

import (
	"context"
	"crypto/rand"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// connections names MCP connections for kb.Caller.Session, which is how
// start_session tells visits apart (seed 004: the delta is "what changed
// since your previous visit"): calls of one connection within kb's idle
// window are one visit and see the same delta; a client that reconnects
// starts a new visit and sees what changed since the previous one began.
//
// A connection is keyed by the transport: on stdio by its server session
// (one per connection); over stateless HTTP — where every request is a
// session of its own and no Mcp-Session-Id exists — by the bearer token,
// from one connect to the next. A connect is the client's initialize
// (protocol revisions up to 2025) or server/discover (the stateless
// revision, SEP-2575); each gives its key a new name. A client that sends
// neither keeps one name per token, and kb's idle window alone separates
// its visits.
//
// A connection also keeps the client's name from its initialize: over
// stateless HTTP a client of a revision before 2026-07-28 (Codex's)
// names itself there only, and each later request is a session of its own
// without it — its writes were booked "via mcp-http".
type connections struct {
	mu      sync.Mutex
	names   map[any]string
	clients map[any]string // the clientInfo name of the key's last initialize
}

// client returns the name the connection's client gave at its last
// initialize, or fallback.
func (c *connections) client(key any, fallback string) string {
	if key == nil {
		return fallback
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if n := c.clients[key]; n != "" {
		return n
	}
	return fallback
}

// keyFunc returns the connection key of a request (nil: none).
type keyFunc func(sdk.Request) any

// name returns the connection's name, naming it on first use.
func (c *connections) name(key any) string {
	if key == nil {
		return ""
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if n, ok := c.names[key]; ok {
		return n
	}
	return c.rename(key)
}

// rename gives the connection a new name: it (re)connected. c.mu is held.
func (c *connections) rename(key any) string {
	if c.names == nil {
		c.names = map[any]string{}
	}
	n := "mcp-" + rand.Text()[:16]
	c.names[key] = n
	return n
}

// middleware renames a connection at every connect (initialize or
// server/discover): a client that reconnects is a new visitor.
func (c *connections) middleware(key keyFunc) sdk.Middleware {
	return func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			if method == "initialize" || method == "server/discover" {
				if k := key(req); k != nil {
					c.mu.Lock()
					c.rename(k)
					if c.clients == nil {
						c.clients = map[any]string{}
					}
					delete(c.clients, k)
					if p, ok := req.GetParams().(*sdk.InitializeParams); ok && p != nil && p.ClientInfo != nil && p.ClientInfo.Name != "" {
						c.clients[k] = p.ClientInfo.Name
					}
					c.mu.Unlock()
				}
			}
			return next(ctx, method, req)
		}
	}
}

// sessionKey keys a stdio connection by its server session.
func sessionKey(req sdk.Request) any {
	if s, ok := req.GetSession().(*sdk.ServerSession); ok && s != nil {
		return s
	}
	return nil
}
