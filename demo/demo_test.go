package demo

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "copy testdata/scenarios/demo.yaml into scenario.yaml")

// TestBundledDemo keeps the scenario bundled into the binary equal to
// testdata/scenarios/demo.yaml, the one the director's tests drive
// (go test ./demo -update copies it).
func TestBundledDemo(t *testing.T) {
	src := filepath.Join("..", "testdata", "scenarios", "demo.yaml")
	want, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("scenario.yaml", want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(scenario, want) {
		t.Errorf("scenario.yaml differs from %s: run go test ./demo -update", src)
	}
	if _, err := Scenario(); err != nil {
		t.Errorf("the bundled demo scenario does not load: %v", err)
	}
}
