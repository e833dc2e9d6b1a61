package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/yagent/yagent/chat"
	"github.com/yagent/yagent/internal/flagvalue"
	"github.com/yagent/yagent/internal/iostreams"
	"github.com/yagent/yagent/internal/testio"
	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/llm/llmtest"
	"github.com/yagent/yagent/memory"
	"github.com/yagent/yagent/tui"
)

// tuiRig is interactive mode under teatest: the real chat (session,
// director, rollout) over a scripted model, driven by key and paste
// messages.
type tuiRig struct {
	t    *testing.T
	tm   *teatest.TestModel
	c    *chat.Chat
	srv  *llmtest.Server
	dir  string
	out  bytes.Buffer // what the program wrote, read so far
	home string
	f    *Factory
	left bool // the chat was left (c.leave): nothing to close

	width, height int
}

// screen is what a terminal of the rig's size shows after what the
// program wrote so far: its scrollback, then its screen (the last height
// rows), colours stripped.
func (r *tuiRig) screen() (scrollback, screen []string) {
	r.out.ReadFrom(r.tm.Output())
	s := &testio.Screen{Width: r.width, Height: r.height, ONLCR: true} // its input is no terminal: Bubble Tea expects \n to return too
	s.Write(r.out.Bytes())
	lines := strings.Split(s.String(), "\n")
	cut := min(s.Scrolled(), len(lines))
	return lines[:cut], lines[cut:]
}

// leave quits the program and leaves the chat as tuiRun does.
func (r *tuiRig) leave() string {
	r.t.Helper()
	r.tm.Quit()
	r.tm.WaitFinished(r.t, teatest.WithFinalTimeout(30*time.Second))
	r.left = true
	if err := r.c.Leave(r.t.Context()); err != nil {
		r.t.Fatal(err)
	}
	return r.f.IO.ErrOut.(*bytes.Buffer).String()
}

type tuiRigOptions struct {
	scenario      string
	width, height int
	canAsk        bool
	approval      string // --approval ("" = the configuration's)
	env           map[string]string
	config        string            // $YAGENT_HOME/config.yaml ("" = none)
	homeFiles     map[string]string // more files under $YAGENT_HOME
	// home and dir reuse another rig's (a session it left, to resume).
	home, dir string
	resume    string // the session to reopen
	// intro prints the greeting (and a resumed session's last turns)
	// first, as yagent does.
	intro bool
	// vt100 runs the program for a terminal of no special capabilities,
	// whose output testio.Screen draws (rig.screen).
	vt100 bool
}

// snapMsg asks the program for its current frame (answered by the
// program filter, in the program's goroutine).
type snapMsg struct{ ch chan string }

func startTUI(t *testing.T, o tuiRigOptions) *tuiRig {
	t.Helper()
	if o.width == 0 {
		o.width, o.height = 80, 24
	}
	srv := llmtest.NewTestServer(t, filepath.Join("..", "..", "testdata", "scenarios", o.scenario))
	home, dir := o.home, o.dir
	if home == "" {
		home, dir = t.TempDir(), t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/demo\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{
		"HOME": home, "YAGENT_HOME": filepath.Join(home, ".yagent"), "YAGENT_NOTES_ROOT": filepath.Join(home, "notes"),
		"OPENAI_BASE_URL": srv.URL(), "YAGENT_MODEL": "scripted",
	}
	for k, v := range o.env {
		env[k] = v
	}
	if o.config != "" {
		mkfile(t, filepath.Join(env["YAGENT_HOME"], "config.yaml"), o.config)
	}
	for name, text := range o.homeFiles {
		mkfile(t, filepath.Join(env["YAGENT_HOME"], name), text)
	}
	f := NewFactory(&iostreams.IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}, InTTY: o.canAsk, ErrTTY: o.canAsk})
	f.Dir = dir
	f.Getenv = func(k string) string { return env[k] }
	t.Cleanup(func() { f.Close() })
	b := &chat.Backend{}
	var intro func() string
	if o.intro {
		intro = func() string { return b.Chat.Intro(t.Context()) }
	}
	clock := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	cfg, err := f.Config()
	if err != nil {
		t.Fatal(err)
	}
	custom, _ := chat.LoadCustom(cfg, dir)
	model, sink, ask := tui.NewModel(tui.Options{
		Backend: b, Env: []string{"NO_COLOR=1", "TERM=xterm"}, Workspace: dir,
		HistoryPath: chat.PromptHistoryPath(env["YAGENT_HOME"], dir), Commands: append(chat.Commands(), chat.CustomNames(custom)...),
		Now: func() time.Time { return clock }, Intro: intro,
	})
	c, err := chat.OpenTUI(t.Context(), chatConfig(f, &chatOptions{Agent: agentFlags{Approval: flagvalue.Approval(o.approval)}, Resume: o.resume}, cfg), sink, ask)
	if err != nil {
		t.Fatal(err)
	}
	b.Chat = c
	popts := []tea.ProgramOption{tea.WithFilter(func(m tea.Model, msg tea.Msg) tea.Msg {
		if s, ok := msg.(snapMsg); ok {
			s.ch <- m.View().Content
			return nil
		}
		return msg
	})}
	if o.vt100 {
		popts = append(popts, tea.WithEnvironment([]string{"TERM=vt100"}))
	}
	tm := teatest.NewTestModel(t, model, teatest.WithInitialTermSize(o.width, o.height), teatest.WithProgramOptions(popts...))
	sink.Attach(tm.GetProgram())
	r := &tuiRig{t: t, tm: tm, c: c, srv: srv, dir: dir, home: home, f: f, width: o.width, height: o.height}
	t.Cleanup(func() {
		tm.Quit()
		tm.WaitFinished(t, teatest.WithFinalTimeout(30*time.Second))
		if !r.left {
			c.Close()
		}
	})
	return r
}

