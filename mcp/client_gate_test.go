package mcp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/config"
)

// answers is an agents.Asker that answers from a list and records the
// questions.
type answers struct {
	mu    sync.Mutex
	next  []agents.Answer
	asked []agents.Question
}

func (a *answers) Ask(_ context.Context, q agents.Question) (agents.Answer, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, q)
	if len(a.next) == 0 {
		return agents.Deny, nil
	}
	ans := a.next[0]
	a.next = a.next[1:]
	return ans, nil
}

// TestClientToolsGated pins the external gate on a real server (this test
// binary as mcptest's server, a child process outside any sandbox, whose
// write_file writes anywhere): without an allow list, a headless session's
// call is refused before it reaches the server — the file outside the
// workspace is not written — and the result names the tool and
// mcp_servers.helper.allow; a person answering y runs it, n refuses it, a
// runs this tool unasked for the rest of the session while the server's
// other tools are still asked about; allow: [write_file] and allow: ["*"]
// run unasked, headless; a name in allow the server lacks is reported.
func TestClientToolsGated(t *testing.T) {
	outside := t.TempDir() // not any workspace: only the server could write here
	write := func(t *testing.T, tools []*agents.Tool, name string) (agents.Result, bool) {
		t.Helper()
		path := filepath.Join(outside, name)
		res := runExternal(t, toolByName(tools, "mcp_helper__write_file"), fmt.Sprintf(`{"path":%q,"content":"pwned"}`, path))
		_, err := os.Stat(path)
		return res, err == nil
	}
	server := func(allow ...string) map[string]config.MCPServer {
		cfg := helperServer()
		cfg.Allow = allow
		return map[string]config.MCPServer{"helper": cfg}
	}

	t.Run("headless, not allowed", func(t *testing.T) {
		s, _ := newServers(t, server())
		tools, errs := s.Tools(t.Context(), agents.ShellPolicy{Approval: agents.ApproveOnRequest, Allowed: true})
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		res, wrote := write(t, tools, "headless.txt")
		if wrote {
			t.Errorf("the server's write_file wrote outside the workspace in a headless run: %+v", res)
		}
		for _, want := range []string{"`write_file` of mcp server `helper` is not allowed in this run", "nobody can be asked", `mcp_servers.helper.allow (["write_file"]`} {
			if !res.IsError || !strings.Contains(res.Content, want) {
				t.Errorf("result %q; want an error result with %q", res.Content, want)
			}
		}
		if res := runExternal(t, toolByName(tools, "mcp_helper__slow"), `{"millis":1}`); !res.IsError || !strings.Contains(res.Content, "not allowed") {
			t.Errorf("a tool with readOnlyHint ran unasked: %+v", res)
		}
	})

	t.Run("asked on a terminal", func(t *testing.T) {
		s, _ := newServers(t, server())
		ask := &answers{next: []agents.Answer{agents.Allow, agents.Deny, agents.AllowPrefix, agents.Deny}}
		tools, _ := s.Tools(t.Context(), agents.ShellPolicy{Approval: agents.ApproveOnRequest, Ask: ask, Session: agents.NewApprovals()})
		if _, wrote := write(t, tools, "yes.txt"); !wrote {
			t.Error("y: the tool did not run")
		}
		q := ask.asked[0]
		if !strings.Contains(q.Action, "`write_file` of mcp server `helper`") || !strings.Contains(q.Args, `"content": "pwned"`) || !strings.Contains(q.Args, filepath.Join(outside, "yes.txt")) {
			t.Errorf("question %+v; want the server, the tool and the arguments", q)
		}
		if res, wrote := write(t, tools, "no.txt"); wrote || !strings.Contains(res.Content, "declined") {
			t.Errorf("n: wrote %v, result %q; want it refused", wrote, res.Content)
		}
		for _, name := range []string{"always1.txt", "always2.txt", "always3.txt"} {
			if _, wrote := write(t, tools, name); !wrote {
				t.Errorf("a: %s not written", name)
			}
		}
		if len(ask.asked) != 3 {
			t.Errorf("asked %d times; want 3 (y, n, a, then no more for write_file)", len(ask.asked))
		}
		if res := runExternal(t, toolByName(tools, "mcp_helper__echo"), `{"text":"hi"}`); !res.IsError || len(ask.asked) != 4 {
			t.Errorf("echo after always for write_file: %+v, asked %d times; want it asked (and declined)", res, len(ask.asked))
		}
		next, _ := s.Tools(t.Context(), agents.ShellPolicy{Approval: agents.ApproveOnRequest, Session: agents.NewApprovals()})
		if _, wrote := write(t, next, "next-session.txt"); wrote {
			t.Error("the next session's call ran on this session's always")
		}
	})

	for _, allow := range [][]string{{"write_file"}, {"*"}} {
		t.Run(fmt.Sprintf("allow %q", allow), func(t *testing.T) {
			s, n := newServers(t, server(append(allow, "no_such_tool")...))
			tools, _ := s.Tools(t.Context(), headless)
			if res, wrote := write(t, tools, "allowed.txt"); !wrote {
				t.Errorf("an allowed tool did not run headless: %+v", res)
			}
			res := runExternal(t, toolByName(tools, "mcp_helper__echo"), `{"text":"hi"}`)
			if echoRan := !res.IsError; echoRan != (allow[0] == "*") {
				t.Errorf("echo with allow %q: %+v", allow, res)
			}
			if !strings.Contains(n.all(), `mcp server helper has no tool "no_such_tool"`) {
				t.Errorf("notices %q; want the unknown allow entry reported", n.all())
			}
			for _, tool := range s.List(t.Context())[0].Tools {
				if want := allow[0] == "*" || tool.Original == "write_file"; tool.Allowed != want {
					t.Errorf("List: %s allowed = %v; want %v", tool.Name, tool.Allowed, want)
				}
			}
		})
	}
}
