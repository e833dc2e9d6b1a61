package tui

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/internal/testio"
	"github.com/yagent/yagent/llm"
)

func TestSanitize(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain", "plain"},
		{"a\r\nb\rc", "a\nb\nc"},
		{"tab\tkept", "tab\tkept"},
		{"\x1b[31mred\x1b[0m", "red"},
		{"bell\x07 nul\x00 del\x7f", "bell nul del"},
		{"\x1b]0;title\x07after", "after"},
		{"c1\u009bx", "c1x"},
		{"你好 — ok", "你好 — ok"},
	} {
		if got := sanitize(tc.in); got != tc.want {
			t.Errorf("sanitize(%q) = %q; want %q", tc.in, got, tc.want)
		}
	}
}

// TestPasteKeepsTabs (issue 32 item 6): a short paste holding tabs (a
// Makefile's lines, a TSV row) reaches the prompt with its tabs; the
// composer itself would turn them into spaces. Text without a tab is
// still edited in place.
func TestPasteKeepsTabs(t *testing.T) {
	m := newModel(Options{Width: 80}, &Sink{})
	m.paste("all:\n\tgo build ./...\n")
	if got, want := m.expandPastes(m.ta.Value()), "all:\n\tgo build ./...\n"; got != want {
		t.Errorf("a pasted Makefile rule reaches the prompt as %q; want %q", got, want)
	}
	m.resetComposer()
	m.paste("no tab here")
	if got := m.ta.Value(); got != "no tab here" || len(m.pastes) != 0 {
		t.Errorf("a short paste without a tab = %q (%d kept aside); want it in the composer", got, len(m.pastes))
	}
}

// FuzzSanitize: whatever a paste holds, what reaches the prompt has no
// control character but newline and tab, and sanitising twice changes
// nothing.
func FuzzSanitize(f *testing.F) {
	f.Add("\x1b[31mred\x1b[0m\r\n")
	f.Add("\x1b]8;;http://x\x07link\x1b]8;;\x07")
	f.Fuzz(func(t *testing.T, s string) {
		got := sanitize(s)
		for _, r := range got {
			if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r < 0xa0 {
				t.Fatalf("sanitize(%q) = %q keeps %U", s, got, r)
			}
		}
		if again := sanitize(got); again != got {
			t.Fatalf("sanitize is not idempotent: %q then %q", got, again)
		}
	})
}

// TestNarrowPlain: under 40 columns, and under NO_COLOR or TERM=dumb, the
// program draws plain lines: no colour, nothing wider than the terminal.
func TestNarrowPlain(t *testing.T) {
	for _, tc := range []struct {
		name  string
		env   []string
		width int
	}{
		{"narrow", []string{"TERM=xterm-256color"}, 30},
		{"no-color", []string{"TERM=xterm-256color", "NO_COLOR=1"}, 80},
		{"dumb", []string{"TERM=dumb"}, 80},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newModel(Options{Env: tc.env, Width: tc.width}, &Sink{})
			m.status = Status{Model: "a-model-with-a-long-name", ContextPct: 42}
			m.Update(tea.KeyPressMsg{Code: 'x', Text: "x"})
			m.running, m.started = true, m.o.Now()
			view := m.View().Content
			if strings.Contains(view, "\x1b[") {
				t.Errorf("%s: the frame has colours:\n%q", tc.name, view)
			}
			for _, l := range strings.Split(ansi.Strip(view), "\n") {
				if w := ansi.StringWidth(l); w > tc.width {
					t.Errorf("%s: a line of %d cells in %d columns: %q", tc.name, w, tc.width, l)
				}
			}
			if !strings.Contains(view, "esc to interrupt") && tc.width >= narrow {
				t.Errorf("%s: no status line:\n%s", tc.name, ansi.Strip(view))
			}
		})
	}
}

