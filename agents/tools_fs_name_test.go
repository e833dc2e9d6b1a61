package agents

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteFileLongName: a file name as long as the file system allows
// (NAME_MAX 255) is written and edited; the temporary name is cut to fit,
// is hidden, and never looks like the real file (atomicfile's
// TestWriteFileAt checks its shape).
func TestWriteFileLongName(t *testing.T) {
	w := demoWorkspace(t)
	tools := FSTools(w, ShellPolicy{})
	for _, name := range []string{strings.Repeat("a", 236) + ".txt", strings.Repeat("é", 117) + ".md", strings.Repeat("b", 255)} {
		if r := call(t, tools, "write_file", map[string]any{"path": "long/" + name, "content": "x\n"}); r.IsError {
			t.Fatalf("write_file of a %d-byte name = %s", len(name), r.Content)
		}
		if r := call(t, tools, "edit_file", map[string]any{"path": "long/" + name, "old": "x", "new": "y"}); r.IsError {
			t.Fatalf("edit_file of a %d-byte name = %s", len(name), r.Content)
		}
		if data, err := os.ReadFile(filepath.Join(w.Dir(), "long", name)); err != nil || string(data) != "y\n" {
			t.Errorf("%d-byte name: %q, %v", len(name), data, err)
		}
	}
	entries, _ := os.ReadDir(filepath.Join(w.Dir(), "long"))
	if len(entries) != 3 {
		t.Errorf("long/ holds %d entries; want the 3 files and no temporary one", len(entries))
	}
}
