// Package demo is the offline demo bundled into yagent, so it works
// anywhere, not only inside a clone: a scripted scenario (a copy of
// testdata/scenarios/demo.yaml) and the sample workspace it runs in.
package demo

import (
	_ "embed"
	"os"
	"path/filepath"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/yagent/yagent/llm/llmtest"
)

var (
	//go:embed scenario.yaml
	scenario []byte
	//go:embed workspace.txtar
	workspace []byte
)

const (
	// Replay is what --replay takes for the bundled scenario.
	Replay = "demo"
	// Label names it wherever a replay is labelled.
	Label = "demo, the scripted model bundled in yagent"
	// Prompt is the question the bundled scenario answers.
	Prompt = "What is this repository, and is its blackboard safe?"
	// Board is the board its handoffs land on.
	Board = "demo"
)

// Scenario parses the bundled scenario.
func Scenario() (*llmtest.Scenario, error) {
	return llmtest.Parse(scenario, "demo")
}

// WriteWorkspace writes the sample workspace into dir.
func WriteWorkspace(dir string) error {
	for _, file := range txtar.Parse(workspace).Files {
		path := filepath.Join(dir, filepath.FromSlash(file.Name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, file.Data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
