package ttyask

import (
	"context"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/internal/testio"
)

// TestApprovalPromptKeys pins the approval prompt on a real terminal (a
// pseudo-terminal): one key answers at once, without Enter; Ctrl-C is "no"
// at once (raw mode: it is read, never turned into a signal, so the step
// is not cancelled); "a" is "always" only when a prefix is offered; keys
// typed before the question never answer it; the terminal is back in line
// mode afterwards and the line typed next reaches the reader whole; a
// write's question shows its unified diff, an MCP tool's its arguments,
// whole.
func TestApprovalPromptKeys(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	echo := &testio.Buffer{} // what the line discipline echoes: the keys it took
	go io.Copy(echo, ptmx)

	ask := func(t *testing.T, q agents.Question, typeAhead, key string) (agents.Answer, string) {
		t.Helper()
		if typeAhead != "" {
			// Typed before the question: wait until the line discipline
			// has it (its echo), never a fixed time.
			before := len(echo.String())
			ptmx.Write([]byte(typeAhead))
			if !waitFor(echo, typeAhead, 10*time.Second) || !strings.Contains(echo.String()[before:], typeAhead) {
				t.Fatalf("the type-ahead %q never reached the terminal; echo %q", typeAhead, echo.String())
			}
		}
		screen := &testio.Buffer{}
		a := New(tty, screen)
		type result struct {
			ans agents.Answer
			err error
		}
		done := make(chan result, 1)
		go func() {
			ans, err := a.Ask(context.Background(), q)
			done <- result{ans, err}
		}()
		if !waitFor(screen, "allow?", 10*time.Second) {
			t.Fatalf("no prompt; screen:\n%s", screen)
		}
		ptmx.Write([]byte(key))
		select {
		case r := <-done:
			if r.err != nil {
				t.Fatalf("Ask: %v", r.err)
			}
			return r.ans, screen.String()
		case <-time.After(10 * time.Second):
			t.Fatalf("key %q did not answer at once; screen:\n%s", key, screen)
		}
		return agents.Deny, ""
	}
	run := agents.Question{Action: "run `go test ./...` in /ws", Prefix: "go test"}
	for _, tt := range []struct {
		name      string
		q         agents.Question
		typeAhead string
		key       string
		want      agents.Answer
		shown     string
	}{
		{"y", run, "", "y", agents.Allow, "yes"},
		{"n", run, "", "n", agents.Deny, "no"},
		{"ctrl-c", run, "", "\x03", agents.Deny, "no (Ctrl-C)"},
		{"esc", run, "", "\x1b", agents.Deny, "no"},
		{"enter", run, "", "\r", agents.Deny, "no"},
		{"always", run, "", "a", agents.AllowPrefix, "always `go test …`"},
		{"always not offered", agents.Question{Action: "run `sh -c x` in /ws"}, "", "a", agents.Deny, "no"},
		{"type-ahead ignored", run, "y", "n", agents.Deny, "no"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, screen := ask(t, tt.q, tt.typeAhead, tt.key)
			if got != tt.want || !strings.HasSuffix(screen, tt.shown+"\n") {
				t.Errorf("answer %v; want %v; screen:\n%s", got, tt.want, screen)
			}
		})
	}

	t.Run("next line whole", func(t *testing.T) {
		ask(t, run, "", "\x03")
		ptmx.Write([]byte("next line\n"))
		line := make(chan string, 1)
		go func() {
			buf := make([]byte, 64)
			n, _ := tty.Read(buf)
			line <- string(buf[:n])
		}()
		select {
		case got := <-line:
			if got != "next line\n" {
				t.Errorf("the line typed after the answer read as %q; want it whole, in line mode", got)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the line typed after the answer never arrived")
		}
	})

	t.Run("what the model chose is shown, not obeyed", func(t *testing.T) {
		q := agents.Question{Action: "run `echo\x1b[8m hidden` in /ws", Prefix: "echo\x1b[8m", Why: ".git/\r\x1b[2Khooks"}
		_, out := ask(t, q, "", "n")
		var screen testio.Screen
		screen.Write([]byte(strings.ReplaceAll(out, "\n", "\r\n")))
		for _, want := range []string{"? run `echo␛[8m hidden` in /ws", "protected path: .git/␍␛[2Khooks", "[a]lways `echo␛[8m …` this session"} {
			if !strings.Contains(screen.String(), want) {
				t.Errorf("the prompt lacks %q; it shows:\n%s", want, screen.String())
			}
		}
	})

	t.Run("write shows its diff", func(t *testing.T) {
		q := agents.Question{Action: "write_file notes.txt", Path: "notes.txt", Old: "a\nb\n", New: "a\nB\n"}
		_, screen := ask(t, q, "", "n")
		want := "  --- a/notes.txt\n  +++ b/notes.txt\n  @@ -1,2 +1,2 @@\n   a\n  -b\n  +B\n"
		if !strings.Contains(screen, want) {
			t.Errorf("screen:\n%s\nwant the diff:\n%s", screen, want)
		}
	})

	t.Run("mcp tool shows its arguments whole", func(t *testing.T) {
		long := strings.Repeat("y", 5000)
		q := agents.Question{Action: "call the tool `w` of mcp server `s` (mcp_s__w) with these arguments:", Prefix: "mcp_s__w",
			Args: agents.PrettyArgs([]byte(`{"path":"/etc/x","content":"` + long + `"}`))}
		got, screen := ask(t, q, "", "a")
		want := "  {\n    \"path\": \"/etc/x\",\n    \"content\": \"" + long + "\"\n  }\n  allow? [y]es / [n]o / [a]lways `mcp_s__w …` this session: "
		if got != agents.AllowPrefix || !strings.Contains(screen, want) {
			t.Errorf("answer %v; screen:\n%.300s\nwant the arguments whole, then the choices", got, screen)
		}
	})
}