// frame is what the program draws now: colours stripped, trailing blanks
// and the spinner's glyph normalised.
func (r *tuiRig) frame() string {
	ch := make(chan string, 1)
	r.tm.Send(snapMsg{ch: ch})
	select {
	case s := <-ch:
		return normaliseFrame(s)
	case <-time.After(30 * time.Second):
		r.t.Fatal("the program did not answer for its frame")
		return ""
	}
}

// rawFrame waits until the frame, as the program draws it (nothing
// stripped), satisfies ok and returns it.
func (r *tuiRig) rawFrame(what string, ok func(string) bool) string {
	r.t.Helper()
	var last string
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		ch := make(chan string, 1)
		r.tm.Send(snapMsg{ch: ch})
		select {
		case last = <-ch:
		case <-time.After(30 * time.Second):
			r.t.Fatal("the program did not answer for its frame")
		}
		if ok(last) {
			return last
		}
	}
	r.t.Fatalf("the frame never showed %s; it shows:\n%q", what, last)
	return ""
}

var spinnerGlyph = regexp.MustCompile(`(?m)^[|/\\-] working`)

func normaliseFrame(s string) string {
	lines := strings.Split(ansi.Strip(s), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return spinnerGlyph.ReplaceAllString(strings.Join(lines, "\n"), "* working")
}

// waitFrame waits until the frame satisfies ok and returns it.
func (r *tuiRig) waitFrame(what string, ok func(string) bool) string {
	r.t.Helper()
	var last string
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if last = r.frame(); ok(last) {
			return last
		}
	}
	r.t.Fatalf("the frame never showed %s; it shows:\n%s", what, last)
	return ""
}

// idle waits until no turn runs (the status line offers /help again).
func (r *tuiRig) idle() string {
	r.t.Helper()
	return r.waitFrame("an idle status line", func(s string) bool { return strings.Contains(s, "/help") })
}

func (r *tuiRig) key(k string) {
	msgs := map[string]tea.KeyPressMsg{
		"enter":  {Code: tea.KeyEnter},
		"esc":    {Code: tea.KeyEscape},
		"ctrl+c": {Code: 'c', Mod: tea.ModCtrl},
		"ctrl+j": {Code: 'j', Mod: tea.ModCtrl},
		"left":   {Code: tea.KeyLeft},
		"bs":     {Code: tea.KeyBackspace},
		"tab":    {Code: tea.KeyTab},
		"up":     {Code: tea.KeyUp},
		"ctrl+o": {Code: 'o', Mod: tea.ModCtrl},
	}
	m, ok := msgs[k]
	if !ok {
		r.t.Fatalf("no key %q", k)
	}
	r.tm.Send(m)
}

