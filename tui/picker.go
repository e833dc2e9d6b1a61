package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/yagent/yagent/internal/brief"
)

// Session is a row of the resume picker.
type Session struct {
	ID, Name, Title, Dir string
	Updated              time.Time
	Turns                int
	// Current marks the session this chat is in.
	Current bool
}

// Sessions is what a Backend offers the /resume picker.
type Sessions interface {
	// Sessions lists this directory's sessions (all: every directory),
	// newest first.
	Sessions(ctx context.Context, all bool) ([]Session, error)
}

// picker chooses a session with the arrows; the highlighted one is
// previewed under the list.
type picker struct {
	rows []Session
	at   int
	all  bool // show the directory column
}

// key moves or ends the picker: done with the chosen id, "" = cancelled.
func (p *picker) key(k string) (done bool, id string) {
	switch k {
	case "up", "k", "ctrl+p":
		p.at = max(p.at-1, 0)
	case "down", "j", "ctrl+n":
		p.at = min(p.at+1, len(p.rows)-1)
	case "home":
		p.at = 0
	case "end":
		p.at = len(p.rows) - 1
	case "enter":
		return true, p.rows[p.at].ID
	case "esc", "ctrl+c", "q":
		return true, ""
	}
	return false, ""
}

func (p *picker) view(width, height int) string {
	var b strings.Builder
	b.WriteString("resume which session? ↑/↓ move · Enter resumes · Esc cancels\n")
	most := max(height-8, 3)
	first := max(0, min(p.at-most/2, len(p.rows)-most))
	for i := first; i < len(p.rows) && i < first+most; i++ {
		r := p.rows[i]
		mark := "  "
		if i == p.at {
			mark = "› "
		}
		name := r.Name
		if name == "" {
			name = r.ID
		}
		line := fmt.Sprintf("%s%s  %-22s %3d %-5s", mark, r.Updated.Local().Format("01-02 15:04"), brief.Line(name, 22), r.Turns, turnWord(r.Turns))
		if p.all {
			line += "  " + brief.Line(r.Dir, 30)
		}
		line += "  " + brief.Line(r.Title, 60)
		if r.Current {
			line += "  (this session)"
		}
		b.WriteString(cut(line, width) + "\n")
	}
	r := p.rows[p.at]
	b.WriteString(strings.Repeat("─", min(width, 60)) + "\n")
	fmt.Fprintf(&b, "%s · %s · %d %s\n", r.ID, r.Dir, r.Turns, turnWord(r.Turns))
	b.WriteString(ansi.Wordwrap(brief.Line(r.Title, 400), max(width, 20), ""))
	return b.String()
}

// pickModel runs a picker alone (`yagent resume` without an id).
type pickModel struct {
	p      picker
	width  int
	height int
	chosen string
}

func (m *pickModel) Init() tea.Cmd { return nil }

func (m *pickModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case tea.KeyPressMsg:
		if done, id := m.p.key(msg.String()); done {
			m.chosen = id
			return m, tea.Quit
		}
	}
	return m, nil
}

func (m *pickModel) View() tea.View { return tea.NewView(m.p.view(m.width, m.height)) }

// ErrNoSessions is Pick's answer for an empty list.
var ErrNoSessions = errors.New("no sessions to resume")

// Pick lets the person choose one of rows on the terminal; "" when they
// cancelled.
func Pick(ctx context.Context, o Options, rows []Session, all bool) (string, error) {
	if len(rows) == 0 {
		return "", ErrNoSessions
	}
	m := &pickModel{p: picker{rows: rows, all: all}, width: 80, height: 24}
	opts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithInput(o.In), tea.WithOutput(o.Out), tea.WithEnvironment(o.Env), tea.WithoutSignalHandler()}
	if o.Width > 0 {
		opts = append(opts, tea.WithWindowSize(o.Width, o.Height))
	}
	if _, err := tea.NewProgram(m, opts...).Run(); err != nil {
		return "", err
	}
	return m.chosen, nil
}

// turnWord is "turn" for one, "turns" otherwise.
func turnWord(n int) string {
	if n == 1 {
		return "turn"
	}
	return "turns"
}
