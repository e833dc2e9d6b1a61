package agents

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// fakeEditor is a client holding buffers by absolute path.
type fakeEditor struct {
	mu      sync.Mutex
	buffers map[string]string
	reads   []string
	writes  []string
}

func (e *fakeEditor) files() ClientFiles {
	return ClientFiles{
		Read: func(_ context.Context, path string) (string, error) {
			e.mu.Lock()
			defer e.mu.Unlock()
			e.reads = append(e.reads, path)
			return e.buffers[path], nil
		},
		Write: func(_ context.Context, path, content string) error {
			e.mu.Lock()
			defer e.mu.Unlock()
			e.writes = append(e.writes, path)
			e.buffers[path] = content
			return nil
		},
	}
}

// TestClientFiles: with ClientFiles on the context the file tools read
// and write through the client, after the checks they make on the disk:
// a protected path or a path out of the workspace never reaches it, and a
// delegation's own workspace is where its paths point.
func TestClientFiles(t *testing.T) {
	w := demoWorkspace(t)
	tools := FSTools(w, ShellPolicy{Approval: ApproveNever})
	ed := &fakeEditor{buffers: map[string]string{filepath.Join(w.Dir(), "go.mod"): "module example.com/unsaved\n"}}
	ctx := WithClientFiles(t.Context(), ed.files())
	run := func(ctx context.Context, name string, args any) Result {
		t.Helper()
		raw, _ := json.Marshal(args)
		res, err := findTool(tools, name).Run(ctx, &Call{ID: "t", Name: name, Args: raw})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return res
	}
	if r := run(ctx, "read_file", map[string]any{"path": "go.mod"}); !strings.Contains(r.Content, "module example.com/unsaved") {
		t.Errorf("read_file through the editor = %q; want its buffer", r.Content)
	}
	if r := run(ctx, "edit_file", map[string]any{"path": "go.mod", "old": "unsaved", "new": "edited"}); r.IsError {
		t.Errorf("edit_file of the buffer = %+v", r)
	}
	if r := run(ctx, "write_file", map[string]any{"path": "docs/new.txt", "content": "hi\n"}); r.IsError {
		t.Errorf("write_file = %+v", r)
	}
	want := map[string]string{
		filepath.Join(w.Dir(), "go.mod"):          "module example.com/edited\n",
		filepath.Join(w.Dir(), "docs", "new.txt"): "hi\n",
	}
	for p, content := range want {
		if ed.buffers[p] != content {
			t.Errorf("editor's %s = %q; want %q", p, ed.buffers[p], content)
		}
	}
	if _, err := os.Stat(filepath.Join(w.Dir(), "docs", "new.txt")); err == nil {
		t.Error("write_file wrote the disk; the editor writes")
	}
	if data, _ := os.ReadFile(filepath.Join(w.Dir(), "go.mod")); !strings.Contains(string(data), "example.com/demo") {
		t.Errorf("edit_file changed the disk: %q", data)
	}

	// The checks hold: nobody can approve a protected path (Ask nil), a
	// path out of the workspace is refused; neither reaches the editor.
	n := len(ed.writes)
	for _, p := range []string{".git/config", ".claude/settings.json", "../outside.txt", filepath.Join(filepath.Dir(w.Dir()), "x.txt")} {
		if r := run(ctx, "write_file", map[string]any{"path": p, "content": "x"}); !r.IsError {
			t.Errorf("write_file %s through the editor = %+v; want refused", p, r)
		}
	}
	if len(ed.writes) != n {
		t.Errorf("refused writes reached the editor: %v", ed.writes[n:])
	}

	// A delegation in its own workspace writes there.
	wt, err := OpenWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer wt.Close()
	if r := run(WithWorkspace(ctx, wt), "write_file", map[string]any{"path": "../" + filepath.Base(w.Dir()) + "/go.mod", "content": "x"}); !r.IsError {
		t.Errorf("a delegation's write out of its worktree = %+v; want refused", r)
	}
	if r := run(WithWorkspace(ctx, wt), "write_file", map[string]any{"path": "a.txt", "content": "x"}); r.IsError {
		t.Errorf("write_file in the worktree = %+v", r)
	}
	if len(ed.writes) == n || ed.writes[len(ed.writes)-1] != filepath.Join(wt.Dir(), "a.txt") {
		t.Errorf("the editor's writes %v; want the last in the worktree %s", ed.writes, wt.Dir())
	}
}

// ctxAsker records the running call of each question.
type ctxAsker struct {
	mu    sync.Mutex
	calls []string
}

func (a *ctxAsker) Ask(ctx context.Context, _ Question) (Answer, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.calls = append(a.calls, RunningCall(ctx))
	return Deny, nil
}

// TestRunningCall: an approval question raised by a tool call carries
// that call's id (RunningCall), which yagent acp names the question by.
func TestRunningCall(t *testing.T) {
	srv, client := scenario(t, "loop-hooks-permission")
	w := demoWorkspace(t)
	ask := &ctxAsker{}
	loop := &Loop{Client: client}
	out, err := loop.Run(t.Context(), leadAgent([]*Tool{ShellTool(w, ShellPolicy{Approval: ApproveUntrusted, Allowed: true, Ask: ask})}), nil, userMsg("go"))
	if err != nil {
		t.Fatal(err)
	}
	srv.AssertDone(t)
	var want []string
	for _, tc := range out.Messages[1].ToolCalls {
		want = append(want, tc.ID)
	}
	slices.Sort(ask.calls)
	slices.Sort(want)
	if len(want) != 3 || !slices.Equal(ask.calls, want) {
		t.Errorf("questions asked for calls %q; want one per call %q", ask.calls, want)
	}
	if RunningCall(t.Context()) != "" {
		t.Error("RunningCall outside a call is not empty")
	}
}