// TestHistoryPersisted: prompts are kept per directory across sessions,
// multi-line ones whole; ↑ recalls them newest first, ↓ returns to the
// draft; a damaged line is skipped.
func TestHistoryPersisted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "prompts", "dir.jsonl")
	h := loadHistory(path)
	h.add("first", nil)
	h.add("two\nlines", nil)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("{torn\n")
	f.Close()
	m := newModel(Options{HistoryPath: path, Width: 80}, &Sink{})
	m.ta.SetValue("draft")
	m.ta.CursorStart()
	m.Update(tea.KeyPressMsg{Code: tea.KeyUp})
	if got := m.ta.Value(); got != "two\nlines" {
		t.Fatalf("↑ = %q; want the newest prompt", got)
	}
	m.histPrev()
	if got := m.ta.Value(); got != "first" {
		t.Fatalf("↑↑ = %q; want the older prompt", got)
	}
	m.histNext()
	m.histNext()
	if got := m.ta.Value(); got != "draft" {
		t.Fatalf("↓↓ = %q; want the draft back", got)
	}
}

// TestComplete: Tab completes slash commands and @path mentions; a sent
// prompt carries the mentioned file.
func TestComplete(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "docs"), 0o755)
	os.WriteFile(filepath.Join(dir, "docs", "guide.md"), []byte("# Guide\n"), 0o644)
	m := newModel(Options{Width: 80, Workspace: dir, Commands: []string{"/help", "/history", "/quit"}}, &Sink{})
	for _, tc := range []struct{ typed, want, hint string }{
		{"/q", "/quit ", ""},
		{"/h", "/h", "/help  /history"},
		{"look at @do", "look at @docs/", ""},
		{"look at @docs/g", "look at @docs/guide.md", ""},
		{"/nosuch", "/nosuch", "no completion for /nosuch"},
	} {
		m.ta.SetValue(tc.typed)
		m.complete()
		if got := m.ta.Value(); got != tc.want || m.hint != tc.hint {
			t.Errorf("Tab after %q = %q (hint %q); want %q (hint %q)", tc.typed, got, m.hint, tc.want, tc.hint)
		}
	}
	prompt, names, err := attach(dir, "summarise @docs/guide.md, and @nothing.txt (twice: @nothing.txt), ask @alice, not @../etc/passwd")
	if len(names) != 1 || !strings.Contains(prompt, "<file path=\"docs/guide.md\">\n# Guide\n</file>") {
		t.Errorf("attach = %q, %q, %v", prompt, names, err)
	}
	// A mention that reads as a path and names nothing says so, once; @alice
	// (no dot, no slash) is no file mention.
	if err == nil || err.Error() != "@nothing.txt: no such file in the workspace; sent as typed" {
		t.Errorf("attach said %v; want @nothing.txt named as attaching nothing", err)
	}
}

// TestParallelLabels: events of two sub-agents of one name go to their
// own line on the status line, by the delegation's call id.
func TestParallelLabels(t *testing.T) {
	m := newModel(Options{Width: 100, Env: []string{"NO_COLOR=1"}}, &Sink{})
	m.running = true
	start := func(id, task string) {
		m.event(agents.Event{Type: agents.EventDelegationStarted, Delegation: &agents.DelegationEvent{CallID: id, Agent: "explorer", Task: task}})
	}
	start("a", "task a")
	start("b", "task b")
	call := func(parent, tool string, step int) {
		m.event(agents.Event{Type: agents.EventToolCall, Agent: "explorer", Depth: 1, Parent: parent, Step: step, Tool: &agents.ToolEvent{Name: tool, Args: []byte(`{}`)}})
	}
	call("b", "list_dir", 1)
	call("a", "read_file", 2)
	view := ansi.Strip(m.View().Content)
	for _, want := range []string{"explorer#1 · task a · step 2 · read_file", "explorer#2 · task b · step 1 · list_dir"} {
		if !strings.Contains(view, want) {
			t.Errorf("the status lines lack %q:\n%s", want, view)
		}
	}
	if got := strings.Join(m.out, "\n"); !strings.Contains(got, "▸ explorer#2: list_dir") {
		t.Errorf("the transcript does not name explorer#2:\n%s", got)
	}
}