// requireGolden compares got with testdata/<test name>.golden (-update
// rewrites it).
func requireGolden(t *testing.T, got string) {
	t.Helper()
	path := filepath.Join("testdata", strings.ReplaceAll(t.Name(), "/", "_")+".golden")
	if updating() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -run %s -update writes it)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("frame differs from %s:\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// userMessages are the prompts the scripted model received, in order.
func userPrompts(r *tuiRig) []string {
	var out []string
	for _, m := range r.c.Session().History() {
		if m.Role == llm.RoleUser {
			out = append(out, m.Content)
		}
	}
	return out
}

// TestTUIPasteIsOneTurn: a bracketed paste of three lines is one piece of
// the prompt; Enter sends it as one turn (one request, one user message).
func TestTUIPasteIsOneTurn(t *testing.T) {
	r := startTUI(t, tuiRigOptions{scenario: "tui-turns.yaml"})
	r.idle()
	r.tm.Send(tea.PasteMsg{Content: "first line\nsecond line\nthird line"})
	requireGolden(t, r.frame())
	r.key("enter")
	r.waitFrame("the turn's end", func(s string) bool { return strings.Contains(s, "tok · /help") })
	if n := len(r.srv.Requests()); n != 1 {
		t.Errorf("the paste took %d requests; want 1", n)
	}
	if got, want := userPrompts(r), []string{"first line\nsecond line\nthird line"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("user messages = %q; want %q", got, want)
	}
}

// TestTUILongPasteIntact: a 20 000-character paste (with control
// characters a terminal could send) reaches the rollout whole, sanitised.
func TestTUILongPasteIntact(t *testing.T) {
	r := startTUI(t, tuiRigOptions{scenario: "tui-turns.yaml"})
	r.idle()
	var b strings.Builder
	for i := 0; b.Len() < 20000; i++ {
		fmt.Fprintf(&b, "line %05d of a long paste: the quick brown fox jumps over the lazy dog\n", i)
	}
	text := strings.TrimSuffix(b.String()[:20000], "\n")
	r.tm.Send(tea.PasteMsg{Content: "\x1b[31m" + text + "\x07\x1b[0m"})
	requireGolden(t, r.frame())
	r.key("enter")
	r.waitFrame("the turn's end", func(s string) bool { return strings.Contains(s, "tok · /help") })
	got := userPrompts(r)
	if len(got) != 1 || got[0] != text {
		n := 0
		if len(got) > 0 {
			n = len(got[0])
		}
		t.Fatalf("the rollout holds %d prompts, the first of %d bytes; want one of %d bytes, the paste without its control characters", len(got), n, len(text))
	}
	if n := len(r.srv.Requests()); n != 1 {
		t.Errorf("the paste took %d requests; want 1", n)
	}
}

// TestTUIResize: the composer follows the terminal's width.
func TestTUIResize(t *testing.T) {
	r := startTUI(t, tuiRigOptions{scenario: "tui-turns.yaml", width: 100})
	r.idle()
	r.tm.Type(strings.Repeat("word ", 25))
	wide := r.frame()
	r.tm.Send(tea.WindowSizeMsg{Width: 44, Height: 24})
	narrowFrame := r.frame()
	if wide == narrowFrame {
		t.Fatal("the frame did not change with the width")
	}
	for _, l := range strings.Split(narrowFrame, "\n") {
		if w := ansi.StringWidth(l); w > 44 {
			t.Errorf("a line of %d cells in a 44-column terminal: %q", w, l)
		}
	}
	requireGolden(t, narrowFrame)
}

// TestTUICJKEdit: wide characters are edited as characters, two cells each.
func TestTUICJKEdit(t *testing.T) {
	r := startTUI(t, tuiRigOptions{scenario: "tui-turns.yaml", width: 40})
	r.idle()
	r.tm.Type("你好世界")
	r.key("left")
	r.key("left")
	r.key("bs")
	r.tm.Type("们")
	frame := r.frame()
	requireGolden(t, frame)
	r.key("enter")
	r.waitFrame("the turn's end", func(s string) bool { return strings.Contains(s, "tok · /help") })
	if got := userPrompts(r); len(got) != 1 || got[0] != "你们世界" {
		t.Errorf("user messages = %q; want [你们世界]", got)
	}
}

// TestTUICtrlC: Ctrl-C clears a typed line; on an empty composer it warns,
// and a second one quits; during a step it cancels the step and stays.
func TestTUICtrlC(t *testing.T) {
	r := startTUI(t, tuiRigOptions{scenario: "tui-turns.yaml"})
	r.idle()
	r.tm.Type("half a thought")
	r.key("ctrl+c")
	if f := r.frame(); strings.Contains(f, "half a thought") {
		t.Fatalf("Ctrl-C left the typed line:\n%s", f)
	}
	r.tm.Type("slow please")
	r.key("enter")
	r.waitFrame("the running step", func(s string) bool { return strings.Contains(s, "esc to interrupt") })
	for deadline := time.Now().Add(30 * time.Second); len(r.srv.Requests()) == 0 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	r.key("ctrl+c") // the composer is empty: cancel the step, stay
	r.idle()
	r.key("ctrl+c")
	armed := r.frame()
	if !strings.Contains(armed, "Ctrl-C again to quit") {
		t.Fatalf("one Ctrl-C on an empty composer shows no warning:\n%s", armed)
	}
	requireGolden(t, armed)
	r.key("ctrl+c")
	r.tm.WaitFinished(t, teatest.WithFinalTimeout(30*time.Second))
	if n := len(r.srv.Requests()); n != 1 {
		t.Errorf("the model got %d requests; want 1 (the cancelled step)", n)
	}
}

// TestTUIStatusSlowStep: while a slow step runs the status line shows the
// spinner, the elapsed time, "esc to interrupt", the model and the
// context use; Esc interrupts the step.
func TestTUIStatusSlowStep(t *testing.T) {
	r := startTUI(t, tuiRigOptions{scenario: "tui-turns.yaml"})
	r.idle()
	r.tm.Type("slow please")
	r.key("enter")
	frame := r.waitFrame("the running step", func(s string) bool { return strings.Contains(s, "esc to interrupt") })
	requireGolden(t, frame)
	r.key("esc")
	start := time.Now()
	r.idle()
	// The step's answer is 30 s away (tui-turns.yaml): half of that is far
	// more than a loaded machine needs to stop it, far less than waiting.
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("Esc took %s to stop the step", d)
	}
	out := readAll(r, "cancelled")
	if !strings.Contains(out, "cancelled") {
		t.Errorf("the transcript does not say the step was cancelled:\n%s", out)
	}
}

