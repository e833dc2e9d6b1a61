package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yagent/yagent/mcp/mcptest"
)

// mcpTestServerMain is the script command mcp-test-server: a tiny stdio
// MCP server (echo, slow, crash, …) for mcp_servers: in scripts.
func mcpTestServerMain() { mcptest.Main() }

// mcpCallMain is the script command mcp-call, an MCP client:
//
//	mcp-call [-http URL -token T] list                    tool names, one per line
//	mcp-call [-http URL -token T] call TOOL ARGS [call …]  each result's text
//
// Without -http it starts `yagent mcp serve` (YAGENT_KB_TOKEN from the
// environment). Several calls share one connection. A tool error prints
// the text and exits 1 (after the other calls); a protocol error exits 2.
func mcpCallMain() {
	fs := flag.NewFlagSet("mcp-call", flag.ExitOnError)
	url := fs.String("http", "", "server URL (default: stdio, yagent mcp serve)")
	token := fs.String("token", "", "bearer token for -http")
	fs.Parse(os.Args[1:])
	ctx := context.Background()
	var t sdk.Transport = &sdk.CommandTransport{Command: exec.Command("yagent", "mcp", "serve")}
	if *url != "" {
		t = &sdk.StreamableClientTransport{Endpoint: *url, MaxRetries: -1,
			HTTPClient: &http.Client{Transport: headerRT{"Bearer " + *token}}}
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "mcp-call", Version: "1"}, nil).Connect(ctx, t, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "connect:", err)
		os.Exit(2)
	}
	defer cs.Close()
	args := fs.Args()
	if len(args) == 1 && args[0] == "list" {
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			fmt.Fprintln(os.Stderr, "protocol error:", err)
			os.Exit(2)
		}
		for _, tool := range res.Tools {
			fmt.Println(tool.Name)
		}
		return
	}
	if len(args) == 0 || len(args)%3 != 0 {
		fmt.Fprintln(os.Stderr, "usage: mcp-call [-http URL -token T] list | call TOOL JSON [call TOOL JSON]…")
		os.Exit(2)
	}
	failed := false
	for ; len(args) > 0; args = args[3:] {
		if args[0] != "call" {
			fmt.Fprintf(os.Stderr, "mcp-call: %q is not call\n", args[0])
			os.Exit(2)
		}
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: args[1], Arguments: json.RawMessage(args[2])})
		if err != nil {
			fmt.Fprintln(os.Stderr, "protocol error:", err)
			os.Exit(2)
		}
		for _, c := range res.Content {
			if tc, ok := c.(*sdk.TextContent); ok {
				fmt.Println(tc.Text)
			}
		}
		failed = failed || res.IsError
	}
	if failed {
		cs.Close()
		os.Exit(1)
	}
}

type headerRT struct{ auth string }

func (h headerRT) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", h.auth)
	return http.DefaultTransport.RoundTrip(req)
}
