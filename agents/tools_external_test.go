package agents

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// externalTool builds a gated external tool whose run counts its calls.
func externalTool(t *testing.T, policy ShellPolicy, name string, ext External) (*Tool, *atomic.Int32) {
	t.Helper()
	var ran atomic.Int32
	tool, err := NewExternalTool(policy, Tool{Name: name, Family: "mcp_" + ext.Server, Schema: json.RawMessage(`{"type":"object"}`)}, ext,
		func(context.Context, *Call) (Result, error) { ran.Add(1); return Result{Content: "done"}, nil })
	if err != nil {
		t.Fatal(err)
	}
	return tool, &ran
}

// asker records the questions and answers each with the next answer.
type asker struct {
	answers []Answer
	asked   []Question
}

func (a *asker) Ask(_ context.Context, q Question) (Answer, error) {
	a.asked = append(a.asked, q)
	if len(a.answers) == 0 {
		return Deny, nil
	}
	ans := a.answers[0]
	a.answers = a.answers[1:]
	return ans, nil
}

// TestExternalToolGate pins the gate of every tool of an external MCP
// server (issue 25, item 10): it runs only when the person approves it
// (y once, a for the rest of the session — that tool only) or the
// server's allow list names it; headless, the rest are refused with the
// shell's wording, naming the tool, why and mcp_servers.NAME.allow;
// --allow-shell does not count (the tool runs outside the sandbox);
// readOnlyHint is shown, never trusted; under never a person who is there
// is not asked.
func TestExternalToolGate(t *testing.T) {
	write := External{Server: "fs", Tool: "write_file"}
	readHint := External{Server: "fs", Tool: "read_file", ReadOnlyHint: true}
	allowed := External{Server: "fs", Tool: "write_file", Allowed: true}
	args := `{"path":"/etc/x","content":"hi"}`
	tests := []struct {
		name     string
		policy   ShellPolicy
		ext      External
		tty      bool     // a person can be asked
		answers  []Answer // what they answer
		wantRun  bool
		wantAsk  bool
		wantMsgs []string
	}{
		{"headless", ShellPolicy{Approval: ApproveOnRequest}, write, false, nil, false, false,
			[]string{"the tool `write_file` of mcp server `fs` is not allowed in this run: nobody can be asked to approve it (stdin and stderr are not both terminals)", `mcp_servers.fs.allow (["write_file"], or "*"`}},
		{"headless, --allow-shell does not count", ShellPolicy{Approval: ApproveOnRequest, Allowed: true}, write, false, nil, false, false, []string{"--allow-shell does not cover"}},
		{"headless, never", ShellPolicy{Approval: ApproveNever, Allowed: true}, write, false, nil, false, false, []string{"mcp_servers.fs.allow"}},
		{"headless, readOnlyHint not trusted", ShellPolicy{Approval: ApproveOnRequest}, readHint, false, nil, false, false, []string{"`read_file`"}},
		{"headless, allowed", ShellPolicy{Approval: ApproveOnRequest}, allowed, false, nil, true, false, nil},
		{"yes", ShellPolicy{Approval: ApproveOnRequest}, write, true, []Answer{Allow}, true, true, nil},
		{"no", ShellPolicy{Approval: ApproveOnRequest}, write, true, []Answer{Deny}, false, true, []string{refuseDeclined}},
		{"untrusted asks", ShellPolicy{Approval: ApproveUntrusted}, write, true, []Answer{Allow}, true, true, nil},
		{"readOnlyHint asked", ShellPolicy{Approval: ApproveOnRequest}, readHint, true, []Answer{Deny}, false, true, nil},
		{"allowed, not asked", ShellPolicy{Approval: ApproveUntrusted}, allowed, true, nil, true, false, nil},
		{"never, not asked", ShellPolicy{Approval: ApproveNever}, write, true, nil, true, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &asker{answers: tt.answers}
			if tt.tty {
				tt.policy.Ask = a
			}
			tool, ran := externalTool(t, tt.policy, "mcp_fs__"+tt.ext.Tool, tt.ext)
			r := call(t, []*Tool{tool}, tool.Name, json.RawMessage(args))
			if got := ran.Load() == 1; got != tt.wantRun {
				t.Errorf("ran = %v; want %v (%q)", got, tt.wantRun, r.Content)
			}
			if got := len(a.asked) > 0; got != tt.wantAsk {
				t.Errorf("asked = %v; want %v", got, tt.wantAsk)
			}
			if !tt.wantRun && !r.IsError {
				t.Errorf("a refusal is not an error result: %+v", r)
			}
			for _, m := range tt.wantMsgs {
				if !strings.Contains(r.Content, m) {
					t.Errorf("result %q lacks %q", r.Content, m)
				}
			}
		})
	}

	t.Run("headless wording is the shell's", func(t *testing.T) {
		tool, _ := externalTool(t, ShellPolicy{}, "mcp_fs__write_file", write)
		got := call(t, []*Tool{tool}, tool.Name, json.RawMessage(args)).Content
		for _, clause := range []string{" is not allowed in this run: nobody can be asked to approve ", " (stdin and stderr are not both terminals); the person must "} {
			if !strings.Contains(refuseNoShell, clause) || !strings.Contains(got, clause) {
				t.Errorf("clause %q: want it in both the shell's refusal %q and this one %q", clause, refuseNoShell, got)
			}
		}
	})

	t.Run("the question", func(t *testing.T) {
		a := &asker{answers: []Answer{Deny, Deny}}
		policy := ShellPolicy{Approval: ApproveOnRequest, Ask: a, Session: NewApprovals()}
		tool, _ := externalTool(t, policy, "mcp_fs__write_file", write)
		call(t, []*Tool{tool}, tool.Name, json.RawMessage(args))
		q := a.asked[0]
		for _, want := range []string{"`write_file`", "`fs`", "mcp_fs__write_file"} {
			if !strings.Contains(q.Action, want) {
				t.Errorf("question %q lacks %q", q.Action, want)
			}
		}
		if want := "{\n  \"path\": \"/etc/x\",\n  \"content\": \"hi\"\n}"; q.Args != want {
			t.Errorf("Args = %q; want the pretty JSON %q", q.Args, want)
		}
		if q.Prefix != "mcp_fs__write_file" {
			t.Errorf("Prefix = %q; want always offered for the tool", q.Prefix)
		}
		if strings.Contains(q.Action, "only reads") {
			t.Errorf("question %q claims a readOnlyHint the server did not give", q.Action)
		}
		rtool, _ := externalTool(t, policy, "mcp_fs__read_file", readHint)
		call(t, []*Tool{rtool}, rtool.Name, json.RawMessage(`{}`))
		if q := a.asked[1]; !strings.Contains(q.Action, "the server says it only reads") {
			t.Errorf("question %q does not show the server's readOnlyHint", q.Action)
		}
	})

	t.Run("always is per tool and per session", func(t *testing.T) {
		a := &asker{answers: []Answer{AllowPrefix, Deny, Deny}}
		policy := ShellPolicy{Approval: ApproveOnRequest, Ask: a, Session: NewApprovals()}
		wtool, wran := externalTool(t, policy, "mcp_fs__write_file", write)
		otool, oran := externalTool(t, policy, "mcp_fs__delete", External{Server: "fs", Tool: "delete"})
		shell := ShellTool(demoWorkspace(t), policy)
		for range 3 {
			call(t, []*Tool{wtool}, wtool.Name, json.RawMessage(args))
		}
		if wran.Load() != 3 || len(a.asked) != 1 {
			t.Errorf("after always: ran %d times, asked %d times; want 3 runs, 1 question", wran.Load(), len(a.asked))
		}
		call(t, []*Tool{otool}, otool.Name, json.RawMessage(`{}`))
		if oran.Load() != 0 || len(a.asked) != 2 {
			t.Errorf("another tool of the server: ran %d, asked %d times; want it asked and declined", oran.Load(), len(a.asked))
		}
		// The tool's name is no command prefix: a command named like it is
		// still asked about.
		call(t, []*Tool{shell}, "shell", map[string]any{"argv": []string{"mcp_fs__write_file"}})
		if len(a.asked) != 3 {
			t.Errorf("a command named like the tool ran unasked (asked %d times)", len(a.asked))
		}
		other, oran2 := externalTool(t, ShellPolicy{Approval: ApproveOnRequest, Session: NewApprovals()}, "mcp_fs__write_file", write)
		call(t, []*Tool{other}, other.Name, json.RawMessage(args))
		if oran2.Load() != 0 {
			t.Error("another session's tool ran on this session's always")
		}
	})

	t.Run("always not offered without a session", func(t *testing.T) {
		a := &asker{answers: []Answer{AllowPrefix, Deny}}
		tool, ran := externalTool(t, ShellPolicy{Approval: ApproveOnRequest, Ask: a}, "mcp_fs__write_file", write)
		call(t, []*Tool{tool}, tool.Name, json.RawMessage(args))
		call(t, []*Tool{tool}, tool.Name, json.RawMessage(args))
		if a.asked[0].Prefix != "" || ran.Load() != 1 || len(a.asked) != 2 {
			t.Errorf("prefix %q, ran %d, asked %d; want no always, the second call asked", a.asked[0].Prefix, ran.Load(), len(a.asked))
		}
	})
}