// TestNoHeavyInit: the binary links no Markdown highlighter. glamour's
// chroma registers every lexer and style at start-up, in every process
// (`yagent run` too): 11 MiB more peak memory and 20% more CPU per run.
func TestNoHeavyInit(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := testio.Command(t, 5*time.Minute, "go", "list", "-deps", "github.com/yagent/yagent/cmd/yagent").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, heavy := range []string{"github.com/alecthomas/chroma", "charm.land/glamour", "github.com/charmbracelet/glamour"} {
		if strings.Contains(string(out), heavy) {
			t.Errorf("cmd/yagent links %s: its package initialisation runs in every yagent process", heavy)
		}
	}
}

// TestPicker: arrows move through the sessions, the highlighted one is
// previewed, the current one is marked, --all adds the directory column;
// Enter picks, Esc cancels.
func TestPicker(t *testing.T) {
	at := time.Date(2026, 12, 1, 9, 30, 0, 0, time.Local)
	rows := []Session{
		{ID: "20261201T093000-aaaaaa", Name: "release", Title: "prepare the release notes", Dir: "/src/app", Updated: at, Turns: 4, Current: true},
		{ID: "20261130T080000-bbbbbb", Title: "why does the build fail on arm64?", Dir: "/src/lib", Updated: at.Add(-time.Hour), Turns: 2},
	}
	p := &picker{rows: rows, all: true}
	if done, _ := p.key(tea.KeyPressMsg{Code: tea.KeyDown}); done {
		t.Fatal("↓ ended the picker")
	}
	view := p.view(120, 24)
	for _, want := range []string{"› 12-01 08:30  20261130T080000-bbbbbb", "/src/lib", "(this session)", "why does the build fail on arm64?\n"} {
		if !strings.Contains(view, want) && !strings.HasSuffix(view, strings.TrimSuffix(want, "\n")) {
			t.Errorf("the picker lacks %q:\n%s", want, view)
		}
	}
	if done, id := p.key(tea.KeyPressMsg{Code: tea.KeyEnter}); !done || id != rows[1].ID {
		t.Errorf("Enter = %v, %q; want the highlighted session", done, id)
	}
	if done, id := p.key(tea.KeyPressMsg{Code: tea.KeyEscape}); !done || id != "" {
		t.Errorf("Esc = %v, %q; want cancelled", done, id)
	}
}

// TestPickerFilters (issue 32 item 6): typing filters the sessions by
// name, id, title or directory, in any case (j, k and q are text, not
// keys); Backspace widens the filter again; Enter picks among the shown.
func TestPickerFilters(t *testing.T) {
	rows := []Session{
		{ID: "20261201T093000-aaaaaa", Name: "release", Title: "prepare the release notes", Dir: "/src/app", Turns: 4},
		{ID: "20261130T080000-bbbbbb", Title: "why does the build fail on arm64?", Dir: "/src/lib", Turns: 2},
		{ID: "20261129T080000-cccccc", Title: "Jump to the ARM docs", Dir: "/src/docs", Turns: 1},
	}
	p := &picker{rows: rows}
	typ := func(s string) {
		for _, r := range s {
			if done, _ := p.key(tea.KeyPressMsg{Code: r, Text: string(r)}); done {
				t.Fatalf("typing %q ended the picker", r)
			}
		}
	}
	typ("ARM")
	view := p.view(120, 24)
	if strings.Contains(view, "release") || !strings.Contains(view, "arm64") || !strings.Contains(view, "ARM docs") || !strings.Contains(view, "filter: ARM") {
		t.Errorf("filtered by ARM, the picker shows:\n%s", view)
	}
	p.key(tea.KeyPressMsg{Code: tea.KeyDown})
	if done, id := p.key(tea.KeyPressMsg{Code: tea.KeyEnter}); !done || id != rows[2].ID {
		t.Errorf("Enter on the second match = %v, %q; want %s", done, id, rows[2].ID)
	}
	p = &picker{rows: rows}
	typ("jq")
	if view := p.view(120, 24); !strings.Contains(view, "no session matches") {
		t.Errorf("filtered by jq, the picker shows:\n%s", view)
	}
	if done, _ := p.key(tea.KeyPressMsg{Code: tea.KeyEnter}); done {
		t.Error("Enter with nothing shown ended the picker")
	}
	p.key(tea.KeyPressMsg{Code: tea.KeyBackspace})
	p.key(tea.KeyPressMsg{Code: tea.KeyBackspace})
	if got := len(p.shown()); got != 3 {
		t.Errorf("after Backspace twice the picker shows %d sessions; want all 3", got)
	}
}

