//go:build unix

package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestWriteFileAt: the entry is replaced inside the open directory, even
// after the directory's path is taken by a symbolic link elsewhere; an
// entry that is a symbolic link is replaced, not written through; names up
// to NAME_MAX work; no temporary file is left; more than one component is
// refused.
func TestWriteFileAt(t *testing.T) {
	base := t.TempDir()
	dirPath, elsewhere := filepath.Join(base, "dir"), filepath.Join(base, "elsewhere")
	for _, d := range []string{dirPath, elsewhere} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	dir, err := os.Open(dirPath)
	if err != nil {
		t.Fatal(err)
	}
	defer dir.Close()
	// The path now leads elsewhere; the open directory is still the one
	// written.
	moved := filepath.Join(base, "moved")
	if err := os.Rename(dirPath, moved); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, dirPath); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(elsewhere, "victim")
	if err := os.WriteFile(victim, []byte("untouched"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(moved, "link")); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("é", 127) + "x"
	for _, name := range []string{"a.txt", "a.txt", "link", long} {
		if err := WriteFileAt(dir, name, []byte("new "+name), 0o600); err != nil {
			t.Fatalf("WriteFileAt(%d-byte name) = %v", len(name), err)
		}
		fi, err := os.Lstat(filepath.Join(moved, name))
		if err != nil || !fi.Mode().IsRegular() {
			t.Fatalf("%s after WriteFileAt: %v, %v", name, fi, err)
		}
		if got, _ := os.ReadFile(filepath.Join(moved, name)); string(got) != "new "+name {
			t.Errorf("%s = %q", name, got)
		}
	}
	if got, _ := os.ReadFile(victim); string(got) != "untouched" {
		t.Errorf("the link's target was written: %q", got)
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) != 1 {
		t.Errorf("elsewhere holds %d entries; want only victim", len(entries))
	}
	if entries, _ := os.ReadDir(moved); len(entries) != 3 {
		t.Errorf("the directory holds %d entries; want the 3 files and no temporary one", len(entries))
	}
	for _, bad := range []string{"", ".", "..", "a/b", "../x"} {
		if err := WriteFileAt(dir, bad, nil, 0o644); err == nil {
			t.Errorf("WriteFileAt(%q) = nil; want refused", bad)
		}
	}
	for _, b := range []string{"go.mod", strings.Repeat("é", 127) + "x", strings.Repeat("z", 255)} {
		tmp := tempNameAt(b, "4611686018427387903")
		if len(tmp) > nameMax || !strings.HasPrefix(tmp, ".") || !utf8.ValidString(tmp) || filepath.Ext(tmp) == filepath.Ext(b) || tmp == b {
			t.Errorf("tempNameAt(%d-byte name) = %q (%d bytes)", len(b), tmp, len(tmp))
		}
	}
}
