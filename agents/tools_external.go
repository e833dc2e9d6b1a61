package agents

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
)

// External says where a tool served by an external MCP server
// (mcp_servers:) comes from. Such a tool runs in the server's process,
// outside yagent's sandbox, so every call passes the external gate
// (NewExternalTool): it runs only when the person approves it, or when the
// person's configuration allows it (mcp_servers.NAME.allow).
type External struct {
	// Server is the server's key under mcp_servers.
	Server string
	// Tool is the tool's name as the server gives it.
	Tool string
	// ReadOnlyHint is the server's own claim that the tool only reads:
	// shown in the question, never trusted on its own.
	ReadOnlyHint bool
	// Allowed says mcp_servers.Server.allow lists the tool (or "*"): it
	// runs without asking, headless too. Config keeps the key out of an
	// untrusted workspace's file.
	Allowed bool
}

// Refusals of a call of an external tool. The headless one has the shell's
// wording (refuseNoShell): what is not allowed, why nobody can be asked,
// and what the person can do.
const (
	refuseNoExternal = "%s is not allowed in this run: nobody can be asked to approve it (stdin and stderr are not both terminals); the person must list it in mcp_servers.%s.allow (%s, or \"*\" for every tool of the server) in their own configuration or a trusted workspace's. --allow-shell does not cover tools of MCP servers: they run in the server's process, outside yagent's sandbox"
)

// NewExternalTool declares a tool of an external MCP server, as
// NewDynamicTool does, behind the external gate of policy: each call runs
// only when ext.Allowed, when the person answered "always" for this tool
// earlier in the session (policy.Session), or when policy.Ask approves it
// now. Nobody to ask (policy.Ask nil) refuses the rest; under
// ApproveNever a person who is there is not asked (as for commands).
// --allow-shell (policy.Allowed) does not count: it lets sandboxed
// commands run, and a server's tool is not sandboxed. A refusal is an
// error result naming the tool, why and how to allow it.
func NewExternalTool(policy ShellPolicy, decl Tool, ext External, run RunFunc) (*Tool, error) {
	return NewDynamicTool(decl, func(ctx context.Context, c *Call) (Result, error) {
		ok, why, err := policy.permitExternal(ctx, decl.Name, ext, c.Args)
		if err != nil {
			return Result{}, err
		}
		if !ok {
			return ErrorResult("%s", why), nil
		}
		return run(ctx, c)
	})
}

// permitExternal decides one call of an external tool; the string says
// why it was refused.
func (p ShellPolicy) permitExternal(ctx context.Context, name string, ext External, args json.RawMessage) (bool, string, error) {
	key := ext.Server + "\x00" + ext.Tool
	p, ask := p.withHook(ctx)
	if !ask && (ext.Allowed || p.Session.toolApproved(key)) {
		return true, "", nil
	}
	what := fmt.Sprintf("the tool %s of mcp server %s", shown(ext.Tool), shown(ext.Server))
	if p.Ask == nil {
		return false, fmt.Sprintf(refuseNoExternal, what, ext.Server, allowEntry(ext.Tool)), nil
	}
	if p.Approval == ApproveNever && !ask {
		return true, "", nil
	}
	q := Question{Action: fmt.Sprintf("call %s (%s) with these arguments:", what, name), Args: PrettyArgs(args)}
	if ext.ReadOnlyHint {
		q.Action = fmt.Sprintf("call %s (%s; the server says it only reads — yagent cannot check that) with these arguments:", what, name)
	}
	if p.Session != nil {
		q.Prefix = name
	}
	ans, instead, err := askPerson(ctx, p.Ask, q)
	switch {
	case err != nil:
		return false, "", err
	case ans == AllowPrefix && p.Session != nil:
		p.Session.approveTool(key)
		return true, "", nil
	case ans == Allow || ans == AllowPrefix:
		return true, "", nil
	}
	return false, declined(instead), nil
}

// shown quotes a name for a question or a refusal: in backticks when it is
// plain, else Go-quoted so nothing in it acts on the terminal.
func shown(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool { return r == '`' || r == ' ' || !unicode.IsGraphic(r) }) {
		return "`" + s + "`"
	}
	return strconv.QuoteToASCII(s)
}

// allowEntry is how the tool is written in an allow list.
func allowEntry(tool string) string {
	b, _ := json.Marshal([]string{tool})
	return string(b)
}

// PrettyArgs renders a call's arguments for a person: the JSON as sent,
// indented (key order and every value kept, nothing cut), with every
// character that is not graphic — control characters, bidi overrides,
// other format characters — written as a \u escape, which means the same
// to the server and nothing to a terminal. Arguments that are not JSON are
// quoted whole.
func PrettyArgs(args json.RawMessage) string {
	if len(bytes.TrimSpace(args)) == 0 {
		return "{}"
	}
	var b bytes.Buffer
	if err := json.Indent(&b, args, "", "  "); err != nil {
		return strconv.QuoteToASCII(string(args))
	}
	var out strings.Builder
	for _, r := range strings.TrimRight(b.String(), " \t\r\n") {
		if r == '\n' || r == ' ' || unicode.IsGraphic(r) {
			out.WriteRune(r)
			continue
		}
		if r1, r2 := utf16.EncodeRune(r); r1 != unicode.ReplacementChar {
			fmt.Fprintf(&out, `\u%04x\u%04x`, r1, r2)
		} else {
			fmt.Fprintf(&out, `\u%04x`, r)
		}
	}
	return out.String()
}

// approveTool remembers an "always" answer for one tool of one server.
func (a *Approvals) approveTool(key string) {
	if a == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.tools == nil {
		a.tools = map[string]bool{}
	}
	a.tools[key] = true
}

// toolApproved reports whether the person answered "always" for the tool.
func (a *Approvals) toolApproved(key string) bool {
	if a == nil {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.tools[key]
}
