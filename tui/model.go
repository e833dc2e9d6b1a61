package tui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"charm.land/bubbles/v2/spinner"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/agents/eventline"
	"github.com/yagent/yagent/internal/brief"
	"github.com/yagent/yagent/internal/termsafe"
)

// narrow is the width below which the program draws plain lines.
const narrow = 40

// model is the Bubble Tea model of the interactive mode.
type model struct {
	o      Options
	sink   *Sink
	ta     textarea.Model
	spin   spinner.Model
	width  int
	height int
	plain  bool // TERM=dumb or NO_COLOR: no colours, no glyph art
	st     styles
	more   []string // commands a Completer offers beside Options.Commands

	// the running turn
	running    bool
	cancelling bool
	started    time.Time
	cancel     context.CancelFunc
	turns      sync.WaitGroup  // turns whose goroutine has not returned
	live       strings.Builder // the lead's text of the current model call, rendered safe
	liveSafe   termsafe.Stream // renders live as it streams
	reason     strings.Builder // the lead's reasoning of the current model call, rendered safe
	reasonSafe termsafe.Stream
	// folded is the last thing shown collapsed (a diff, an output, the
	// reasoning), whole, for Ctrl-O to print.
	folded     []string
	dels       []*delegation  // running delegations, in start order
	view       eventline.View // the lines of events; labels delegations (explorer#2)
	turnTokens int

	// the session
	status Status
	usage  agents.UsageEvent // every request of the session so far

	// the composer
	hist   *history
	histAt int    // -1: not browsing
	draft  string // what was typed before browsing began
	pastes []string
	armed  bool   // one Ctrl-C on an empty composer: the next quits
	hint   string // one line under the composer
	modal  *askMsg
	pick   *picker // the /resume picker, when open
	quit   bool

	// out holds lines for the scrollback; one print is in flight at a
	// time so lines keep their order.
	out      []string
	printing bool
	sized    bool // the terminal's size came: the first frame is being drawn
	ready    bool // the first frame is drawn (or no size came): lines may print
	tallest  int  // the tallest frame since the person last sent something
}

// delegation is a running sub-agent on the status line.
type delegation struct {
	callID, label, task, lastTool string
	steps                         int
}

type turnDoneMsg struct{ err error }
type commandDoneMsg struct {
	out  string
	quit bool
	err  error
}

// moreCommandsMsg is a Completer's commands, asked after a turn.
type moreCommandsMsg struct{ cmds []string }

// promptMsg is a Prompter's answer for a command line.
type promptMsg struct {
	name, prompt string
	ok           bool
	err          error
}
type printedMsg struct{}
type pickRowsMsg struct {
	rows []Session
	all  bool
	err  error
}
type editedMsg struct {
	text string
	err  error
}

func newModel(o Options, sink *Sink) *model {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Context == nil {
		o.Context = context.Background()
	}
	plain := Plain(o.Env) || getenv(o.Env, "NO_COLOR") != ""
	m := &model{o: o, sink: sink, plain: plain, histAt: -1}
	m.st = newStyles(plain)
	m.ta = textarea.New()
	m.ta.ShowLineNumbers = false
	m.ta.Placeholder = "Ask anything · / for commands · @ attaches a file"
	m.ta.SetPromptFunc(2, func(pi textarea.PromptInfo) string {
		if pi.LineNumber == 0 {
			return "› "
		}
		return "  "
	})
	m.ta.KeyMap.InsertNewline.SetEnabled(false) // Enter sends; Shift+Enter and Ctrl-J break lines
	m.ta.DynamicHeight = true
	m.ta.MinHeight = 1
	m.ta.MaxHeight = 10
	m.ta.MaxContentHeight = 1 << 20
	m.ta.CharLimit = 0
	m.ta.SetStyles(textareaStyles(plain))
	m.ta.Focus()
	m.spin = spinner.New(spinner.WithSpinner(spinner.Dot))
	if plain {
		m.spin = spinner.New(spinner.WithSpinner(spinner.Line))
	}
	m.view.Details, m.view.More = eventline.DetailLines, "ctrl+o shows them"
	m.hist = loadHistory(o.HistoryPath)
	m.status.ContextPct = -1
	m.setWidth(o.Width)
	m.height = o.Height
	return m
}