// Without a terminal (a test's pipe), the asker reads one line and no more.
func TestApprovalLineReader(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w.Write([]byte("  yes\nrest\n"))
	w.Close()
	a := New(r, io.Discard)
	if ans, err := a.Ask(context.Background(), agents.Question{Action: "x"}); ans != agents.Allow || err != nil {
		t.Errorf("Ask = %v, %v; want Allow", ans, err)
	}
	rest, _ := io.ReadAll(r)
	if string(rest) != "rest\n" {
		t.Errorf("left %q; want the next line untouched", rest)
	}
}

// TestApprovalTellInstead (issue 32 item 6): "no, and tell it what to do
// instead" — t, then a line — answers no with the person's words for the
// model; only a tool's approval offers it (AskInstead), not a plain
// question such as a budget's.
func TestApprovalTellInstead(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w.Write([]byte("t\n  run go vet ./... instead\nrest\n"))
	w.Close()
	var out strings.Builder
	a := New(r, &out)
	ans, instead, err := a.AskInstead(context.Background(), agents.Question{Action: "run `rm -rf build`"})
	if ans != agents.Deny || instead != "run go vet ./... instead" || err != nil {
		t.Errorf("AskInstead = %v, %q, %v; want Deny with the person's words", ans, instead, err)
	}
	if !strings.Contains(out.String(), "[t]ell it what to do instead") || !strings.Contains(out.String(), "tell it what to do instead: ") {
		t.Errorf("the prompt does not offer t or ask for the words:\n%s", out.String())
	}
	if rest, _ := io.ReadAll(r); string(rest) != "rest\n" {
		t.Errorf("left %q; want the next line untouched", rest)
	}
	out.Reset()
	a = New(strings.NewReader("t\n"), &out)
	if ans, err := a.Ask(context.Background(), agents.Question{Action: "raise the budget"}); ans != agents.Deny || err != nil || strings.Contains(out.String(), "[t]ell") {
		t.Errorf("a plain question = %v, %v, offering t: %q; want no without the offer", ans, err, out.String())
	}
}

// TestApprovalPreview: the TUI's modal shows under a question what the
// plain prompt shows: a write's diff, an MCP tool's arguments whole.
func TestApprovalPreview(t *testing.T) {
	args := agents.PrettyArgs([]byte(`{"path":"/etc/x"}`))
	for _, tt := range []struct {
		q    agents.Question
		want string
	}{
		{agents.Question{Action: "run `ls`"}, ""},
		{agents.Question{Action: "write_file a", Path: "a", Old: "x\n", New: "y\n"}, "--- a/a\n+++ b/a\n@@ -1 +1 @@\n-x\n+y\n"},
		{agents.Question{Action: "call the tool `w`", Args: args}, "{\n  \"path\": \"/etc/x\"\n}"},
	} {
		if got := Preview(tt.q); got != tt.want {
			t.Errorf("Preview(%q) = %q; want %q", tt.q.Action, got, tt.want)
		}
	}
}

func waitFor(b *testio.Buffer, text string, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if strings.Contains(b.String(), text) {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

// TestAskLine: a line of text (an MCP server's elicitation) is read up to
// its newline and not a byte more, control characters dropped; the
// prompt goes through termsafe.
func TestAskLine(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w.Write([]byte(" prod\x1b \nrest\n"))
	w.Close()
	var out strings.Builder
	a := New(r, &out)
	got, err := a.AskLine(context.Background(), "env \x1b[2J")
	if got != "prod" || err != nil {
		t.Errorf("AskLine = %q, %v; want prod", got, err)
	}
	rest, _ := io.ReadAll(r)
	if string(rest) != "rest\n" {
		t.Errorf("left %q; want the next line untouched", rest)
	}
	if strings.Contains(out.String(), "\x1b") {
		t.Errorf("prompt %q carries an escape", out.String())
	}
}
