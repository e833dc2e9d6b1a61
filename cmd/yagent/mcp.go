package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/spf13/cobra"

	"github.com/yagent/yagent/app"
	"github.com/yagent/yagent/internal/buildinfo"
	"github.com/yagent/yagent/kb"
	"github.com/yagent/yagent/mcp"
)

// NewCmdMCP builds `yagent mcp`.
func NewCmdMCP(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the knowledge base over MCP, or list the MCP servers yagent uses",
		Example: `  yagent mcp serve
  yagent mcp ls
  yagent mcp login linear`,
	}
	cmd.AddCommand(NewCmdMCPServe(f), NewCmdMCPLs(f), NewCmdMCPLogin(f, false), NewCmdMCPLogin(f, true))
	return cmd
}

// mcpServeOptions are the inputs of `yagent mcp serve`.
type mcpServeOptions struct {
	HTTP         string
	AllowOrigins []string
}

// NewCmdMCPServe builds `yagent mcp serve`.
func NewCmdMCPServe(f *Factory) *cobra.Command {
	opts := &mcpServeOptions{}
	cmd := &cobra.Command{
		Use:   "serve [--http [HOST:]PORT] [--allow-origin URL]…",
		Short: "Serve the knowledge base (and read-only boards) to MCP clients",
		Long: `Serve the knowledge base's 21 intent tools, and read-only tools over yagent's
boards (board_list_boards, board_list_notes, board_read_note), to an MCP
client such as Claude Code, Claude Desktop or Codex.

Without --http it speaks MCP on stdin/stdout (the client starts it) with the
token in YAGENT_KB_TOKEN. With --http it serves streamable HTTP at
http://ADDR/mcp, stateless, and every request carries a token as
"Authorization: Bearer ykb_…" (none, unknown or revoked: 401 with
WWW-Authenticate: Bearer). --http 8765 or :8765 listens on 127.0.0.1; other
machines reach it only at an address you name (--http 0.0.0.0:8765).
Browsers are held off (the DNS-rebinding guard): a request whose Origin is
not loopback, nor an --allow-origin, gets 403. A read token lists and calls
the read tools only. Board tools show the boards of the token's projects
(a board belongs to the kb.project of the session that wrote it); a token
of yours that reaches every project sees every board. Create tokens with
` + "`yagent kb token create`" + `.`,
		Example: `  # Over stdio, for Claude Desktop or Codex (a token from yagent kb token create)
  YAGENT_KB_TOKEN=… yagent mcp serve

  # Over HTTP on 127.0.0.1:8765
  yagent mcp serve --http 8765`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return mcpServeRun(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().StringVar(&opts.HTTP, "http", "", "serve streamable HTTP on this address instead of stdio: PORT or :PORT means 127.0.0.1:PORT")
	cmd.Flags().StringArrayVar(&opts.AllowOrigins, "allow-origin", nil, "a browser origin (scheme://host[:port]) allowed besides loopback ones (repeatable; with --http)")
	return cmd
}

func mcpServeRun(ctx context.Context, f *Factory, opts *mcpServeOptions) error {
	store, err := f.KB(ctx)
	if err != nil {
		return fmt.Errorf("knowledge base: %w", err)
	}
	board, err := f.Board()
	if err != nil {
		return err
	}
	if len(opts.AllowOrigins) > 0 && opts.HTTP == "" {
		return usagef("--allow-origin is for --http: on stdio there is no browser to hold off")
	}
	if err := mcp.CheckOrigins(opts.AllowOrigins); err != nil {
		return usagef("--allow-origin: %v", err)
	}
	person, err := f.KBPerson(ctx, store)
	if err != nil {
		return fmt.Errorf("knowledge base: %w", err)
	}
	gw := &mcp.Gateway{Store: store, Board: board, Version: buildinfo.Version(), Owner: person.PrincipalID, AllowedOrigins: opts.AllowOrigins}
	if opts.HTTP != "" {
		return serveHTTP(ctx, f, opts, gw)
	}
	token := strings.TrimSpace(f.Getenv("YAGENT_KB_TOKEN"))
	if token == "" {
		return usagef("set YAGENT_KB_TOKEN to a token from `yagent kb token create --name N --read|--write` (or serve HTTP with --http)")
	}
	// MCP on the command's own streams (os.Stdin and os.Stdout in a real
	// run), which stay open after the session.
	err = gw.ServeStdio(ctx, token, f.IO.In, f.IO.Out)
	if errors.Is(err, kb.ErrUnauthenticated) {
		return fmt.Errorf("YAGENT_KB_TOKEN: %w; `yagent kb token ls` lists the live ones (a secret is shown only when created)", err)
	}
	return err
}

// listenAddr is the address of --http: a bare PORT or :PORT listens on
// 127.0.0.1 only; any other machine reaches the server only through an
// address the person names.
func listenAddr(flag string) (string, error) {
	addr, typed, ok := app.HostPort(flag)
	if !ok {
		return "", usagef("--http %q: want PORT, :PORT or HOST:PORT (e.g. 8765 or 127.0.0.1:8765)", typed)
	}
	return addr, nil
}

func serveHTTP(ctx context.Context, f *Factory, opts *mcpServeOptions, gw *mcp.Gateway) error {
	addr, err := listenAddr(opts.HTTP)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return usagef("--http %s: %v", opts.HTTP, err)
	}
	host, _, _ := net.SplitHostPort(ln.Addr().String())
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		fmt.Fprintf(f.IO.ErrOut, "warning: %s is reachable from other machines and this is plain HTTP: tokens cross the network unencrypted; prefer 127.0.0.1 behind a TLS proxy\n", ln.Addr())
	}
	fmt.Fprintf(f.IO.ErrOut, "serving the knowledge base on http://%s/mcp (Authorization: Bearer <token from yagent kb token create>); Ctrl-C stops\n", ln.Addr())
	if err := gw.ServeHTTP(ctx, ln); err != nil {
		return err
	}
	fmt.Fprintln(f.IO.ErrOut, "stopped")
	return nil // a signal is how a server is meant to stop
}

