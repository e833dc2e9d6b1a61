package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/toolspec"
)

// maxToolName is the longest tool name the OpenAI API accepts.
const maxToolName = 64

// maxResultBytes caps the text of one result handed to the model.
const maxResultBytes = 64 << 10

// ToolName is the registry name of an external tool:
// mcp_<server>__<tool>, every other character than [a-zA-Z0-9_-] turned
// into '_', at most 64 bytes (a longer name keeps its start and gets a
// hash of the whole, so it stays unique).
func ToolName(server, tool string) string {
	name := "mcp_" + sanitize(server) + "__" + sanitize(tool)
	if len(name) <= maxToolName {
		return name
	}
	return name[:maxToolName-9] + "-" + shortHash(server+"\x00"+tool)
}

// Family is the registry family of a server's tools.
func Family(server string) string { return "mcp_" + sanitize(server) }

// sanitize turns every character outside [a-zA-Z0-9_-] into one '_'.
func sanitize(s string) string {
	return strings.Map(func(c rune) rune {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' {
			return c
		}
		return '_'
	}, s)
}

func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:4])
}

// convertedTool is a server tool ready for the registry, or why not.
type convertedTool struct {
	info   ToolInfo
	schema json.RawMessage
	writes bool
}

// converted names, checks and describes the server's tools. A tool whose
// input schema does not compile is skipped (its arguments could not be
// validated before the call); two tools that sanitise to one name keep
// apart by a hash.
func (r *remote) converted() []convertedTool {
	seen := map[string]bool{}
	var out []convertedTool
	for _, t := range r.tools {
		name := ToolName(r.name, t.Name)
		if seen[name] {
			name = name[:min(len(name), maxToolName-9)] + "-" + shortHash(r.name+"\x00"+t.Name)
		}
		seen[name] = true
		readOnly := t.Annotations != nil && t.Annotations.ReadOnlyHint
		allowed := slices.Contains(r.cfg.Allow, "*") || slices.Contains(r.cfg.Allow, t.Name)
		c := convertedTool{info: ToolInfo{Name: name, Original: t.Name, Description: t.Description, ReadOnly: readOnly, Allowed: allowed}, writes: !readOnly}
		if c.info.Description == "" {
			c.info.Description = t.Title
		}
		schema, err := inputSchema(t.InputSchema)
		if err != nil {
			c.info.Skipped = err.Error()
		}
		c.schema = schema
		out = append(out, c)
	}
	return out
}

// inputSchema is the server's input schema as the model gets it (without
// $schema, which some endpoints reject), checked to compile.
func inputSchema(s any) (json.RawMessage, error) {
	var m map[string]any
	b, err := json.Marshal(s)
	if err == nil {
		err = json.Unmarshal(b, &m)
	}
	if err != nil || m == nil {
		return nil, fmt.Errorf("input schema is not a JSON object")
	}
	delete(m, "$schema")
	if m["type"] == nil {
		m["type"] = "object"
	}
	if b, err = json.Marshal(m); err != nil {
		return nil, err
	}
	if _, err := toolspec.Compile(b); err != nil {
		return nil, fmt.Errorf("input schema does not compile: %v", err)
	}
	return b, nil
}

// agentTools are the server's tools as registry tools behind the external
// gate of policy (agents.NewExternalTool: asked about unless allowed), or
// the reason the server has none.
func (r *remote) agentTools(policy agents.ShellPolicy) ([]*agents.Tool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.sess == nil && r.startErr != nil {
		return nil, r.startErr
	}
	var out []*agents.Tool
	served := map[string]bool{}
	for _, c := range r.converted() {
		served[c.info.Original] = true
		if c.info.Skipped != "" {
			r.notify(fmt.Sprintf("mcp server %s: tool %s left out: %s", r.name, c.info.Original, c.info.Skipped))
			continue
		}
		var flags agents.Flags
		if c.writes {
			flags |= agents.Writes
		}
		original := c.info.Original
		ext := agents.External{Server: r.name, Tool: original, ReadOnlyHint: c.info.ReadOnly, Allowed: c.info.Allowed}
		t, err := agents.NewExternalTool(policy, agents.Tool{Name: c.info.Name, Family: Family(r.name), Description: c.info.Description, Schema: c.schema, Flags: flags}, ext,
			func(ctx context.Context, call *agents.Call) (agents.Result, error) {
				return r.scrubbed(r.call(ctx, original, call.Args))
			})
		if err != nil { // converted compiled it already
			r.notify(fmt.Sprintf("mcp server %s: tool %s left out: %v", r.name, original, err))
			continue
		}
		out = append(out, t)
	}
	for _, name := range r.cfg.Allow {
		if name != "*" && !served[name] {
			r.notify(fmt.Sprintf("mcp server %s has no tool %q: mcp_servers.%s.allow names it (list tools by the server's own names: `yagent mcp ls --json` shows them as original)", r.name, name, r.name))
		}
	}
	return out, nil
}