func (m *model) Init() tea.Cmd {
	if m.o.Backend != nil {
		m.status = m.o.Backend.Status()
	}
	// The session's setup notices (the sandbox, skipped files) first, then
	// the greeting and a resumed session's last turns: what the person
	// reads last is the conversation they come back to.
	for _, e := range m.sink.takeEarly() {
		m.event(e)
	}
	if m.o.Intro != nil {
		if s := m.o.Intro(); s != "" {
			m.print(termsafe.Text(s))
		}
	}
	// Lines wait for the first frame, drawn once the terminal's size is
	// known (it says how many lines fit at once, chunk): Bubble Tea prints
	// above the frame it drew, and before one it takes the whole screen
	// for the frame — the first lines would land at the bottom of a fresh
	// terminal and scroll away. A terminal that never tells its size gets
	// them after a second.
	return tea.Batch(m.flush(), readyAfter(time.Second))
}

// readyMsg ends the wait for the first frame.
type readyMsg struct{}

func readyAfter(d time.Duration) tea.Cmd {
	return tea.Tick(d, func(time.Time) tea.Msg { return readyMsg{} })
}

func (m *model) setWidth(w int) {
	if w <= 0 {
		w = 80
	}
	m.width = w
	m.view.Width = max(w-8, 20)
	m.ta.SetWidth(max(w-1, 10))
	// Plain lines show the terminal's own cursor, not a drawn one.
	m.ta.SetVirtualCursor(!m.bare())
}

// bare reports whether the frame is drawn without any attribute: NO_COLOR,
// TERM=dumb or a terminal narrower than 40 columns.
func (m *model) bare() bool { return m.plain || m.width < narrow }

func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmds []tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.setWidth(msg.Width)
		m.height = msg.Height
		if !m.ready && !m.sized {
			m.sized = true
			cmds = append(cmds, readyAfter(100*time.Millisecond)) // a few frames of Bubble Tea's
		}
	case tea.KeyPressMsg:
		if cmd, done := m.key(msg); done {
			return m, tea.Batch(cmd, m.flush())
		}
	case tea.PasteMsg:
		if m.modal != nil && m.modal.telling {
			m.modal.instead = append(m.modal.instead, []rune(strings.Join(strings.Fields(sanitize(msg.Content)), " "))...)
			return m, nil
		}
		m.paste(msg.Content)
		return m, m.flush()
	case readyMsg:
		m.ready = true
	case eventMsg:
		m.event(msg.e)
	case turnDoneMsg:
		m.turnDone(msg.err)
		cmds = append(cmds, m.report(), m.askMoreCommands())
	case moreCommandsMsg:
		m.more = msg.cmds
	case nudgeMsg:
		cmds = append(cmds, m.report())
	case promptMsg:
		cmds = append(cmds, m.prompted(msg))
	case commandDoneMsg:
		if msg.out != "" {
			m.print(termsafe.Text(strings.TrimRight(msg.out, "\n"))) // a note's text, a transcript
		}
		if msg.err != nil {
			m.print(m.st.err.Render("error: " + termsafe.Text(msg.err.Error())))
		}
		if m.o.Backend != nil {
			m.status = m.o.Backend.Status()
		}
		if msg.quit {
			m.quit = true
		}
	case askMsg:
		m.modal = &msg
		m.ta.Blur()
	case askDoneMsg:
		if m.modal != nil && m.modal.reply == msg.reply {
			m.closeModal(reply{d: decideNo}, "withdrawn")
		}
	case editedMsg:
		if msg.err != nil {
			m.hint = "editor: " + msg.err.Error()
		} else {
			m.ta.SetValue(strings.TrimRight(msg.text, "\n"))
		}
	case printedMsg:
		m.printing = false
	case pickRowsMsg:
		switch {
		case msg.err != nil:
			m.print(m.st.err.Render("error: " + termsafe.Text(msg.err.Error())))
		case len(msg.rows) == 0:
			m.print("no sessions to resume here (/resume --all shows every directory)")
		default:
			m.pick = &picker{rows: msg.rows, all: msg.all}
			m.ta.Blur()
		}
	case spinner.TickMsg:
		if m.running {
			var cmd tea.Cmd
			m.spin, cmd = m.spin.Update(msg)
			cmds = append(cmds, cmd)
		}
	default:
		var cmd tea.Cmd
		m.ta, cmd = m.ta.Update(msg)
		cmds = append(cmds, cmd)
	}
	cmds = append(cmds, m.flush())
	return m, tea.Batch(cmds...)
}

