package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/yagent/yagent/internal/iostreams"
	"github.com/yagent/yagent/internal/testio"
	"github.com/yagent/yagent/llm/llmtest"
)

// TestChatCuratesWhenDueWhileOpen: a `yagent chat` left open becomes due
// for its tool curation during a turn (the clock passes the due time while
// the model answers); the check after that turn curates it at once, in the
// background, and says so — without waiting for the next message, which
// may never come. (The turn's own check at its start saw it not due.)
func TestChatCuratesWhenDueWhileOpen(t *testing.T) {
	srv := llmtest.NewTestServer(t, filepath.Join("..", "..", "testdata", "scenarios", "chat-curation.yaml"))
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte("chat_sleep:\n  tools:\n    budget_percent: 0\n    min_turns: 0\n    thin_turns: 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	in, typed := io.Pipe()
	var out, errOut testio.Buffer
	f := NewFactory(&iostreams.IOStreams{In: in, Out: &out, ErrOut: &errOut})
	f.Dir = t.TempDir()
	env := map[string]string{"YAGENT_HOME": home, "OPENAI_BASE_URL": srv.URL(), "YAGENT_MODEL": "scripted", "USER": "alice"}
	f.Getenv = func(k string) string { return env[k] }
	served := func(step string) bool {
		for _, r := range srv.Requests() {
			if r.StepID == step {
				return true
			}
		}
		return false
	}
	// A day passes while the second turn's answer comes: from the moment
	// the model has the second question, the clock reads 25 hours on.
	f.Now = func() time.Time {
		if served("second") {
			return time.Now().Add(25 * time.Hour)
		}
		return time.Now()
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan int, 1)
	go func() {
		code := execute(ctx, f, []string{"chat"})
		f.Close()
		done <- code
	}()
	go io.WriteString(typed, "first question\nsecond question\n")
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				typed.Close()
				var steps []string
				for _, r := range srv.Requests() {
					steps = append(steps, r.StepID)
				}
				t.Fatalf("%s: not within 20 s (model requests %q)\nstdout:\n%s\nstderr:\n%s", what, steps, out.String(), errOut.String())
			}
		}
	}
	waitFor("the session, due since the second turn, was curated between turns", func() bool {
		return served("sleep") && strings.Contains(errOut.String(), "tool curation: +0/−")
	})
	if !strings.Contains(out.String(), "answer two") {
		t.Errorf("the second answer is missing:\n%s", out.String())
	}
	typed.Close() // the person leaves (Ctrl-D)
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("yagent chat exited %d\n%s", code, errOut.String())
		}
	case <-time.After(30 * time.Second):
		cancel()
		t.Fatalf("yagent chat did not end at the end of its input\nstderr:\n%s", errOut.String())
	}
}