// TestStatusCost: the status line sums the session's tokens and, with a
// price, their cost (cached prompt tokens at their own price).
func TestStatusCost(t *testing.T) {
	m := newModel(Options{Width: 120, Env: []string{"NO_COLOR=1"}}, &Sink{})
	m.status = Status{Model: "m", ContextPct: 7, Price: &Price{Input: 2, Cached: 0.5, Output: 8}}
	m.event(agents.Event{Type: agents.EventUsage, Usage: &agents.UsageEvent{Usage: llm.Usage{PromptTokens: 300_000, CachedTokens: 200_000, CompletionTokens: 50_000}}})
	got := m.statusLine()
	// 100k×2 + 200k×0.5 + 50k×8 per million = 0.2 + 0.1 + 0.4
	if want := "m · ctx 7% · 350.0k tok · $0.7000 · /help"; got != want {
		t.Errorf("status line = %q; want %q", got, want)
	}
}

// TestEditor: Ctrl-G opens $EDITOR on the composer's text and takes back
// what the editor saved.
func TestEditor(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "ed")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho ' and more from the editor' >> \"$1\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	m := newModel(Options{Env: []string{"NO_COLOR=1", "EDITOR=" + script}}, &Sink{})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(80, 24))
	tm.Type("typed here")
	tm.Send(tea.KeyPressMsg{Code: 'g', Mod: tea.ModCtrl})
	// 60 s: a fresh-clone run beside a mutation run (load ~15) once took
	// over 10 s from Ctrl-G to the frame after the editor.
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return strings.Contains(string(b), "more from the editor") }, teatest.WithDuration(60*time.Second))
	tm.Quit()
	final := tm.FinalModel(t, teatest.WithFinalTimeout(30*time.Second)).(*model)
	if got, want := final.ta.Value(), "typed here and more from the editor"; got != want {
		t.Errorf("the composer after the editor = %q; want %q", got, want)
	}
}

// TestHistoryUnsavedIsShown: a history that cannot be saved is a warning
// in the transcript, once; the prompt still goes out.
func TestHistoryUnsavedIsShown(t *testing.T) {
	blocker := filepath.Join(t.TempDir(), "file")
	os.WriteFile(blocker, nil, 0o600)
	m := newModel(Options{Width: 80, HistoryPath: filepath.Join(blocker, "prompts.jsonl"), Env: []string{"NO_COLOR=1"}, Commands: []string{"/help"}}, &Sink{})
	for _, line := range []string{"/help", "/help again"} {
		m.ta.SetValue(line)
		m.submit()
	}
	got := strings.Join(m.out, "\n")
	if strings.Count(got, "the prompt history is not saved") != 1 {
		t.Errorf("the transcript =\n%s\nwant one warning about the history", got)
	}
}

