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
type connections struct {
	mu    sync.Mutex
	names map[any]string
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