// key handles a key press; done reports that the textarea must not see it.
func (m *model) key(k tea.KeyPressMsg) (tea.Cmd, bool) {
	if m.pick != nil {
		done, id := m.pick.key(k)
		if !done {
			return nil, true
		}
		m.pick = nil
		m.ta.Focus()
		if id == "" {
			return nil, true
		}
		return m.command("/resume " + id), true
	}
	if m.modal != nil && m.modal.telling {
		switch k.String() {
		case "enter":
			text := strings.TrimSpace(string(m.modal.instead))
			m.closeModal(reply{d: decideNo, instead: text}, "no — "+termsafe.Line(text))
		case "esc":
			m.modal.telling, m.modal.instead = false, nil
		case "ctrl+c":
			m.closeModal(reply{d: decideNo}, "no")
		case "backspace":
			if n := len(m.modal.instead); n > 0 {
				m.modal.instead = m.modal.instead[:n-1]
			}
		default:
			m.modal.instead = append(m.modal.instead, []rune(k.Text)...)
		}
		return nil, true
	}
	if m.modal != nil {
		switch strings.ToLower(k.String()) {
		case "y":
			m.closeModal(reply{d: decideYes}, "yes")
		case "a":
			if m.modal.prefix != "" {
				m.closeModal(reply{d: decideAlways}, "always `"+m.modal.prefix+" …`")
			}
		case "t":
			m.modal.telling = m.modal.tell
		case "n", "esc", "ctrl+c":
			m.closeModal(reply{d: decideNo}, "no")
		}
		return nil, true
	}
	s := k.String()
	if s != "ctrl+c" {
		m.armed = false
	}
	switch s {
	case "ctrl+c":
		switch {
		case m.ta.Value() != "" || len(m.pastes) > 0:
			m.resetComposer()
			m.hint = ""
		case m.running:
			m.interrupt()
		case m.armed:
			m.quit = true
			return tea.Quit, true
		default:
			m.armed = true
			m.hint = "Ctrl-C again to quit"
		}
		return nil, true
	case "esc":
		if m.running {
			m.interrupt()
		}
		return nil, true
	case "ctrl+d":
		if m.ta.Value() == "" && !m.running {
			m.quit = true
			return tea.Quit, true
		}
	case "enter":
		return m.submit(), true
	case "shift+enter", "ctrl+j", "alt+enter":
		m.ta.InsertString("\n")
		return nil, true
	case "tab":
		m.complete()
		return nil, true
	case "up":
		if m.ta.Line() == 0 && m.histPrev() {
			return nil, true
		}
	case "down":
		if m.ta.Line() == m.ta.LineCount()-1 && m.histNext() {
			return nil, true
		}
	case "ctrl+g":
		return m.editor(), true
	case "ctrl+o":
		m.expand()
		return nil, true
	}
	m.hint = ""
	var cmd tea.Cmd
	m.ta, cmd = m.ta.Update(k)
	return cmd, true
}

// interrupt cancels the running step (Esc, or Ctrl-C on an empty composer).
func (m *model) interrupt() {
	if m.cancel != nil && !m.cancelling {
		m.cancelling = true
		m.cancel()
		m.hint = "cancelling the step…"
	}
}

func (m *model) closeModal(r reply, word string) {
	m.modal.reply <- r
	m.print(m.st.dim.Render("  approval: " + word))
	m.modal = nil
	m.ta.Focus()
}

func (m *model) resetComposer() {
	m.ta.Reset()
	m.pastes = nil
	m.histAt = -1
}

