package mcp

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/kb"
)

//go:embed instructions.md
var instructions string

// Gateway serves the knowledge base, and optionally the boards, over MCP.
type Gateway struct {
	Store *kb.Store
	// Board, when set, adds the read-only board tools.
	Board *blackboard.Store
	// Version is the server version reported to clients.
	Version string
	// Owner is the principal whose boards these are (the local person,
	// kb.person); only its tokens read boards, and a token limited to
	// projects only the boards of those projects. 0: no token reads any.
	Owner int64
	// AllowedOrigins are browser origins ("https://app.example:8443",
	// checked by CheckOrigins) that HTTPHandler accepts besides loopback
	// ones; their hosts are also accepted in the Host header of a request
	// that arrives on a loopback address (a reverse proxy keeping the Host).
	AllowedOrigins []string

	// conns names the connections, for start_session's visits.
	conns connections
}

// grant is who makes one tool call and whether the transport's credential
// allows writes (its scope), decided apart from the kb caller so that a
// write handler checks it itself before kb checks the caller.
type grant struct {
	caller kb.Caller
	write  bool
}

// callerFunc returns the grant of one tool call. An error wrapping
// kb.ErrUnauthenticated becomes a tool error; any other a protocol error.
type callerFunc func(ctx context.Context, req *sdk.CallToolRequest) (grant, error)

// newServer builds the server of one token class: every tool for a write
// token, read tools only for a read token (kb.ToolsFor decides), then the
// board tools, which are read-only. conn keys a request's connection
// (connections).
func (g *Gateway) newServer(write bool, caller callerFunc, conn keyFunc) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "yagent", Title: "yagent knowledge base", Version: g.version()},
		&sdk.ServerOptions{Instructions: strings.TrimSpace(instructions)})
	s.AddReceivingMiddleware(g.conns.middleware(conn))
	for _, t := range kb.ToolsFor(kb.Caller{Write: write}) {
		s.AddTool(kbTool(t), g.kbHandler(t, caller))
	}
	if g.Board != nil {
		g.addBoardTools(s, caller)
	}
	return s
}

func (g *Gateway) version() string {
	if g.Version == "" {
		return "dev"
	}
	return g.Version
}

// ServerForToken authenticates a kb token and returns the server of its
// class. Every call authenticates the token again, so a token revoked
// while a client is connected stops working at its next call. Each
// connection is a session of its own for start_session's visits.
func (g *Gateway) ServerForToken(ctx context.Context, token string) (*sdk.Server, error) {
	c, err := g.Store.Authenticate(ctx, token)
	if err != nil {
		return nil, err
	}
	return g.newServer(c.Write, func(ctx context.Context, req *sdk.CallToolRequest) (grant, error) {
		c, err := g.Store.Authenticate(ctx, token)
		if err != nil {
			return grant{}, err
		}
		c.Client = clientName(req, "mcp-stdio")
		c.Session = g.conns.name(sessionKey(req))
		return grant{caller: c, write: c.Write}, nil
	}, sessionKey), nil
}

// kbTool is the MCP declaration of an intent tool. All four annotations
// are set explicitly: the spec's defaults (destructive, open world) are the
// cautious ones, and none of these tools reaches outside the knowledge base.
func kbTool(t kb.ToolInfo) *sdk.Tool {
	s := mustKBSchema(t)
	return &sdk.Tool{
		Name: t.Name, Description: t.Description,
		InputSchema: s.In, OutputSchema: s.Out,
		Annotations: &sdk.ToolAnnotations{
			ReadOnlyHint:    t.ReadOnly,
			DestructiveHint: ptr(t.Destructive),
			IdempotentHint:  t.Idempotent,
			OpenWorldHint:   ptr(false),
		},
	}
}

func ptr[T any](v T) *T { return &v }

// kbHandler runs an intent tool for the request's caller. A write tool
// first checks the request's own credential (its scope) here — whatever
// server the request was routed to — and kb then checks the caller again.
func (g *Gateway) kbHandler(t kb.ToolInfo, caller callerFunc) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		gr, err := caller(ctx, req)
		if errors.Is(err, kb.ErrUnauthenticated) {
			return errorResult(kb.CodeForbidden, fmt.Sprintf("%v: the token was revoked or is unknown; ask the person for a new one (yagent kb token create)", err)), nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.Name, err)
		}
		if !t.ReadOnly && !gr.write {
			return errorResult(kb.CodeForbidden, fmt.Sprintf("%s writes, and this token is read-only; ask the person for a write token or use read tools only", t.Name)), nil
		}
		out, err := g.Store.Call(ctx, gr.caller, t.Name, []byte(req.Params.Arguments))
		if err != nil {
			if code := kb.ErrorCode(err); code != "" {
				return errorResult(code, err.Error()), nil
			}
			return nil, fmt.Errorf("%s: %w", t.Name, err)
		}
		return &sdk.CallToolResult{
			Content:           []sdk.Content{&sdk.TextContent{Text: string(out)}},
			StructuredContent: json.RawMessage(out),
		}, nil
	}
}

// errorResult is a tool result reporting a mistake the model can fix; its
// text starts with the error code.
func errorResult(code, msg string) *sdk.CallToolResult {
	if !strings.HasPrefix(msg, code) {
		msg = code + ": " + msg
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: msg}}, IsError: true}
}

// clientName is the client's name from its initialize request, recorded in
// provenance, or fallback.
func clientName(req *sdk.CallToolRequest, fallback string) string {
	if req != nil && req.Session != nil {
		if p := req.Session.InitializeParams(); p != nil && p.ClientInfo != nil && p.ClientInfo.Name != "" {
			return p.ClientInfo.Name
		}
	}
	return fallback
}
