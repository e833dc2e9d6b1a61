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
	"github.com/yagent/yagent/internal/termsafe"
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
// previewed under the list. Typing filters the list: the sessions whose
// name, id, title or directory hold the typed text (any case).
type picker struct {
	rows   []Session
	at     int  // index into shown()
	all    bool // show the directory column
	filter string
}

// shown are the rows the filter keeps.
func (p *picker) shown() []Session {
	if p.filter == "" {
		return p.rows
	}
	f := strings.ToLower(p.filter)
	var out []Session
	for _, r := range p.rows {
		if strings.Contains(strings.ToLower(r.Name+"\x00"+r.ID+"\x00"+r.Title+"\x00"+r.Dir), f) {
			out = append(out, r)
		}
	}
	return out
}

// key moves, filters or ends the picker: done with the chosen id, "" =
// cancelled.
func (p *picker) key(k tea.KeyPressMsg) (done bool, id string) {
	rows := p.shown()
	switch k.String() {
	case "up", "ctrl+p":
		p.at = max(p.at-1, 0)
	case "down", "ctrl+n":
		p.at = min(p.at+1, len(rows)-1)
	case "home":
		p.at = 0
	case "end":
		p.at = len(rows) - 1
	case "enter":
		if len(rows) == 0 {
			return false, ""
		}
		return true, rows[p.at].ID
	case "esc", "ctrl+c":
		return true, ""
	case "backspace":
		if r := []rune(p.filter); len(r) > 0 {
			p.filter, p.at = string(r[:len(r)-1]), 0
		}
	default:
		if k.Text != "" && k.Mod&^tea.ModShift == 0 {
			p.filter, p.at = p.filter+k.Text, 0
		}
	}
	return false, ""
}

func (p *picker) view(width, height int) string {
	var b strings.Builder
	b.WriteString("resume which session? type to filter · ↑/↓ move · Enter resumes · Esc cancels\n")
	if p.filter != "" {
		b.WriteString(cut("filter: "+termsafe.Line(p.filter), width) + "\n")
	}
	rows := p.shown()
	if len(rows) == 0 {
		b.WriteString("  no session matches")
		return b.String()
	}
	most := max(height-8, 3)
	first := max(0, min(p.at-most/2, len(rows)-most))
	for i := first; i < len(rows) && i < first+most; i++ {
		r := rows[i]
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
	r := rows[p.at]
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
		if done, id := m.p.key(msg); done {
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