// readAll is what the program printed so far (the scrollback and frames),
// once it holds every one of want (or after 30 s).
func readAll(r *tuiRig, want ...string) string { return readAllWithin(r, 30*time.Second, want...) }

// readAllWithin is readAll with its own deadline (a long transcript is
// printed a screenful per frame: slow on a loaded machine).
func readAllWithin(r *tuiRig, d time.Duration, want ...string) string {
	for deadline := time.Now().Add(d); ; time.Sleep(20 * time.Millisecond) {
		r.out.ReadFrom(r.tm.Output())
		s := ansi.Strip(r.out.String())
		missing := false
		for _, w := range want {
			missing = missing || !strings.Contains(s, w)
		}
		if !missing || time.Now().After(deadline) {
			return s
		}
	}
}

// TestTUIParallelSubAgents: two explorers run at once; the status line
// lists them apart, with their steps and last tools.
func TestTUIParallelSubAgents(t *testing.T) {
	r := startTUI(t, tuiRigOptions{scenario: "tui-parallel.yaml", width: 100})
	r.idle()
	r.tm.Type("explore")
	r.key("enter")
	frame := r.waitFrame("two explorers that have read", func(s string) bool {
		return strings.Count(s, "read_file") == 2 && strings.Contains(s, "explorer#1") && strings.Contains(s, "explorer#2")
	})
	// Which explorer starts first is the scheduler's choice: each task has
	// its own number, and the golden frame holds them numbered in task order.
	labels := regexp.MustCompile(`explorer#(\d) · (map the packages|read the license)`).FindAllStringSubmatch(frame, -1)
	if len(labels) != 2 || labels[0][1] == labels[1][1] {
		t.Fatalf("the two explorers are not numbered apart:\n%s", frame)
	}
	frame = regexp.MustCompile(`explorer#\d · `).ReplaceAllString(frame, "explorer#N · ")
	lines := strings.Split(frame, "\n")
	slices.Sort(lines[:2])
	frame = strings.Join(lines, "\n")
	requireGolden(t, frame)
	r.idle()
	wants := []string{"⇢ explorer#1:", "⇢ explorer#2:", "⇠ explorer#1 ok", "⇠ explorer#2 ok"}
	out := readAll(r, wants...)
	for _, want := range wants {
		if !strings.Contains(out, want) {
			t.Errorf("the transcript lacks %q:\n%s", want, out)
		}
	}
}

// TestTUIApprovalModal: a shell command asks through a modal; Esc is no,
// and the step goes on with the refusal.
func TestTUIApprovalModal(t *testing.T) {
	r := startTUI(t, tuiRigOptions{scenario: "tui-approval.yaml", canAsk: true})
	r.idle()
	r.tm.Type("make a file")
	r.key("enter")
	frame := r.waitFrame("the approval modal", func(s string) bool { return strings.Contains(s, "allow? [y]es") })
	requireGolden(t, strings.ReplaceAll(frame, r.dir, "$WORK"))
	r.key("esc")
	r.idle()
	if _, err := os.Stat(filepath.Join(r.dir, "out.txt")); err == nil {
		t.Error("the declined command ran")
	}
	out := readAll(r, "approval: no", "Understood")
	if !strings.Contains(out, "approval: no") || !strings.Contains(out, "Understood") {
		t.Errorf("the transcript lacks the refusal or the answer:\n%s", out)
	}
}