// submit sends the composer: a slash command or a turn.
func (m *model) submit() tea.Cmd {
	raw := m.ta.Value()
	text := strings.TrimSpace(m.expandPastes(raw))
	if text == "" {
		return nil
	}
	if m.running {
		m.hint = "a step is running: Esc interrupts it"
		return nil
	}
	m.hist.add(raw, func(w string) { m.print(m.st.warn.Render("yagent: warning: " + w)) })
	m.resetComposer()
	m.tallest = 0
	m.hint = ""
	if strings.HasPrefix(text, "/") {
		return m.command(text)
	}
	prompt, attached, err := attach(m.o.Workspace, text)
	m.print(m.st.user.Render(echo(text, m.width)))
	for _, a := range attached {
		m.print(m.st.dim.Render("  📎 " + termsafe.Line(a)))
	}
	if err != nil {
		m.print(m.st.err.Render("  " + termsafe.Text(err.Error())))
	}
	return m.startTurn(prompt)
}

// startTurn runs prompt as a turn of the Backend.
func (m *model) startTurn(prompt string) tea.Cmd {
	ctx, cancel := context.WithCancel(m.o.Context)
	m.running, m.cancelling, m.cancel, m.started = true, false, cancel, m.o.Now()
	m.turnTokens = 0
	b := m.o.Backend
	m.turns.Add(1)
	return tea.Batch(m.spin.Tick, func() tea.Msg {
		defer m.turns.Done()
		return turnDoneMsg{err: b.Turn(ctx, prompt)}
	})
}

// report starts the turn a Reporter asks for — background delegations
// landed — when nothing runs and no question or picker is open; a busy
// program asks again when its turn is done.
func (m *model) report() tea.Cmd {
	r, ok := m.o.Backend.(Reporter)
	if !ok || m.running || m.modal != nil || m.pick != nil || m.quit {
		return nil
	}
	prompt, ok := r.Report()
	if !ok {
		return nil
	}
	m.print(m.st.dim.Render("⟲ background delegations finished: the director reports them"))
	return m.startTurn(prompt)
}

func (m *model) command(line string) tea.Cmd {
	name, _, _ := strings.Cut(line, " ")
	m.print(m.st.user.Render("› " + line))
	known := false
	for _, c := range m.commands() {
		known = known || c == name
	}
	b := m.o.Backend
	if p, ok := b.(Prompter); ok && !known && strings.Contains(name, ":") {
		ctx := m.o.Context
		return func() tea.Msg {
			prompt, ok, err := p.Prompt(ctx, line)
			return promptMsg{name: name, prompt: prompt, ok: ok, err: err}
		}
	}
	if !known {
		m.unknown(name)
		return nil
	}
	if ex, ok := b.(Expander); ok {
		if prompt, note, ok := ex.Expand(line); ok {
			if note != "" {
				m.print(m.st.dim.Render("  " + termsafe.Line(note)))
			}
			return m.startTurn(prompt)
		}
	}
	rest := strings.TrimSpace(strings.ReplaceAll(strings.TrimPrefix(line, name), "--all", ""))
	if ss, ok := b.(Sessions); ok && name == "/resume" && rest == "" {
		all := strings.Contains(line, "--all")
		ctx := m.o.Context
		return func() tea.Msg {
			rows, err := ss.Sessions(ctx, all)
			return pickRowsMsg{rows: rows, all: all, err: err}
		}
	}
	return func() tea.Msg {
		out, quit, err := b.Command(m.o.Context, line)
		return commandDoneMsg{out: out, quit: quit, err: err}
	}
}

// commands are what the person can type: Options.Commands and what a
// Completer added since.
func (m *model) commands() []string { return append(slices.Clip(m.o.Commands), m.more...) }

// askMoreCommands asks a Completer, off the loop, what it offers now.
func (m *model) askMoreCommands() tea.Cmd {
	c, ok := m.o.Backend.(Completer)
	if !ok {
		return nil
	}
	ctx := m.o.Context
	return func() tea.Msg { return moreCommandsMsg{cmds: c.MoreCommands(ctx)} }
}

func (m *model) unknown(name string) {
	m.print(m.st.err.Render(fmt.Sprintf("unknown command %s; the commands are: %s", name, strings.Join(m.commands(), " "))))
}