// call runs one tool on the server within its timeout. Everything that
// goes wrong on the server's side is an error result for the model (it can
// do without the tool); only the turn's own cancellation is an error.
func (r *remote) call(ctx context.Context, tool string, args json.RawMessage) (agents.Result, error) {
	sess, restarted, err := r.session(ctx)
	if err != nil {
		return agents.ErrorResult("%v", err), nil
	}
	note := ""
	if restarted {
		note = fmt.Sprintf("[mcp server %s had stopped and was restarted for this call]\n", r.name)
	}
	cctx, cancel := r.bounded(ctx)
	defer cancel()
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	res, err := sess.CallTool(cctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return agents.Result{}, ctx.Err()
	case errors.Is(cctx.Err(), context.DeadlineExceeded):
		return agents.ErrorResult("%sno answer from mcp server %s to %s within %s (mcp_servers.%s.timeout); try again or do without it", note, r.name, tool, r.cfg.Timeout.D(), r.name), nil
	case errors.Is(err, sdk.ErrConnectionClosed):
		return agents.ErrorResult("%smcp server %s stopped during %s (%v); it is restarted at the next call if it has not been restarted yet", note, r.name, tool, err), nil
	default:
		return agents.ErrorResult("%smcp server %s refused %s: %v", note, r.name, tool, err), nil
	}
	text := note + resultText(res)
	summary := "ok"
	if res.IsError {
		summary = "error from " + r.name
	}
	if restarted {
		summary += " (server restarted)"
	}
	return agents.Result{Content: text, IsError: res.IsError, Summary: summary}, nil
}

// resultText renders a result's content blocks as text for the model:
// text as is, binary content as a placeholder, structured content as JSON
// when there is nothing else.
func resultText(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		switch c := c.(type) {
		case *sdk.TextContent:
			b.WriteString(c.Text)
		case *sdk.ImageContent:
			fmt.Fprintf(&b, "[image %s, %d bytes, not shown]", c.MIMEType, len(c.Data))
		case *sdk.AudioContent:
			fmt.Fprintf(&b, "[audio %s, %d bytes, not shown]", c.MIMEType, len(c.Data))
		case *sdk.ResourceLink:
			fmt.Fprintf(&b, "[resource %s: %s]", c.Name, c.URI)
		case *sdk.EmbeddedResource:
			if c.Resource != nil && c.Resource.Text != "" {
				fmt.Fprintf(&b, "[resource %s]\n%s", c.Resource.URI, c.Resource.Text)
			} else if c.Resource != nil {
				fmt.Fprintf(&b, "[resource %s, %s, %d bytes, not shown]", c.Resource.URI, c.Resource.MIMEType, len(c.Resource.Blob))
			}
		default:
			fmt.Fprintf(&b, "[%T content, not shown]", c)
		}
	}
	if b.Len() == 0 && res.StructuredContent != nil {
		if j, err := json.Marshal(res.StructuredContent); err == nil {
			b.Write(j)
		}
	}
	if b.Len() == 0 {
		b.WriteString("(no content)")
	}
	return capText(b.String(), maxResultBytes)
}

func capText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n[… %d more bytes cut]", len(s)-cut)
}

// shellJoin renders a command line for people.
func shellJoin(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		out[i] = a
	}
	return strings.Join(out, " ")
}
