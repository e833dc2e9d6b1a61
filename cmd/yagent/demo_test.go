package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestBundledDemo keeps the scenario bundled into the binary equal to
// testdata/scenarios/demo.yaml, the one the director's tests drive
// (go test ./cmd/yagent -update copies it).
func TestBundledDemo(t *testing.T) {
	src := filepath.Join("..", "..", "testdata", "scenarios", "demo.yaml")
	want, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if updating() {
		if err := os.WriteFile(filepath.Join("demo", "scenario.yaml"), want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(demoScenario, want) {
		t.Errorf("demo/scenario.yaml differs from %s: run go test ./cmd/yagent -update", src)
	}
	if _, err := loadDemoScenario(); err != nil {
		t.Errorf("the bundled demo scenario does not load: %v", err)
	}
}
