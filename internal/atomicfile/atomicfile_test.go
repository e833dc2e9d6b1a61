package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteFileReplacesAndLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "note.md")
	for _, content := range []string{"first", "second"} {
		if err := WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != content {
			t.Fatalf("content = %q; want %q", got, content)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("dir holds %d entries; want only the target", len(entries))
	}
}

func TestWriteFileMissingDir(t *testing.T) {
	err := WriteFile(filepath.Join(t.TempDir(), "missing", "x.md"), nil, 0o644)
	if err == nil || !strings.Contains(err.Error(), "x.md") {
		t.Fatalf("WriteFile into a missing dir = %v; want an error naming the file", err)
	}
}

// TestWriteNewNeverReplaces: WriteNew creates a file once; a second write
// to the same name fails with fs.ErrExist, leaves the first content and no
// temporary file — by renameat2 and by the link(2) fallback alike.
func TestWriteNewNeverReplaces(t *testing.T) {
	for name, move := range map[string]func(string, string) error{"rename": renameNoReplace, "link": linkNoReplace} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "note.md")
			if err := WriteNew(p, []byte("first"), 0o644); err != nil {
				t.Fatal(err)
			}
			tmp := filepath.Join(dir, ".note.md123")
			if err := os.WriteFile(tmp, []byte("second"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := move(tmp, p); !errors.Is(err, fs.ErrExist) {
				t.Errorf("%s over an existing file = %v; want fs.ErrExist", name, err)
			}
			os.Remove(tmp)
			if err := WriteNew(p, []byte("second"), 0o644); !errors.Is(err, fs.ErrExist) || !strings.Contains(err.Error(), "note.md") {
				t.Errorf("second WriteNew = %v; want fs.ErrExist naming the file", err)
			}
			if got, _ := os.ReadFile(p); string(got) != "first" {
				t.Errorf("content = %q; the first write was replaced", got)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 1 {
				t.Errorf("dir holds %d entries; want only the target", len(entries))
			}
		})
	}
}