// TestModalShowsArgsWhole: an MCP tool's arguments (a preview marked
// whole) are shown in full in the approval modal — every line, long ones
// wrapped, never cut — while a diff keeps its first lines.
func TestModalShowsArgsWhole(t *testing.T) {
	long := strings.Repeat("0123456789", 30)
	var lines []string
	for i := range 40 {
		lines = append(lines, fmt.Sprintf("  \"k%02d\": \"v\",", i))
	}
	args := "{\n" + strings.Join(lines, "\n") + "\n  \"long\": \"" + long + "\"\n}"
	for _, whole := range []bool{true, false} {
		m := newModel(Options{Env: []string{"TERM=dumb"}, Width: 80}, &Sink{})
		m.Update(askMsg{question: []string{"call the tool `w` of mcp server `s`"}, preview: args, whole: whole, reply: make(chan reply, 1)})
		view := ansi.Strip(m.View().Content)
		for _, l := range strings.Split(view, "\n") {
			if w := ansi.StringWidth(l); w > 80 {
				t.Errorf("whole %v: a line of %d cells in 80 columns: %q", whole, w, l)
			}
		}
		flat := strings.NewReplacer("\n", "", " ", "").Replace(view)
		all := strings.Contains(flat, `"k39":"v"`) && strings.Contains(flat, long) && !strings.Contains(view, "more lines")
		if all != whole {
			t.Errorf("whole %v: the modal shows every argument: %v; frame:\n%s", whole, all, view)
		}
	}
}

// TestModalWholeCommand: the modal shows a command exactly as it will run
// — every line, nothing cut at the width (a long line wraps, each of its
// characters kept), control characters and bidi overrides visible, in the
// question, the preview and the prefix — in colour and plain.
func TestModalWholeCommand(t *testing.T) {
	long := "echo " + strings.Repeat("abcdefghij ", 12) + "&& rm -rf build"
	q := agents.Question{
		Action: "run `" + long + "\nsecond line\r\x1b[2K\u202e` in /ws",
		Prefix: "echo\x1b[8m",
	}
	a := &Asker{Preview: func(agents.Question) string { return "+x\x1b]52;c;eA==\x07\n" }}
	for _, env := range [][]string{{"TERM=xterm-256color"}, {"NO_COLOR=1"}} {
		m := newModel(Options{Env: env, Width: 40}, &Sink{})
		msg := a.modal(q)
		m.modal = &msg
		view := ansi.Strip(m.View().Content)
		if strings.ContainsAny(view, "\x1b\r\x07\u202e") {
			t.Errorf("%v: a control character reaches the frame: %q", env, view)
		}
		var joined strings.Builder
		for _, l := range strings.Split(view, "\n") {
			if w := ansi.StringWidth(l); w > 40 {
				t.Errorf("%v: a line of %d cells in 40 columns: %q", env, w, l)
			}
			l = strings.TrimPrefix(strings.TrimPrefix(l, "? "), "    ")
			if rest, ok := strings.CutPrefix(l, "  │ "); ok {
				joined.WriteString("\n" + rest)
				continue
			}
			joined.WriteString(l)
		}
		for _, want := range []string{long, "\nsecond line␍␛[2K\\u202e` in /ws", "+x␛]52;c;eA==␇", "[a]lways `echo␛[8m …`"} {
			if !strings.Contains(joined.String(), want) {
				t.Errorf("%v: the modal lacks %q; it shows:\n%s", env, want, view)
			}
		}
	}
}

