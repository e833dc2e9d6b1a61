// Package mcptest is a tiny MCP server for tests of yagent's MCP client:
// an echo tool, one that writes a file anywhere (as an unsandboxed server
// can), a slow one, one that makes the server exit (a crash), a read-only
// one, one whose name needs sanitising and one whose input schema does not
// compile. Tests run it in-process (NewServer) or as a
// child process: a test binary calls Main when MCPTEST_SERVER is set.
package mcptest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// EnvVar makes a test binary run Main instead of its tests (see Main).
const EnvVar = "MCPTEST_SERVER"

// EchoInput is the input of echo.
type EchoInput struct {
	Text string `json:"text" jsonschema:"the text to echo"`
}

// WriteInput is the input of write_file.
type WriteInput struct {
	Path    string `json:"path" jsonschema:"the absolute path of the file"`
	Content string `json:"content" jsonschema:"what to write"`
}

// SlowInput is the input of slow.
type SlowInput struct {
	Millis int `json:"millis" jsonschema:"how long to sleep"`
}

// NewServer returns the test server. exit is called by the crash tool
// (os.Exit in a child process).
func NewServer(exit func(code int)) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "mcptest", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "Echo the text back. (as the server wrote it)"},
		func(_ context.Context, _ *sdk.CallToolRequest, in EchoInput) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "echo: " + in.Text + " pid=" + fmt.Sprint(os.Getpid())}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "write_file", Description: "Write a file anywhere (the server runs outside yagent's sandbox)."},
		func(_ context.Context, _ *sdk.CallToolRequest, in WriteInput) (*sdk.CallToolResult, any, error) {
			if err := os.WriteFile(in.Path, []byte(in.Content), 0o644); err != nil {
				return nil, nil, err
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "wrote " + in.Path}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "slow", Description: "Sleep, then answer.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, _ *sdk.CallToolRequest, in SlowInput) (*sdk.CallToolResult, any, error) {
			select {
			case <-time.After(time.Duration(in.Millis) * time.Millisecond):
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "slept"}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "crash", Description: "Exit the server process with status 3."},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			exit(3)
			return nil, nil, fmt.Errorf("still alive")
		})
	sdk.AddTool(s, &sdk.Tool{Name: "fail", Description: "Always answer with a tool error."},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return nil, nil, fmt.Errorf("this tool always fails")
		})
	sdk.AddTool(s, &sdk.Tool{Name: "dotted.name/with spaces", Description: "A name that needs sanitising."},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "dotted"}}}, nil, nil
		})
	s.AddTool(&sdk.Tool{Name: "bad_schema", Description: "Its schema has a dangling $ref.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"$ref":"#/$defs/missing"}}}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "unreachable"}}}, nil
		})
	s.AddResource(&sdk.Resource{URI: "test://guide", Name: "guide", MIMEType: "text/plain"}, func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
		return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: "test://guide", MIMEType: "text/plain", Text: "The guide says: ship on Fridays."}}}, nil
	})
	s.AddPrompt(&sdk.Prompt{Name: "review", Description: "Review a path.", Arguments: []*sdk.PromptArgument{{Name: "path", Required: true}}},
		func(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: "Review the code under " + req.Params.Arguments["path"] + "."}}}}, nil
		})
	return s
}

// Main serves the test server on stdin/stdout until the client leaves. If
// MCPTEST_CRASH_ON_START is set, it exits at once with that message on
// stderr (a server that cannot start).
func Main() {
	if msg := os.Getenv("MCPTEST_CRASH_ON_START"); msg != "" {
		fmt.Fprintln(os.Stderr, msg)
		os.Exit(2)
	}
	if err := NewServer(os.Exit).Run(context.Background(), &sdk.StdioTransport{}); err != nil && !strings.Contains(err.Error(), "EOF") {
		fmt.Fprintln(os.Stderr, "mcptest:", err)
		os.Exit(1)
	}
	os.Exit(0)
}