// prompted starts the turn of a /server:prompt line once its text came.
func (m *model) prompted(msg promptMsg) tea.Cmd {
	switch {
	case msg.err != nil:
		m.print(m.st.err.Render("error: " + termsafe.Text(msg.err.Error())))
	case !msg.ok:
		m.unknown(msg.name)
	case m.running:
		m.print(m.st.err.Render(msg.name + ": a turn started while its prompt was fetched; type it again when the turn ends"))
	default:
		return m.startTurn(msg.prompt)
	}
	return nil
}

func (m *model) turnDone(err error) {
	m.foldReason()
	m.flushLive()
	elapsed := m.o.Now().Sub(m.started)
	switch {
	case errors.Is(err, context.Canceled):
		m.print(m.st.warn.Render("⏹ cancelled"))
	case err != nil:
		m.print(m.st.err.Render("error: " + termsafe.Text(err.Error())))
	}
	m.print(m.st.dim.Render(fmt.Sprintf("── %s · %s tokens", elapsed.Round(100*time.Millisecond), count(m.turnTokens))))
	m.running, m.cancelling, m.dels = false, false, nil
	if m.cancel != nil {
		m.cancel()
		m.cancel = nil
	}
	m.hint = ""
	if m.o.Backend != nil {
		m.status = m.o.Backend.Status()
	}
}

// editor opens $VISUAL or $EDITOR on the composer's text (Ctrl-G).
func (m *model) editor() tea.Cmd {
	ed := getenv(m.o.Env, "VISUAL")
	if ed == "" {
		ed = getenv(m.o.Env, "EDITOR")
	}
	if ed == "" {
		m.hint = "set $EDITOR to edit the prompt in an editor"
		return nil
	}
	f, err := os.CreateTemp("", "yagent-prompt-*.md")
	if err != nil {
		m.hint = "editor: " + err.Error()
		return nil
	}
	path := f.Name()
	_, werr := f.WriteString(m.expandPastes(m.ta.Value()))
	if err := errors.Join(werr, f.Close()); err != nil {
		os.Remove(path)
		m.hint = "editor: " + err.Error()
		return nil
	}
	m.pastes = nil
	fields := strings.Fields(ed)
	c := exec.Command(fields[0], append(fields[1:], path)...)
	return tea.ExecProcess(c, func(err error) tea.Msg {
		defer os.Remove(path)
		if err != nil {
			return editedMsg{err: fmt.Errorf("%s: %w", ed, err)}
		}
		b, err := os.ReadFile(path)
		return editedMsg{text: sanitize(string(b)), err: err}
	})
}

// print queues lines for the scrollback.
func (m *model) print(s string) { m.out = append(m.out, s) }

// flush prints the queued lines when no print is in flight.
func (m *model) flush() tea.Cmd {
	if !m.ready && !m.quit {
		return nil
	}
	if m.printing || len(m.out) == 0 {
		if m.quit && !m.printing {
			return tea.Quit
		}
		return nil
	}
	text := m.chunk()
	m.printing = true
	cmds := []tea.Cmd{tea.Println(text), func() tea.Msg { return printedMsg{} }}
	if m.quit && len(m.out) == 0 {
		cmds = append(cmds, tea.Quit)
	}
	return tea.Sequence(cmds...)
}

// chunk takes from the queued lines as many as fit above the frame on
// the terminal, at least one. Bubble Tea prints above the frame by
// scrolling the screen up as many rows as the text takes and going back
// up to write them: text taller than the rows above the frame is drawn
// partly over the frame and loses its last lines, and the frame (the
// spinner) is scrolled into the scrollback. The rest stays queued for
// the next print.
func (m *model) chunk() string {
	lines := strings.Split(strings.Join(m.out, "\n"), "\n")
	m.out = nil
	if m.height <= 0 {
		return strings.Join(lines, "\n")
	}
	// Bubble Tea scrolls by the frame it drew last, which may be an
	// older, taller one than now (the streamed text's tail) — the tallest
	// since the person sent something — and the frame may grow by a line
	// before the print lands (a hint): keep one row spare.
	room := max(m.height-max(m.tallest, m.frameHeight())-1, 1)
	n, rows := 0, 0
	for n < len(lines) {
		r := printRows(lines[n], m.width)
		if n > 0 && rows+r > room {
			break
		}
		rows += r
		n++
	}
	if n < len(lines) {
		m.out = []string{strings.Join(lines[n:], "\n")}
	}
	return strings.Join(lines[:n], "\n")
}

