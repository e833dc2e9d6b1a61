package agents

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/llm/llmtest"
)

// scenario starts the scripted server for testdata/scenarios/NAME.yaml and
// returns it with a real openai-go client pointed at it.
func scenario(t *testing.T, name string) (*llmtest.Server, llm.Client) {
	t.Helper()
	srv := llmtest.NewTestServer(t, filepath.Join("..", "testdata", "scenarios", name+".yaml"))
	c, err := llm.NewOpenAI(llm.EndpointConfig{
		BaseURL: srv.URL(), Model: "scripted", Timeout: 10 * time.Second, MaxRetries: 3,
	})
	if err != nil {
		t.Fatal(err)
	}
	return srv, c
}

// demoWorkspace makes a small workspace: go.mod, main.go, docs/.
func demoWorkspace(t *testing.T) *Workspace {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":          "module example.com/demo\n\ngo 1.26\n",
		"main.go":         "package main\n\nfunc main() {}\n",
		"docs/readme.txt": "hello\n",
	}
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w, err := OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

func userMsg(s string) llm.Message { return llm.Message{Role: llm.RoleUser, Content: s} }

func leadAgent(tools []*Tool) *Agent {
	return &Agent{Name: "lead", System: "You are lead [agent:lead].", Tools: tools, MaxSteps: 40}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// writeTestFile writes a file inside the workspace (tests and benchmarks).
func writeTestFile(w *Workspace, rel, content string) error {
	ck, err := w.check(rel)
	if err != nil {
		return err
	}
	ck.why = "set up by a test" // as if approved
	return w.atomicWrite(context.Background(), ck, []byte(content))
}