// TestPrettyArgs pins how a call's arguments are shown: the JSON as sent
// (order, duplicates, every byte of every value: nothing cut), indented,
// with control and format characters escaped so they cannot act on the
// terminal, and still the same JSON.
func TestPrettyArgs(t *testing.T) {
	long := strings.Repeat("x", 100_000)
	for _, tt := range []struct{ in, want string }{
		{``, `{}`},
		{`{"b":1,"a":[1,2]}`, "{\n  \"b\": 1,\n  \"a\": [\n    1,\n    2\n  ]\n}"},
		{`{"p":"a","p":"b"}`, "{\n  \"p\": \"a\",\n  \"p\": \"b\"\n}"},
		{`{"c":"\u001b[2Jls\r"}`, "{\n  \"c\": \"\\u001b[2Jls\\r\"\n}"},
		{"{\"c\":\"rm \u202e\u0085x\U000e0001\"}", "{\n  \"c\": \"rm \\u202e\\u0085x\\udb40\\udc01\"\n}"},
		{`{"s":"` + long + `"}`, "{\n  \"s\": \"" + long + "\"\n}"},
		{"not json \x1b", `"not json \x1b"`},
	} {
		got := PrettyArgs(json.RawMessage(tt.in))
		if got != tt.want {
			t.Errorf("PrettyArgs(%.60q) = %.80q; want %.80q", tt.in, got, tt.want)
		}
		if json.Valid([]byte(tt.in)) {
			var a, b any
			json.Unmarshal([]byte(tt.in), &a)
			json.Unmarshal([]byte(got), &b)
			if ja, jb := mustJSON(t, a), mustJSON(t, b); string(ja) != string(jb) {
				t.Errorf("PrettyArgs(%.60q) means %s; want %s", tt.in, jb, ja)
			}
		}
		if strings.ContainsAny(got, "\x1b\r\u202e\u0085") {
			t.Errorf("PrettyArgs(%.60q) = %q lets a control character through", tt.in, got)
		}
	}
}