// TestTUIApprovalTellInstead (issue 32 item 6): at the modal, t asks for
// what the model should do instead; Enter sends it as the refusal, which
// the model reads in the tool's result, and the transcript shows it.
func TestTUIApprovalTellInstead(t *testing.T) {
	r := startTUI(t, tuiRigOptions{scenario: "tui-approval.yaml", canAsk: true})
	r.idle()
	r.tm.Type("make a file")
	r.key("enter")
	r.waitFrame("the approval modal", func(s string) bool { return strings.Contains(s, "[t]ell it what to do instead") })
	r.tm.Type("t")
	r.waitFrame("the question for the words", func(s string) bool { return strings.Contains(s, "tell it what to do instead (Enter sends") })
	r.tm.Type("write it with the write_file tool")
	r.key("enter")
	r.idle()
	if _, err := os.Stat(filepath.Join(r.dir, "out.txt")); err == nil {
		t.Error("the declined command ran")
	}
	reqs := r.srv.Requests()
	last := reqs[len(reqs)-1].Messages
	if got := last[len(last)-1].Content; !strings.Contains(got, "the person declined and said what to do instead: write it with the write_file tool") {
		t.Errorf("the model read %q; want the person's words as the refusal", got)
	}
	if out := readAll(r, "approval: no — write it"); !strings.Contains(out, "approval: no — write it with the write_file tool") {
		t.Errorf("the transcript lacks the person's words:\n%s", out)
	}
}

// TestTUIApprovalShowsCommandAsRun: the modal shows what the plain prompt
// shows (TestApprovalShowsCommandAsRun): a command whose carriage return
// and erase-line sequence would redraw the question as "? run `ls -la` in
// …" shows them as ␍ and ␛ with the command that runs, whole (not cut at
// the width); a command of two lines shows both. The frame is read as a
// terminal draws it (testio.Screen). Before, the modal drew `ls -la`.
func TestTUIApprovalShowsCommandAsRun(t *testing.T) {
	const width = 120
	r := startTUI(t, tuiRigOptions{scenario: "approval-spoof.yaml", canAsk: true, width: width, height: 30})
	r.idle()
	r.tm.Type("make a file")
	r.key("enter")
	screen := func(frame string) string {
		s := &testio.Screen{Width: width}
		s.Write([]byte(strings.ReplaceAll(frame, "\n", "\r\n")))
		return s.String()
	}
	shown := screen(r.rawFrame("the first question", func(s string) bool { return strings.Contains(s, "allow? [y]es") }))
	if want := "? run `touch pwned.txt #␍␛[2K? run `ls -la` in " + r.dir; !strings.Contains(shown, want) {
		t.Errorf("the modal does not show the command that runs, controls visible; want\n%s\nit shows:\n%s", want, shown)
	}
	for _, l := range strings.Split(shown, "\n") {
		if strings.HasPrefix(l, "? run `ls -la` in") {
			t.Errorf("the modal shows the spoofed question %q:\n%s", l, shown)
		}
	}
	r.tm.Type("n")
	shown = screen(r.rawFrame("the second question", func(s string) bool { return strings.Contains(s, "pwned2") }))
	if want := "? run `ls -la\n  │ touch pwned2.txt` in " + r.dir; !strings.Contains(shown, want) {
		t.Errorf("a command of two lines is not shown whole; want\n%s\nit shows:\n%s", want, shown)
	}
	r.tm.Type("n")
	r.idle()
	for _, f := range []string{"pwned.txt", "pwned2.txt"} {
		if _, err := os.Stat(filepath.Join(r.dir, f)); err == nil {
			t.Errorf("%s exists: a declined command ran", f)
		}
	}
}