// frameHeight is how many rows the frame takes now.
func (m *model) frameHeight() int {
	return strings.Count(m.frame().Content, "\n") + 1
}

// printRows is how many rows Bubble Tea scrolls for a printed line of
// the terminal's width w (its own count: one more per full width).
func printRows(line string, w int) int {
	if lw := ansi.StringWidth(line); w > 0 && lw > w {
		return 1 + lw/w
	}
	return 1
}

// expand prints whole the last thing shown collapsed (Ctrl-O).
func (m *model) expand() {
	if m.folded == nil {
		m.hint = "nothing is collapsed"
		return
	}
	for _, l := range m.folded {
		m.print(l)
	}
	m.folded = nil
}

// foldReason moves the lead's reasoning of this call to the scrollback
// as one dimmed line, whole for Ctrl-O when it was cut.
func (m *model) foldReason() {
	m.reason.WriteString(m.reasonSafe.End())
	text := strings.TrimSpace(m.reason.String())
	m.reason.Reset()
	if text == "" {
		return
	}
	line := brief.Line(text, max(m.width-28, 20))
	if line == strings.Join(strings.Fields(text), " ") {
		m.print(m.st.dim.Render("∴ " + line))
		return
	}
	n := strings.Count(text, "\n") + 1
	m.print(m.st.dim.Render(fmt.Sprintf("∴ %s (%s · ctrl+o)", line, agents.Count(n, "line", "lines"))))
	m.folded = nil
	for _, l := range strings.Split(ansi.Wordwrap(text, max(m.width-2, 20), ""), "\n") {
		m.folded = append(m.folded, m.st.dim.Render("  "+l))
	}
}

// event folds one event of the running turn into the view. What the
// events carry (a model's text, a tool's arguments and result, a task) is
// rendered for the terminal (termsafe) before any style is added.
func (m *model) event(e agents.Event) {
	d := m.delegationOf(e)
	if e.Depth == 0 && e.Type != agents.EventReasoningDelta && e.Type != agents.EventRetry {
		m.foldReason() // the reasoning of the call ended: its text or calls follow
	}
	switch e.Type {
	case agents.EventReasoningDelta:
		if e.Depth == 0 {
			m.reason.WriteString(m.reasonSafe.Next(e.Text))
		}
	case agents.EventTextDelta:
		if e.Depth == 0 {
			m.live.WriteString(m.liveSafe.Next(e.Text))
		}
	case agents.EventToolCall:
		if d != nil {
			d.steps = max(d.steps, e.Step)
			d.lastTool = e.Tool.Name
		}
		if !e.Tool.Quiet && e.Tool.Name != "delegate" {
			m.flushLive()
		}
	case agents.EventDelegationStarted, agents.EventNotice:
		m.flushLive()
	case agents.EventDelegationFinished:
		for i, x := range m.dels {
			if x.callID == e.Delegation.CallID {
				m.dels = append(m.dels[:i], m.dels[i+1:]...)
				break
			}
		}
	case agents.EventRetry:
		if e.Depth == 0 {
			m.live.Reset() // the retried call's text is void
			m.liveSafe.End()
			m.reason.Reset()
			m.reasonSafe.End()
		}
	case agents.EventUsage:
		u := e.Usage
		m.usage.Add(*u)
		m.turnTokens += u.PromptTokens + u.CompletionTokens
		if d != nil {
			d.steps++
		}
		if e.Depth == 0 {
			m.flushLive() // the call succeeded: its text is the answer
		}
	}
	for _, l := range m.view.Lines(e, eventline.Options{}) {
		m.print(m.st.of(l.Kind).Render(l.Text))
	}
	if d := eventline.Details(e, m.view.Width); len(d) > m.view.Details {
		m.folded = nil
		for _, l := range d {
			m.folded = append(m.folded, m.st.of(l.Kind).Render(l.Text))
		}
	}
	if e.Type == agents.EventDelegationStarted {
		dl := e.Delegation
		m.dels = append(m.dels, &delegation{callID: dl.CallID, label: m.view.Label(dl.CallID), task: dl.Task})
	}
}

