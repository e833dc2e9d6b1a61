package app

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/yagent/yagent/mcp"
)

// mcpRef is an @server:uri attachment: at the start or after a space.
var mcpRef = regexp.MustCompile(`(^|\s)@([A-Za-z0-9_-]+):(\S+)`)

// ExpandMCPAttachments attaches the MCP resources a prompt names as
// @server:uri (server one of the configured, enabled ones; any other @x:y
// is left alone): the prompt is kept as typed and each resource follows
// it in a block naming it. A resource that cannot be read is an error
// naming it, so the person sees it before the model runs.
func ExpandMCPAttachments(ctx context.Context, servers *mcp.Servers, prompt string) (string, error) {
	if servers == nil || !strings.Contains(prompt, "@") {
		return prompt, nil
	}
	var b strings.Builder
	b.WriteString(prompt)
	seen := map[string]bool{}
	for _, m := range mcpRef.FindAllStringSubmatch(prompt, -1) {
		server, uri := m[2], strings.TrimRight(m[3], ".,;:!?)")
		ref := server + ":" + uri
		if !servers.Has(server) || seen[ref] {
			continue
		}
		seen[ref] = true
		text, err := servers.ReadResource(ctx, server, uri)
		if err != nil {
			return "", fmt.Errorf("attach @%s: %w", ref, err)
		}
		fmt.Fprintf(&b, "\n\n<attachment source=\"@%s\">\n%s\n</attachment>", ref, strings.TrimRight(text, "\n"))
	}
	return b.String(), nil
}

// MCPServers are the run's external MCP servers (nil when it has none).
func (r *Run) MCPServers() (*mcp.Servers, error) {
	if r.opts.MCP == nil {
		return nil, nil
	}
	return r.opts.MCP()
}

// MCPPrompt is `/server:prompt [name=value…]`: the text of a configured
// MCP server's prompt, to send as a turn. ok false: the word names no
// configured server's prompt (another command, or unknown).
func MCPPrompt(ctx context.Context, servers *mcp.Servers, word string, args []string) (prompt string, ok bool, err error) {
	server, name, found := strings.Cut(strings.TrimPrefix(word, "/"), ":")
	if servers == nil || !found || name == "" || !strings.HasPrefix(word, "/") || !servers.Has(server) {
		return "", false, nil
	}
	vals := map[string]string{}
	for _, a := range args {
		k, v, ok := strings.Cut(a, "=")
		if !ok || k == "" {
			return "", true, fmt.Errorf("%s: %q is not name=value (a prompt's arguments are named: %s name=value …)", word, a, word)
		}
		vals[k] = v
	}
	text, err := servers.Prompt(ctx, server, name, vals)
	if err != nil {
		return "", true, err
	}
	return text, true, nil
}