// TestTUIApprovalShowsDiff: under --approval untrusted a write is asked
// about with its diff in the modal; "always" is not offered for a write
// (it has no command prefix), so a is ignored; y lets the write happen.
func TestTUIApprovalShowsDiff(t *testing.T) {
	r := startTUI(t, tuiRigOptions{scenario: "tui-approval-write.yaml", canAsk: true, approval: "untrusted"})
	if err := os.WriteFile(filepath.Join(r.dir, "notes.txt"), []byte("alpha\nbeta\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.idle()
	r.tm.Type("fix the notes")
	r.key("enter")
	frame := r.waitFrame("the approval modal", func(s string) bool { return strings.Contains(s, "allow? [y]es") })
	for _, want := range []string{"notes.txt", "-beta", "+BETA"} {
		if !strings.Contains(frame, want) {
			t.Errorf("the modal lacks %q:\n%s", want, frame)
		}
	}
	if strings.Contains(frame, "[a]lways") {
		t.Errorf("the modal offers always for a write:\n%s", frame)
	}
	r.tm.Type("a")
	r.tm.Type("y")
	r.idle()
	readAll(r, "Written.")
	if b, err := os.ReadFile(filepath.Join(r.dir, "notes.txt")); err != nil || string(b) != "alpha\nBETA\n" {
		t.Errorf("notes.txt = %q, %v; want the approved write", b, err)
	}
}

// TestTUISessionKeptOnlyWithATurn: a chat left without a turn leaves no
// session behind; one with a turn is kept, its last turns are shown when
// it is resumed, and the command that resumes it is printed.
func TestTUISessionKeptOnlyWithATurn(t *testing.T) {
	empty := startTUI(t, tuiRigOptions{scenario: "tui-turns.yaml"})
	empty.idle()
	if out := empty.leave(); strings.Contains(out, "yagent resume") {
		t.Errorf("an empty session printed a resume command: %q", out)
	}
	st, err := empty.f.Sessions(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if list, err := st.List(t.Context(), memory.ListOptions{All: true}); err != nil || len(list) != 0 {
		t.Errorf("sessions after an empty chat = %v, %v; want none", list, err)
	}

	r := startTUI(t, tuiRigOptions{scenario: "tui-turns.yaml"})
	r.idle()
	r.tm.Type("what is here?")
	r.key("enter")
	r.waitFrame("the turn's end", func(s string) bool { return strings.Contains(s, "tok · /help") })
	intro := r.c.Intro(t.Context())
	for _, want := range []string{"› what is here?", "**Got it.** One turn."} {
		if !strings.Contains(intro, want) {
			t.Errorf("the transcript shown on resume lacks %q:\n%s", want, intro)
		}
	}
	id := r.c.Session().ID()
	if out := r.leave(); !strings.Contains(out, "yagent resume "+id) {
		t.Errorf("leaving printed %q; want the resume command", out)
	}
}

// TestTUIResumePicker: /resume without an id opens the picker over this
// directory's sessions, the current one marked; Esc closes it.
func TestTUIResumePicker(t *testing.T) {
	r := startTUI(t, tuiRigOptions{scenario: "tui-turns.yaml"})
	r.idle()
	r.tm.Type("first question")
	r.key("enter")
	r.waitFrame("the turn's end", func(s string) bool { return strings.Contains(s, "tok · /help") })
	r.tm.Type("/resume")
	r.key("enter")
	frame := r.waitFrame("the picker", func(s string) bool { return strings.Contains(s, "resume which session?") })
	if !strings.Contains(frame, "› ") || !strings.Contains(frame, "(this session)") || !strings.Contains(frame, "first question") {
		t.Errorf("the picker frame:\n%s", frame)
	}
	r.key("esc")
	r.idle()
}

// TestTUIReportsBackground (scenario tui-background.yaml): a background
// delegation that lands while the person is idle shows in the transcript
// and, with agents.on_background_done: report (the default), starts a turn
// that reports it — whose request lists it as finished since the last
// call; with wait, no turn starts.
func TestTUIReportsBackground(t *testing.T) {
	for _, tt := range []struct {
		config string
		report bool
	}{
		{"", true},
		{"agents:\n  on_background_done: wait\n", false},
	} {
		t.Run(strconv.FormatBool(tt.report), func(t *testing.T) {
			r := startTUI(t, tuiRigOptions{scenario: "tui-background.yaml", config: tt.config})
			r.idle()
			r.tm.Type("BG: name the module in the background")
			r.key("enter")
			out := readAll(r, "Started it in the background.", "⇠ explorer#1 ok")
			if !strings.Contains(out, "⇠ explorer#1 ok") {
				t.Fatalf("the transcript does not show the explorer landing:\n%s", out)
			}
			if !tt.report {
				time.Sleep(time.Second) // a report turn would have started by now
				if out := readAll(r); strings.Contains(out, "background delegations finished") || slices.ContainsFunc(r.srv.Requests(), func(q llmtest.Recorded) bool { return q.StepID == "report" }) {
					t.Fatalf("on_background_done: wait started a turn:\n%s", out)
				}
				return
			}
			out = readAll(r, "⟲ background delegations finished", "REPORTED: the explorer named the module.")
			if !strings.Contains(out, "REPORTED: the explorer named the module.") {
				t.Fatalf("no turn reported the background delegation:\n%s", out)
			}
			for _, q := range r.srv.Requests() {
				if q.StepID == "report" && !strings.Contains(q.Messages[len(q.Messages)-1].Content, "[background · finished since your last call] 1 ") {
					t.Errorf("the report turn's request does not list the delegation as finished:\n%s", q.Messages[len(q.Messages)-1].Content)
				}
			}
		})
	}
}

// TestTUICustomCommand (issue 31 item 3): the person's command file is
// /review in the TUI: Tab completes it, and `/review src` runs a turn
// (the status line says so, Esc interrupts it) whose prompt has
// $ARGUMENTS expanded.
func TestTUICustomCommand(t *testing.T) {
	r := startTUI(t, tuiRigOptions{scenario: "tui-turns.yaml", homeFiles: map[string]string{
		"commands/review.md": "---\ndescription: Review a directory\n---\nReview the code in $ARGUMENTS for bugs, slow please.\n"}})
	r.idle()
	r.tm.Type("/revi")
	r.key("tab")
	r.waitFrame("/review completed", func(s string) bool { return strings.Contains(s, "/review") })
	r.tm.Type(" src")
	r.key("enter")
	if last := r.interruptedPrompt(); !strings.Contains(last, "Review the code in src for bugs, slow please.") {
		t.Errorf("the turn's prompt = %q; want $ARGUMENTS expanded", last)
	}
}

// interruptedPrompt waits for the turn just started to run and reach the
// model, interrupts it (Esc) and returns the prompt of its one request.
func (r *tuiRig) interruptedPrompt() string {
	r.t.Helper()
	r.waitFrame("the running step", func(s string) bool { return strings.Contains(s, "esc to interrupt") })
	for deadline := time.Now().Add(30 * time.Second); len(r.srv.Requests()) == 0 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	r.key("esc")
	r.idle()
	reqs := r.srv.Requests()
	if len(reqs) != 1 {
		r.t.Fatalf("the model got %d requests; want 1", len(reqs))
	}
	msgs := reqs[0].Messages
	return msgs[len(msgs)-1].Content
}

// TestTUIMCPPrompt (issue 31 item 6): /server:prompt name=value in the
// TUI fetches the MCP server's prompt and sends it as the turn, as the
// plain chat does; a server that is not configured makes it an unknown
// command, a prompt the server lacks is the server's error; once the
// server runs, Tab completes its prompts.
func TestTUIMCPPrompt(t *testing.T) {
	r := startTUI(t, tuiRigOptions{scenario: "tui-turns.yaml", vt100: true,
		config: "kb:\n  enabled: false\nmcp_servers:\n  helper:\n    command: mcp-test-server\n    env: {MCPTEST_SERVER: \"1\"}\n    timeout: 20s\n"})
	r.idle()
	for _, tc := range []struct{ line, want string }{
		{"/nobody:review", "unknown command /nobody:review"},
		{"/helper:nothing", `unknown prompt "nothing"`},
	} {
		r.tm.Type(tc.line)
		r.key("enter")
		var shown string
		for deadline := time.Now().Add(20 * time.Second); !strings.Contains(shown, tc.want) && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			sb, sc := r.screen()
			shown = strings.Join(append(sb, sc...), "") // rows joined: a line wraps at 80 columns
		}
		if !strings.Contains(shown, tc.want) {
			t.Fatalf("the terminal shows:\n%s\nwant %s refused: %s", shown, tc.line, tc.want)
		}
	}
	r.tm.Type("/helper:review path=src")
	r.key("enter")
	if last := r.interruptedPrompt(); !strings.Contains(last, "Review the code under src.") {
		t.Errorf("the turn's prompt = %q; want the server's prompt with path=src", last)
	}
	// The server runs now: after the turn, Tab offers its prompts.
	r.tm.Type("/helper:rev")
	r.key("tab")
	r.waitFrame("/helper:review completed", func(s string) bool { return strings.Contains(s, "/helper:review") })
}

// transcriptGolden is a terminal's whole content as a golden file holds
// it: the scrollback and the screen, without the blank rows left under
// the last frame (how many depends on the tallest frame drawn, which is
// the scheduler's choice).
func transcriptGolden(scrollback, screen []string) string {
	return strings.TrimRight(strings.Join(append(slices.Clone(scrollback), screen...), "\n"), "\n") + "\n"
}

// TestTUILongAnswer (issue 32 item 1): a 300-line answer in a terminal of
// 24 rows reaches the scrollback whole and in order (the golden file holds
// the terminal's content), printed in pieces
// that fit above the frame; no frame of the running turn (its spinner) is
// left in the scrollback. Before, one Println of the whole answer lost
// lines 292–300 and left the spinner behind.
func TestTUILongAnswer(t *testing.T) {
	r := startTUI(t, tuiRigOptions{scenario: "tui-transcript.yaml", vt100: true, config: "agents:\n  sandbox: off\n"})
	r.idle()
	r.tm.Type("give me 300 lines")
	r.key("enter")
	// The program is quit from outside (teatest), which drops what it has
	// not printed yet: wait for the last line, however slow the machine.
	readAllWithin(r, 90*time.Second, "line 300 of a long answer", "── ")
	r.idle()
	r.leave()
	scrollback, screen := r.screen()
	all := strings.Join(append(scrollback, screen...), "\n")
	last := -1
	for i := 1; i <= 300; i++ {
		line := fmt.Sprintf("line %03d of a long answer", i)
		if n := strings.Count(all, line); n != 1 {
			t.Errorf("%q is shown %d times; want once", line, n)
			continue
		}
		at := strings.Index(all, line)
		if at < last {
			t.Errorf("%q is shown before the line above it", line)
		}
		last = at
	}
	for _, l := range scrollback {
		if strings.Contains(l, "working") || strings.Contains(l, "esc to interrupt") {
			t.Errorf("a frame of the running turn is left in the scrollback: %q", l)
		}
	}
	requireGolden(t, transcriptGolden(scrollback, screen))
}

// TestTUIResumeFreshTerminal (issue 32 item 1): a session of ten turns
// resumed in a fresh terminal of 120×24 shows, on its screen, the
// session's banners first (the sandbox), then the greeting, then its last
// turns — the conversation the person comes back to is what they read
// last. Before, the transcript was printed before the sandbox banner and
// in one piece, before the first frame, scrolled off the screen.
func TestTUIResumeFreshTerminal(t *testing.T) {
	sandboxOff := "agents:\n  sandbox: off\n"
	first := startTUI(t, tuiRigOptions{scenario: "tui-transcript.yaml", config: sandboxOff})
	first.idle()
	for i := 1; i <= 10; i++ {
		first.tm.Type(fmt.Sprintf("turn %d please", i))
		first.key("enter")
		for deadline := time.Now().Add(30 * time.Second); len(first.srv.Requests()) < i && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
		first.idle()
	}
	id := first.c.Session().ID()
	board := first.c.Session().Info().BoardID
	first.leave()

	r := startTUI(t, tuiRigOptions{scenario: "tui-transcript.yaml", config: sandboxOff, home: first.home, dir: first.dir,
		resume: id, intro: true, vt100: true, width: 120, height: 24})
	r.idle()
	readAll(r, "› turn 10 please")
	r.idle()
	r.leave()
	scrollback, screen := r.screen()
	shown := strings.Join(screen, "\n")
	banner, greeting, last := strings.Index(shown, "sandbox: off"), strings.Index(shown, "resumed session"), strings.Index(shown, "› turn 10 please")
	if banner < 0 || greeting < banner || last < greeting {
		t.Errorf("the screen does not show the banner, the greeting, then the last turn:\n%s", shown)
	}
	if len(scrollback) > 0 { // blank rows too: the first lines were printed at the bottom of the screen
		t.Errorf("%d rows scrolled off the screen of a fresh terminal:\n%s", len(scrollback), strings.Join(scrollback, "\n"))
	}
	requireGolden(t, strings.NewReplacer(id, "$ID", board, "$BOARD").Replace(transcriptGolden(nil, screen)))
}

// changesRig runs one prompt of tui-changes.yaml in a terminal of 100×30,
// presses key (if any) once it is done and waits for shown, and returns
// the terminal's content, scrollback and screen (a command's time
// normalised).
func changesRig(t *testing.T, prompt, key, shown string) string {
	t.Helper()
	r := startTUI(t, tuiRigOptions{scenario: "tui-changes.yaml", vt100: true, width: 100, height: 30,
		config: "agents:\n  sandbox: off\n  allow_shell: true\n  approval: never\n"})
	r.idle()
	r.tm.Type(prompt)
	r.key("enter")
	readAll(r, "── ")
	r.idle()
	if key != "" {
		r.key(key)
		readAll(r, shown)
	}
	r.idle()
	r.leave()
	scrollback, screen := r.screen()
	return regexp.MustCompile(`(exit \d+), [\d.]+m?s`).ReplaceAllString(transcriptGolden(scrollback, screen), "$1, 5ms")
}

// TestTUIWriteDiff (issue 32 item 2): a write shows its diff under its
// result, collapsed past 12 lines; Ctrl-O prints it whole.
func TestTUIWriteDiff(t *testing.T) {
	got := changesRig(t, "write the notes", "ctrl+o", "+line 20")
	for _, want := range []string{"✓ created, 160 bytes", "@@ -0,0 +1,20 @@", "+line 01", "… 10 more lines (ctrl+o shows them)", "+line 20"} {
		if !strings.Contains(got, want) {
			t.Errorf("the transcript lacks %q:\n%s", want, got)
		}
	}
	requireGolden(t, got)
}

// TestTUICommandOutput (issue 32 item 2): a command shows its first and
// last lines of output and its exit code.
func TestTUICommandOutput(t *testing.T) {
	got := changesRig(t, "count to thirty", "", "")
	for _, want := range []string{"✗ exit 3", "    1\n", "    5\n", "… 21 more lines", "    30\n", "    done\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("the transcript lacks %q:\n%s", want, got)
		}
	}
	requireGolden(t, got)
}

// TestTUIReasoningFolded (issue 32 item 2): the lead's reasoning is shown
// dimmed, folded to one line before the answer; Ctrl-O prints it whole.
func TestTUIReasoningFolded(t *testing.T) {
	got := changesRig(t, "think first", "ctrl+o", "  Last, check the tests that pin it.")
	for _, want := range []string{"∴ The person asks for a plan.", "(4 lines · ctrl+o)", "  Last, check the tests that pin it.", "Here is the plan."} {
		if !strings.Contains(got, want) {
			t.Errorf("the transcript lacks %q:\n%s", want, got)
		}
	}
	if strings.Index(got, "∴ ") > strings.Index(got, "Here is the plan.") {
		t.Errorf("the reasoning is shown after the answer:\n%s", got)
	}
	requireGolden(t, got)
}
