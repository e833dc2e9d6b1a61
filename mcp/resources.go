package mcp

import (
	"context"
	"fmt"
	"slices"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ReadResource reads uri from server (started if it was not), as text:
// every text content in order; a binary one is named, not inlined. The
// result is scrubbed of the server's bearer token like a tool's.
func (s *Servers) ReadResource(ctx context.Context, server, uri string) (string, error) {
	r, sess, err := s.live(ctx, server)
	if err != nil {
		return "", err
	}
	ctx, cancel := r.bounded(ctx)
	defer cancel()
	res, err := sess.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
	if err != nil {
		return "", fmt.Errorf("read %s from mcp server %s: %w", uri, server, r.secrets.Error(err))
	}
	var b strings.Builder
	for _, c := range res.Contents {
		if c.Text != "" || len(c.Blob) == 0 {
			b.WriteString(c.Text)
			continue
		}
		fmt.Fprintf(&b, "[binary %s, %d bytes, not shown]", c.MIMEType, len(c.Blob))
	}
	return r.secrets.String(b.String()), nil
}

// Prompt gets server's prompt name with args, as text: each message on
// its own, led by its role.
func (s *Servers) Prompt(ctx context.Context, server, name string, args map[string]string) (string, error) {
	r, sess, err := s.live(ctx, server)
	if err != nil {
		return "", err
	}
	ctx, cancel := r.bounded(ctx)
	defer cancel()
	res, err := sess.GetPrompt(ctx, &sdk.GetPromptParams{Name: name, Arguments: args})
	if err != nil {
		return "", fmt.Errorf("get prompt %s of mcp server %s: %w", name, server, r.secrets.Error(err))
	}
	var parts []string
	for _, m := range res.Messages {
		if t, ok := m.Content.(*sdk.TextContent); ok {
			if len(res.Messages) == 1 {
				parts = append(parts, t.Text)
			} else {
				parts = append(parts, string(m.Role)+": "+t.Text)
			}
		}
	}
	return r.secrets.String(strings.Join(parts, "\n\n")), nil
}

// PromptCommands are the prompts of the servers running now, as the
// chat's commands name them ("/server:prompt"), sorted: what Tab offers.
// A server not started yet is not started for it; one whose list fails,
// or that has no prompts, adds none.
func (s *Servers) PromptCommands(ctx context.Context) []string {
	var out []string
	for _, name := range s.names {
		r := s.remotes[name]
		r.mu.Lock()
		sess := r.sess
		r.mu.Unlock()
		if sess == nil || sess.InitializeResult() == nil || sess.InitializeResult().Capabilities.Prompts == nil {
			continue
		}
		ctx, cancel := r.bounded(ctx)
		for p, err := range sess.Prompts(ctx, nil) {
			if err != nil {
				break
			}
			out = append(out, "/"+name+":"+p.Name)
		}
		cancel()
	}
	slices.Sort(out)
	return out
}

// Has says server is configured and enabled.
func (s *Servers) Has(server string) bool {
	r, ok := s.remotes[server]
	return ok && r.cfg.Enabled
}

// live starts server if needed and returns its session.
func (s *Servers) live(ctx context.Context, server string) (*remote, *sdk.ClientSession, error) {
	r, ok := s.remotes[server]
	if !ok || !r.cfg.Enabled {
		return nil, nil, fmt.Errorf("no mcp server %q (enabled): `yagent mcp ls` lists them", server)
	}
	r.ensureStarted(ctx)
	sess, _, err := r.session(ctx)
	if err != nil {
		return nil, nil, err
	}
	return r, sess, nil
}
