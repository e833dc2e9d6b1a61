package chat

import (
	"context"

	"github.com/yagent/yagent/app"
)

// mcpPrompt runs /server:prompt (app.MCPPrompt) as a turn; ok false: the
// word is no MCP server's prompt. Plain mode only: a TUI command (its
// output buffered in c.out) does not run turns; the TUI asks
// Backend.Prompt and starts the turn itself.
func (c *Chat) mcpPrompt(ctx context.Context, fields []string) (ok bool, err error) {
	if c.out != nil {
		return false, nil
	}
	prompt, ok, err := c.serverPrompt(ctx, fields)
	if !ok || err != nil {
		return ok, err
	}
	return true, c.turn(ctx, prompt)
}

// serverPrompt is the text of the MCP prompt a command line's fields
// name (/server:prompt name=value…); ok false: none does.
func (c *Chat) serverPrompt(ctx context.Context, fields []string) (prompt string, ok bool, err error) {
	servers, err := c.s.MCPServers()
	if err != nil || servers == nil {
		return "", false, err
	}
	return app.MCPPrompt(ctx, servers, fields[0], fields[1:])
}

// mcpAttach attaches the @server:uri resources a prompt names
// (app.ExpandMCPAttachments), for every turn of the chat (the TUI's
// Backend.Turn too; its composer offers no completion for them).
func (c *Chat) mcpAttach(ctx context.Context, prompt string) (string, error) {
	servers, err := c.s.MCPServers()
	if err != nil || servers == nil {
		return prompt, nil
	}
	return app.ExpandMCPAttachments(ctx, servers, prompt)
}