// delegationOf finds the running delegation a sub-agent's event belongs to.
func (m *model) delegationOf(e agents.Event) *delegation {
	if e.Depth == 0 {
		return nil
	}
	for _, d := range m.dels {
		if e.Parent != "" && d.callID == e.Parent {
			return d
		}
	}
	return nil
}

// flushLive moves the lead's streamed text to the scrollback, rendered.
func (m *model) flushLive() {
	m.live.WriteString(m.liveSafe.End())
	if m.live.Len() == 0 {
		return
	}
	text := m.live.String()
	m.live.Reset()
	m.print(renderMarkdown(text, m.width, m.plain))
}

// View is the frame; it remembers the tallest one since the person last
// sent something, which may still be on the screen when a print lands.
func (m *model) View() tea.View {
	v := m.frame()
	m.tallest = max(m.tallest, strings.Count(v.Content, "\n")+1)
	return v
}

func (m *model) frame() tea.View {
	var b strings.Builder
	w := m.width
	switch {
	case m.live.Len() > 0:
		b.WriteString(tail(m.live.String(), w, 8))
		b.WriteString("\n")
	case m.reason.Len() > 0:
		b.WriteString(m.st.dim.Render(tail(m.reason.String(), w, 3)))
		b.WriteString("\n")
	}
	if m.pick != nil {
		return tea.NewView(m.pick.view(w, max(m.height, 12)))
	}
	if m.modal != nil {
		b.WriteString(m.modalView())
		if m.bare() {
			return tea.NewView(ansi.Strip(b.String()))
		}
		return tea.NewView(b.String())
	}
	for _, d := range m.dels {
		line := fmt.Sprintf("  %s · %s · step %d", d.label, brief.Line(d.task, 40), d.steps)
		if d.lastTool != "" {
			line += " · " + termsafe.Line(d.lastTool)
		}
		b.WriteString(m.st.dim.Render(cut(line, w)) + "\n")
	}
	b.WriteString(m.statusLine() + "\n")
	above := strings.Count(b.String(), "\n")
	b.WriteString(m.ta.View())
	if m.hint != "" {
		b.WriteString("\n" + m.st.dim.Render(cut(m.hint, w)))
	}
	if !m.bare() {
		return tea.NewView(b.String())
	}
	v := tea.NewView(ansi.Strip(b.String()))
	if c := m.ta.Cursor(); c != nil && m.modal == nil {
		c.Y += above
		v.Cursor = c
	}
	return v
}

func (m *model) modalView() string {
	var b strings.Builder
	w := m.width
	// The question is never cut: a command is shown whole, every line of
	// it (the next ones under a gutter), each wrapped at the width — a
	// wrap keeps every character, spaces too, and is only indented.
	for i, l := range m.modal.question {
		lead := "? "
		if i > 0 {
			lead = "  │ "
		}
		for j, part := range strings.Split(ansi.Hardwrap(l, max(w-4, 10), true), "\n") {
			if j > 0 {
				lead = "    "
			}
			b.WriteString(m.st.warn.Render(lead+part) + "\n")
		}
	}
	if m.modal.preview != "" {
		lines := strings.Split(strings.TrimRight(m.modal.preview, "\n"), "\n")
		const most = 15
		for i, l := range lines {
			if m.modal.whole {
				b.WriteString(m.st.dim.Render(wrap("  "+l, w)) + "\n")
				continue
			}
			if i == most {
				b.WriteString(m.st.dim.Render(fmt.Sprintf("  … %d more lines", len(lines)-most)) + "\n")
				break
			}
			st := m.st.dim
			switch {
			case strings.HasPrefix(l, "+"):
				st = m.st.add
			case strings.HasPrefix(l, "-"):
				st = m.st.del
			}
			b.WriteString(st.Render(cut("  "+l, w)) + "\n")
		}
	}
	if m.modal.telling {
		line := "tell it what to do instead (Enter sends · Esc goes back): " + termsafe.Line(string(m.modal.instead)) + "▏"
		b.WriteString(ansi.Hardwrap(line, max(w, 10), true))
		return b.String()
	}
	choices := "allow? [y]es  [n]o"
	if m.modal.prefix != "" {
		choices += "  [a]lways `" + m.modal.prefix + " …` this session"
	}
	if m.modal.tell {
		choices += "  [t]ell it what to do instead"
	}
	b.WriteString(ansi.Hardwrap(choices+" (Esc or Ctrl-C: no)", max(w, 10), true)) // the prefix whole
	return b.String()
}