// mcpLsOptions are the inputs of `yagent mcp ls`.
type mcpLsOptions struct {
	JSON bool
}

// NewCmdMCPLs builds `yagent mcp ls`.
func NewCmdMCPLs(f *Factory) *cobra.Command {
	opts := &mcpLsOptions{}
	cmd := &cobra.Command{
		Use:   "ls [--json]",
		Short: "List the configured MCP servers (mcp_servers:) and their tools, starting them",
		Long: `Start every enabled server of mcp_servers: and list its tools under the names
yagent's agents see (mcp_<server>__<tool>). A server that needs OAuth
authorization and has no token is listed as "needs login" (run yagent mcp
login NAME); no browser opens. Exit code 1 when an enabled server cannot
start or needs login.`,
		Example: `  # The configured MCP servers and their tools
  yagent mcp ls`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return mcpLsRun(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON: [{name, transport, target, enabled, status, error, tools: [{name, original, description, read_only, allowed, skipped}]}]")
	return cmd
}

func mcpLsRun(ctx context.Context, f *Factory, opts *mcpLsOptions) error {
	f.NoLoginFlow = true // a list opens no browser: "needs login" says what to run
	servers, err := f.MCPServers()
	if err != nil {
		return err
	}
	list := servers.List(ctx)
	if opts.JSON {
		if err := writeJSON(f.IO.Out, list); err != nil {
			return err
		}
		return app.MCPListFailed(list)
	}
	return app.WriteMCPList(f.IO.Out, f.IO.ErrOut, list)
}

// NewCmdMCPLogin builds `yagent mcp login NAME` and `yagent mcp logout NAME`.
func NewCmdMCPLogin(f *Factory, logout bool) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "login NAME",
		Short:   "Authorize a remote MCP server (OAuth in a browser) and keep its token in $YAGENT_HOME",
		Example: "  yagent mcp login linear",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return app.MCPLogin(cmd.Context(), f.Process, args[0], f.IO.ErrOut)
		},
	}
	if logout {
		cmd.Use, cmd.Short, cmd.Example = "logout NAME", "Forget the stored OAuth token of a remote MCP server", "  yagent mcp logout linear"
		cmd.RunE = func(_ *cobra.Command, args []string) error { return app.MCPLogout(f.Process, args[0], f.IO.ErrOut) }
	}
	return cmd
}
