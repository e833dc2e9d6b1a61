package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yagent/yagent/internal/iostreams"
)

// TestKBImportProgressBar pins the import's output: a progress bar on a
// terminal only (cleared before the summary), and the summary of what was
// created, updated, moved or skipped on stdout either way.
func TestKBImportProgressBar(t *testing.T) {
	docs := t.TempDir()
	for i := range 3 {
		os.WriteFile(filepath.Join(docs, fmt.Sprintf("n%d.md", i)), []byte(fmt.Sprintf("# Note %d\n\nbody\n", i)), 0o644)
	}
	for _, tty := range []bool{true, false} {
		f := kbFactory(t, "")
		var out, errOut bytes.Buffer
		f.IO = &iostreams.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut, ErrTTY: tty}
		store, person, err := f.KBAsPerson(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := store.CreateProject(t.Context(), person, "acme/web", ""); err != nil {
			t.Fatal(err)
		}
		if err := kbImportRun(t.Context(), f, &kbImportOptions{Dir: docs, Project: "acme/web"}); err != nil {
			t.Fatal(err)
		}
		bar := strings.Contains(errOut.String(), "] 3/3 files")
		if bar != tty {
			t.Errorf("terminal %v: progress bar shown %v (stderr %q)", tty, bar, errOut.String())
		}
		if tty && !strings.HasSuffix(errOut.String(), "\r\x1b[K") {
			t.Errorf("the bar is not cleared: %q", errOut.String())
		}
		if want := "3 created, 0 updated, 0 moved, 0 skipped, 0 failed"; !strings.Contains(out.String(), want) {
			t.Errorf("summary %q; want %q", out.String(), want)
		}
	}
}