// brokenAsker answers yes with an error: the terminal failed while the
// person was asked (a read error, a cancel).
type brokenAsker struct{}

func (brokenAsker) Ask(context.Context, Question) (Answer, error) {
	return Allow, errors.New("approval question: read /dev/tty: input/output error")
}

// TestAskErrorStopsTheAction: when asking fails, nothing is done, whatever
// the answer says: the command does not run, the file is not written, the
// MCP server's tool is not called, and the error ends the turn (it is not
// a refusal the model could work around).
func TestAskErrorStopsTheAction(t *testing.T) {
	w := demoWorkspace(t)
	policy := ShellPolicy{Approval: ApproveUntrusted, Ask: brokenAsker{}, Session: NewApprovals()}
	ext, ran := externalTool(t, policy, "mcp_fs__write_file", External{Server: "fs", Tool: "write_file"})
	tools := append(FSTools(w, policy), ShellTool(w, policy), ext)
	for _, tc := range []struct{ tool, args string }{
		{"shell", `{"command":"touch ran.txt"}`},
		{"write_file", `{"path":"ran.txt","content":"x"}`},
		{"edit_file", `{"path":"go.mod","old":"demo","new":"ran"}`},
		{"mcp_fs__write_file", `{"path":"/tmp/x"}`},
	} {
		res, err := findTool(tools, tc.tool).Run(t.Context(), &Call{ID: "c", Name: tc.tool, Args: json.RawMessage(tc.args)})
		if err == nil || !strings.Contains(err.Error(), "input/output error") {
			t.Errorf("%s with a failed question = %+v, %v; want the error", tc.tool, res, err)
		}
	}
	if _, err := os.Stat(filepath.Join(w.Dir(), "ran.txt")); err == nil {
		t.Error("ran.txt exists: a command or a write went ahead after the question failed")
	}
	if data, _ := os.ReadFile(filepath.Join(w.Dir(), "go.mod")); strings.Contains(string(data), "ran") {
		t.Error("go.mod was edited after the question failed")
	}
	if ran.Load() != 0 {
		t.Error("the MCP server's tool ran after the question failed")
	}
}
