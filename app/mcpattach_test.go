package app

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/mcp"
)

// TestExpandMCPAttachments pins @server:uri attachments: a configured
// server's resource follows the prompt (kept as typed) in a block naming
// it, once however often it is named; an @x:y of no configured server (an
// address, a handle) is left alone; a resource that cannot be read is an
// error naming it.
func TestExpandMCPAttachments(t *testing.T) {
	server := sdk.NewServer(&sdk.Implementation{Name: "docs"}, nil)
	server.AddResource(&sdk.Resource{URI: "docs://guide", Name: "guide"}, func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
		return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: "docs://guide", Text: "the guide\n"}}}, nil
	})
	srv := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, &sdk.StreamableHTTPOptions{Stateless: true}))
	defer srv.Close()
	s := mcp.NewServers(map[string]config.MCPServer{"docs": {URL: srv.URL, Enabled: true, Timeout: config.Duration(10 * time.Second)}}, mcp.ServersOptions{})
	defer s.Close()
	prompt := "summarise @docs:docs://guide, then mail @bob:home and @docs:docs://guide again"
	got, err := ExpandMCPAttachments(t.Context(), s, prompt)
	want := prompt + "\n\n<attachment source=\"@docs:docs://guide\">\nthe guide\n</attachment>"
	if err != nil || got != want {
		t.Errorf("ExpandMCPAttachments = %q, %v; want %q", got, err, want)
	}
	if _, err := ExpandMCPAttachments(t.Context(), s, "see @docs:docs://missing"); err == nil || !strings.Contains(err.Error(), "@docs:docs://missing") {
		t.Errorf("a missing resource: %v; want an error naming it", err)
	}
}
