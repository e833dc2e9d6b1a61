package lineedit

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlainLines: without a terminal every line is read as it is, then
// io.EOF.
func TestPlainLines(t *testing.T) {
	in := New(strings.NewReader("one\n  two  \n"), io.Discard, io.Discard, false, "")
	for _, want := range []string{"one", "  two  "} {
		if got, err := in.ReadLine(); got != want || err != nil {
			t.Fatalf("ReadLine = %q, %v; want %q", got, err, want)
		}
	}
	if _, err := in.ReadLine(); !errors.Is(err, io.EOF) {
		t.Errorf("at the end ReadLine = %v; want io.EOF", err)
	}
}

// TestHistoryFile: a line is appended to the file (a repeat of the last
// one is not), the newest is At(0), a reload keeps the last historyMax;
// a history that cannot be saved warns once and stays in memory.
func TestHistoryFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history")
	h := loadHistory(path, io.Discard)
	for _, l := range []string{"a", "b", "b", "", "multi\nline"} {
		h.Add(l)
	}
	if h.Len() != 3 || h.At(0) != "multi\nline" || h.At(1) != "b" {
		t.Errorf("history %q", h.lines)
	}
	data, _ := os.ReadFile(path)
	if string(data) != "a\nb\n" {
		t.Errorf("file %q; want the two one-line entries", data)
	}
	var long strings.Builder
	for range historyMax + 5 {
		long.WriteString("x\n")
	}
	long.WriteString("last\n")
	os.WriteFile(path, []byte(long.String()), 0o600)
	if h := loadHistory(path, io.Discard); h.Len() != historyMax || h.At(0) != "last" {
		t.Errorf("reloaded %d entries, newest %q", h.Len(), h.At(0))
	}

	var warn strings.Builder
	bad := loadHistory(filepath.Join(path, "not-a-dir", "history"), &warn)
	bad.Add("one")
	bad.Add("two")
	if strings.Count(warn.String(), "warning") != 1 || bad.Len() != 2 {
		t.Errorf("warnings %q, %d entries; want one warning and both kept", warn.String(), bad.Len())
	}
}