// statusLine is the line above the composer.
func (m *model) statusLine() string {
	var parts []string
	if m.running {
		el := m.o.Now().Sub(m.started).Truncate(time.Second)
		word := "working"
		if m.cancelling {
			word = "cancelling"
		}
		parts = append(parts, fmt.Sprintf("%s %s %s", m.spin.View(), word, el), "esc to interrupt")
	}
	if m.status.Model != "" {
		parts = append(parts, m.status.Model)
	}
	if m.status.ContextPct >= 0 {
		parts = append(parts, fmt.Sprintf("ctx %d%%", m.status.ContextPct))
	}
	if t := m.usage.PromptTokens + m.usage.CompletionTokens; t > 0 {
		parts = append(parts, count(t)+" tok")
		switch p := m.status.Price; {
		case m.usage.CostUSD != nil:
			// Each request at its own model's price (the ledger's figure).
			parts = append(parts, fmt.Sprintf("$%.4f", *m.usage.CostUSD))
		case p != nil:
			cost := m.usage.Cost(p.Input, p.Cached, p.Output)
			parts = append(parts, fmt.Sprintf("$%.4f", cost))
		}
	}
	if !m.running {
		parts = append(parts, "/help")
	}
	if m.width < narrow {
		return cut(strings.Join(parts, " "), m.width)
	}
	return m.st.status.Render(cut(strings.Join(parts, " · "), m.width))
}

// count prints a token count short: 950, 12.3k, 1.2M.
func count(n int) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 1000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

// of is the style of a line of eventline.
func (s styles) of(k eventline.Kind) lipgloss.Style {
	switch k {
	case eventline.Progress:
		return s.tool
	case eventline.Failed, eventline.Error:
		return s.err
	case eventline.Warn:
		return s.warn
	case eventline.Added:
		return s.add
	case eventline.Removed:
		return s.del
	}
	return s.dim
}

// styles are the program's colours; all plain under NO_COLOR or TERM=dumb.
type styles struct {
	dim, tool, err, warn, user, status, add, del lipgloss.Style
}

func newStyles(plain bool) styles {
	if plain {
		s := lipgloss.NewStyle()
		return styles{s, s, s, s, s, s, s, s}
	}
	return styles{
		dim:    lipgloss.NewStyle().Faint(true),
		tool:   lipgloss.NewStyle().Foreground(lipgloss.Color("6")),
		err:    lipgloss.NewStyle().Foreground(lipgloss.Color("1")),
		warn:   lipgloss.NewStyle().Foreground(lipgloss.Color("3")),
		user:   lipgloss.NewStyle().Bold(true),
		status: lipgloss.NewStyle().Faint(true),
		add:    lipgloss.NewStyle().Foreground(lipgloss.Color("2")),
		del:    lipgloss.NewStyle().Foreground(lipgloss.Color("1")),
	}
}

// textareaStyles keep the composer on the terminal's own colours: no
// background band, a faint placeholder, a steady cursor (a blinking one
// redraws the screen twice a second).
func textareaStyles(plain bool) textarea.Styles {
	s := textarea.DefaultStyles(true)
	n := lipgloss.NewStyle()
	ph := lipgloss.NewStyle().Faint(true)
	if plain {
		ph = n
	}
	for _, st := range []*textarea.StyleState{&s.Focused, &s.Blurred} {
		st.Base, st.Text, st.Prompt, st.CursorLine = n, n, n, n
		st.EndOfBuffer, st.LineNumber, st.CursorLineNumber = n, n, n
		st.Placeholder = ph
	}
	s.Cursor.Blink = false
	return s
}

// stop cancels a turn still running when the program ended (the context
// was cancelled) and waits for it, so the session closes after it.
func (m *model) stop() {
	if m.cancel != nil {
		m.cancel()
	}
	m.turns.Wait()
}
