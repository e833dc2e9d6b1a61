package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"

	"golang.org/x/term"

	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/internal/brief"
	"github.com/yagent/yagent/mcp"
)

// MCPTokenDir is where the OAuth tokens of remote MCP servers are kept,
// under $YAGENT_HOME (which the sandbox's view hides). It is not
// configurable: no configuration, and so no workspace, can point the
// store elsewhere.
const MCPTokenDir = "mcp-oauth"

// mcpOAuth is the OAuth side of the process's MCP servers: the token
// store under $YAGENT_HOME, and the browser flow only when a person is at
// a terminal (stdin and stderr); headless, a server that needs
// authorization is a start failure naming `yagent mcp login NAME`.
func (p *Process) mcpOAuth() mcp.OAuthOptions {
	home, err := config.HomeDir(p.Getenv)
	if err != nil {
		return mcp.OAuthOptions{} // no store: OAuth off, the 401 is the error
	}
	return mcp.OAuthOptions{Store: &mcp.TokenStore{Dir: filepath.Join(home, MCPTokenDir)}, Interactive: p.atTerminal() && !p.NoLoginFlow}
}

// atTerminal says a person can be asked: stdin and the process's stderr
// are terminals. MCP servers get elicitation declared only then
// (ServersOptions.Elicit), and the OAuth browser flow runs only then.
func (p *Process) atTerminal() bool {
	f, ok := p.Stderr.(*os.File)
	return ok && term.IsTerminal(int(f.Fd())) && term.IsTerminal(int(os.Stdin.Fd()))
}

// MCPLogin authorizes MCP server name ahead of time (`yagent mcp login`):
// the browser flow, its token kept for later runs, headless ones
// included.
func MCPLogin(ctx context.Context, p *Process, name string, out io.Writer) error {
	servers, err := p.MCPServers()
	if err != nil {
		return err
	}
	if err := servers.Login(ctx, name); err != nil {
		return badServer(err)
	}
	file := servers.TokenFile(name)
	if _, err := os.Stat(file); err != nil {
		fmt.Fprintf(out, "mcp server %s answered without asking for authorization: nothing to keep\n", name)
		return nil
	}
	fmt.Fprintf(out, "mcp server %s: authorized; the token is kept in %s\n", name, file)
	return nil
}

// MCPLogout forgets the stored token of MCP server name.
func MCPLogout(p *Process, name string, out io.Writer) error {
	servers, err := p.MCPServers()
	if err != nil {
		return err
	}
	removed, err := servers.Logout(name)
	if err != nil {
		return badServer(err)
	}
	if !removed {
		fmt.Fprintf(out, "mcp server %s: no token was kept\n", name)
		return nil
	}
	fmt.Fprintf(out, "mcp server %s: token removed; the next connection asks for authorization again\n", name)
	return nil
}

// badServer makes a name that is no OAuth server of the configuration
// the person's input to fix (exit 2).
func badServer(err error) error {
	if errors.Is(err, mcp.ErrUnknownServer) || errors.Is(err, mcp.ErrNoOAuth) {
		return &BadInputError{Err: err}
	}
	return err
}

// ErrMCPServersFailed is `yagent mcp ls` finding an enabled server that
// could not start (exit 1).
var ErrMCPServersFailed = errors.New("MCP servers failed to start")

// WriteMCPList prints `yagent mcp ls`'s table of servers and their tools
// on out (a note on errOut when there are none); an enabled server that
// failed to start is an error wrapping ErrMCPServersFailed.
func WriteMCPList(out, errOut io.Writer, list []mcp.ServerInfo) error {
	if len(list) == 0 {
		fmt.Fprintln(errOut, "no MCP servers configured: add them under mcp_servers: (see yagent config show)")
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	for _, s := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s.Name, s.Transport, s.Status, s.Target)
		if s.Error != "" {
			fmt.Fprintf(tw, "  error: %s\n", s.Error)
		}
		for _, t := range s.Tools {
			desc := brief.Line(t.Description, 80)
			if t.Skipped != "" {
				desc = "left out: " + t.Skipped
			}
			fmt.Fprintf(tw, "  %s\t%s\n", t.Name, desc)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return MCPListFailed(list)
}

// MCPListFailed is the error of a list where enabled servers failed.
func MCPListFailed(list []mcp.ServerInfo) error {
	failed := 0
	for _, s := range list {
		if s.Status == "failed" || s.Status == "needs login" {
			failed++
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d %w (see above)", failed, len(list), ErrMCPServersFailed)
	}
	return nil
}