// TestTranscriptShowsControls: what the events of a turn carry (the lead's
// streamed text, tool arguments and results, tasks, notices, errors, note
// names) and what slash commands and a resumed transcript print reach the
// scrollback with their control characters visible (␛, ␍, \u202e), before
// any colour is added; an emoji family split between two deltas stays
// whole.
func TestTranscriptShowsControls(t *testing.T) {
	const esc = "\x1b[2K\r"
	for _, env := range [][]string{{"TERM=xterm-256color"}, {"NO_COLOR=1"}} {
		m := newModel(Options{Env: env, Width: 100, Intro: func() string { return "intro" + esc }}, &Sink{})
		m.printing = true // keep the lines in m.out, where the test reads them
		m.Init()
		for _, e := range []agents.Event{
			{Type: agents.EventTextDelta, Text: "answer 👨\u200d"},
			{Type: agents.EventTextDelta, Text: "👩" + esc + "\u202e"},
			{Type: agents.EventToolCall, Tool: &agents.ToolEvent{Name: "shell" + esc, Args: []byte(`{"command":"rm -rf ~ #\r\u001b[2Kls"}`)}},
			{Type: agents.EventToolResult, Tool: &agents.ToolEvent{Name: "shell", Summary: "result" + esc}},
			{Type: agents.EventDelegationStarted, Delegation: &agents.DelegationEvent{CallID: "c1", Agent: "worker", Task: "task" + esc}},
			{Type: agents.EventToolCall, Depth: 1, Parent: "c1", Agent: "worker", Tool: &agents.ToolEvent{Name: "read" + esc}},
			{Type: agents.EventDelegationFinished, Delegation: &agents.DelegationEvent{CallID: "c1", Agent: "worker", Status: "ok", Conclusion: "done" + esc}},
			{Type: agents.EventRetry, Text: "retrying", Error: "retry" + esc},
			{Type: agents.EventNotice, Text: "notice" + esc},
			{Type: agents.EventError, Error: "error" + esc},
			{Type: agents.EventNoteSaved, Note: &agents.NoteEvent{Action: "saved", Name: "name" + esc, Description: "desc" + esc}},
		} {
			m.event(e)
		}
		m.flushLive()
		m.Update(commandDoneMsg{out: "command" + esc, err: errors.New("failed" + esc)})
		all := strings.Join(m.out, "\n")
		if strings.ContainsAny(ansi.Strip(all), "\x1b\r\u202e") {
			t.Errorf("%v: a control character reaches the scrollback: %q", env, all)
		}
		for _, want := range []string{"intro␛[2K␍", "answer 👨\u200d👩␛[2K␍\\u202e", "shell␛[2K␍ command=rm -rf ~ #␍␛[2Kls", "result␛[2K␍", "task␛[2K␍",
			"read␛[2K␍", "done␛[2K␍", "retry␛[2K␍", "notice␛[2K␍", "error␛[2K␍", "name␛[2K␍", "desc␛[2K␍", "command␛[2K␍", "failed␛[2K␍"} {
			if !strings.Contains(ansi.Strip(all), want) {
				t.Errorf("%v: the scrollback lacks %q:\n%s", env, want, ansi.Strip(all))
			}
		}
	}
}

// TestMarkdownTablesAndLinks (issue 32 item 6): an answer's Markdown
// table is laid out in aligned columns (the header over a rule, each
// column aligned as its rule says, a pipe escaped in a cell kept), and a
// link is its text with the address after it; a table too wide for the
// terminal stays as written.
func TestMarkdownTablesAndLinks(t *testing.T) {
	md := "Sizes:\n\n| package | lines | note |\n|:--|--:|:-:|\n| tui | 793 | the `model` |\n| printer | 60 | a \\| b |\n\nSee [the spec](https://example.com/spec) or <https://example.com>."
	got := ansi.Strip(renderMarkdown(md, 80, false))
	want := "Sizes:\n\n" +
		"package │ lines │   note\n" +
		"────────┼───────┼──────────\n" +
		"tui     │   793 │ the model\n" +
		"printer │    60 │   a | b\n" +
		"\n" +
		"See the spec (https://example.com/spec) or https://example.com."
	if got != want {
		t.Errorf("renderMarkdown =\n%s\nwant\n%s", got, want)
	}
	wide := "| a | b |\n|---|---|\n| " + strings.Repeat("x", 70) + " | " + strings.Repeat("y", 20) + " |"
	if got := ansi.Strip(renderMarkdown(wide, 80, false)); !strings.HasPrefix(got, "| a | b |\n|---|---|\n") {
		t.Errorf("a table wider than the terminal =\n%s\nwant it as written", got)
	}
}
