package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yagent/yagent/agents"
)

type brokenWriter struct{}

func (brokenWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

// TestNonFatalErrorsAreShown pins the warnings that replace dropped
// errors: a --json stream that cannot be written and a prompt history
// that cannot be saved are each reported once on stderr, and the command
// goes on.
func TestNonFatalErrorsAreShown(t *testing.T) {
	var errOut bytes.Buffer
	p := newJSONPrinter(brokenWriter{}, &errOut)
	p.Emit(agents.Event{Type: agents.EventNotice, Text: "one"})
	p.Emit(agents.Event{Type: agents.EventNotice, Text: "two"})
	if got := errOut.String(); strings.Count(got, "warning: the JSON event stream is broken from here on: broken pipe") != 1 {
		t.Errorf("json printer on a broken stream wrote %q; want one warning", got)
	}

	errOut.Reset()
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	h := loadHistory(filepath.Join(file, "history"), &errOut) // its directory is a file
	h.Add("first")
	h.Add("second")
	if got := errOut.String(); strings.Count(got, "warning: the prompt history is not saved") != 1 || h.Len() != 2 {
		t.Errorf("history that cannot be saved wrote %q and kept %d lines; want one warning and both lines", got, h.Len())
	}
}
