package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yagent/yagent/config"
)

// TestResourceAndPrompt pins reading a server's resource and getting its
// prompt with arguments, as text (what @server:uri attachments and
// /server:prompt take), and an unknown server named with what to do.
func TestResourceAndPrompt(t *testing.T) {
	server := sdk.NewServer(&sdk.Implementation{Name: "docs"}, nil)
	server.AddResource(&sdk.Resource{URI: "docs://guide", Name: "guide"}, func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
		return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: "docs://guide", Text: "the guide"}}}, nil
	})
	server.AddPrompt(&sdk.Prompt{Name: "review", Arguments: []*sdk.PromptArgument{{Name: "path"}}}, func(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
		return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: "review " + req.Params.Arguments["path"]}}}}, nil
	})
	srv := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, &sdk.StreamableHTTPOptions{Stateless: true}))
	defer srv.Close()
	s := NewServers(map[string]config.MCPServer{"docs": {URL: srv.URL, Enabled: true, Timeout: config.Duration(10 * time.Second)}}, ServersOptions{})
	defer s.Close()
	if got, err := s.ReadResource(t.Context(), "docs", "docs://guide"); got != "the guide" || err != nil {
		t.Errorf("ReadResource = %q, %v; want the guide", got, err)
	}
	if got, err := s.Prompt(t.Context(), "docs", "review", map[string]string{"path": "src"}); got != "review src" || err != nil {
		t.Errorf("Prompt = %q, %v; want review src", got, err)
	}
	if _, err := s.ReadResource(t.Context(), "nope", "x://y"); err == nil || !strings.Contains(err.Error(), "yagent mcp ls") {
		t.Errorf("unknown server: %v; want it named with yagent mcp ls", err)
	}
}
