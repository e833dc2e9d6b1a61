// Package eventline turns the events of a run (agents.Event) into the
// lines a person reads: the one place their wording lives. The plain
// printer, the batch printer and the interactive view (tui) all call
// View.Lines and only style, indent or place what it returns.
//
// What it returns is safe to print (internal/termsafe): a model's text, a
// tool's arguments and result, a task or a note's body cannot draw over
// the terminal.
package eventline

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/internal/brief"
	"github.com/yagent/yagent/internal/linediff"
	"github.com/yagent/yagent/internal/termsafe"
)

// Kind says what a line is, for a renderer to pick its style.
type Kind int

const (
	// Progress is a tool call, a delegation starting or finishing, a
	// batch starting.
	Progress Kind = iota
	// Done is a tool's result.
	Done
	// Failed is a tool's result marked as an error.
	Failed
	// Warn is a retry or a delegation skipped.
	Warn
	// Error is an error of the run.
	Error
	// Notice is a notice (a compaction, a recovery, a replay label); its
	// text may hold several lines.
	Notice
	// Note is a write to the lead's notebook.
	Note
	// Added and Removed are the lines of a note's or a write's change.
	Added
	Removed
	// Detail is a line of what a tool's result shows under it: a diff's
	// unchanged line or hunk header, a command's output.
	Detail
)

// Line is one line to show. Text is rendered for the terminal already;
// only Notice and Error lines may hold line breaks.
type Line struct {
	Kind Kind
	Text string
}

// View turns events into lines. It remembers the delegations of the
// lead's turn, so a sub-agent's lines are labelled by its delegation
// ("explorer#2": parallel sub-agents of one name are told apart). A View
// is not safe for concurrent use: renderers call it under their lock.
type View struct {
	// Width is the most runes of a tool's result summary (0: 120). A
	// result marked as an error is shown up to 400 runes: a refusal says
	// what to do.
	Width int
	// Details is the most lines shown under a tool's result of what it
	// changed (a write's or an edit's diff, a command's first and last
	// lines of output); past it they are collapsed into "… N more lines"
	// and More. 0 shows none (the plain printer without -v, the batch
	// printer).
	Details int
	// More ends a collapsed result's last line: how the renderer shows
	// the rest ("ctrl+o shows them").
	More   string
	labels map[string]string // delegation call id → label
	seen   map[string]int    // delegations per agent name in this turn
}

// Options are what a renderer knows that the event does not.
type Options struct {
	// TextShown says the lead's streamed text of the call being retried
	// is on the screen: the retry line says it is void.
	TextShown bool
}

// DetailLines is how many lines of what a tool's result changed a
// renderer shows under it before collapsing the rest (View.Details).
const DetailLines = 12

// Most runes of each part of a line.
const (
	taskRunes       = 100
	conclusionRunes = 120
	errorRunes      = 120
	refusalRunes    = 400
	noteRunes       = 100
	diffRunes       = 140
	// noteDiffLines is the most changed lines a note_saved shows.
	noteDiffLines = 12
)

// Lines returns the lines e shows, none for the events a renderer shows
// otherwise (streamed text and reasoning, usage, a turn's start and end, a
// batch's end).
func (v *View) Lines(e agents.Event, o Options) []Line {
	if v.labels == nil {
		v.labels, v.seen = map[string]string{}, map[string]int{}
	}
	indent := strings.Repeat("  ", e.Depth)
	who := v.who(e)
	switch e.Type {
	case agents.EventTurnStarted:
		if e.Depth == 0 {
			clear(v.seen)
		}
	case agents.EventToolCall:
		if e.Tool.Quiet || e.Tool.Name == "delegate" {
			return nil
		}
		return one(Progress, "%s▸ %s%s %s", indent, who, e.Tool.Name, brief.Args(e.Tool.Args))
	case agents.EventToolResult:
		if e.Tool.Quiet || e.Tool.Name == "delegate" {
			return nil
		}
		kind, mark, width := Done, "✓", v.Width
		if width <= 0 {
			width = 120
		}
		if e.Tool.IsError {
			kind, mark, width = Failed, "✗", refusalRunes
		}
		out := one(kind, "%s  %s %s%s", indent, mark, who, brief.Line(e.Tool.Summary, width))
		if v.Details <= 0 {
			return out
		}
		d := Details(e, v.width())
		if len(d) > v.Details {
			more := len(d) - v.Details + 1
			d = append(d[:v.Details-1], Line{Detail, fmt.Sprintf("%s    … %s", indent, agents.Count(more, "more line", "more lines"))})
			if v.More != "" {
				d[len(d)-1].Text += " (" + v.More + ")"
			}
		}
		return append(out, d...)
	case agents.EventDelegationStarted:
		d := e.Delegation
		label := v.start(d)
		return one(Progress, "%s⇢ %s: %s", indent, label, brief.Line(d.Task, taskRunes))
	case agents.EventDelegationFinished:
		d := e.Delegation
		label := v.finish(d)
		ref := d.Ref
		if ref == "" {
			ref = "(no note)"
		}
		if d.Resumed {
			return one(Progress, "%s↺ %s %s %s — reused from an earlier run", indent, label, d.Status, ref)
		}
		took := ""
		if d.ElapsedMS > 0 {
			took = " in " + Seconds(d.ElapsedMS)
		}
		if c := d.Change; c != nil {
			files := "files"
			if c.Files == 1 {
				files = "file"
			}
			took += fmt.Sprintf(" (+%d −%d, %d %s)", c.Insertions, c.Deletions, c.Files, files)
		}
		return one(Progress, "%s⇠ %s %s %s%s — %s", indent, label, d.Status, ref, took, brief.Line(brief.FirstNonBlank(d.Conclusion, d.Reason), conclusionRunes))
	case agents.EventDelegationSkipped:
		d := e.Delegation
		return one(Warn, "%s⊘ %s %s — %s", indent, d.ID, d.Status, d.Reason)
	case agents.EventBatchStarted:
		b := e.Batch
		mode := ""
		if b.Resume {
			mode = ", resuming"
		}
		bound := "all that are ready at once" // parallel 0: no bound
		if b.Parallel > 0 {
			bound = fmt.Sprintf("%d at once", b.Parallel)
		}
		return one(Progress, "▶ batch %s: %d delegations on board %s, %s%s", b.Plan, b.Delegations, b.Board, bound, mode)
	case agents.EventRetry:
		void := ""
		if o.TextShown && e.Depth == 0 {
			void = " — the text above is void, the answer follows again"
		}
		return one(Warn, "%s↻ %s%s: %s%s", indent, who, e.Text, brief.Line(e.Error, errorRunes), void)
	case agents.EventNotice:
		return []Line{{Notice, indent + termsafe.Text(e.Text)}}
	case agents.EventError:
		return []Line{{Error, indent + "error: " + termsafe.Line(who) + termsafe.Text(e.Error)}}
	case agents.EventNoteSaved:
		return noteLines(e.Note)
	}
	return nil
}

// Details are all the lines a tool's result shows under it of what it
// changed, none collapsed, each cut to width runes: a write's or an
// edit's diff (its hunks, without the file names the call shows) or a
// command's output; none for other events.
func Details(e agents.Event, width int) []Line {
	if e.Type != agents.EventToolResult || e.Tool == nil {
		return nil
	}
	indent := strings.Repeat("  ", e.Depth) + "    "
	var out []Line
	for _, l := range splitLines(e.Tool.Diff) {
		kind := Detail
		switch {
		case strings.HasPrefix(l, "--- ") || strings.HasPrefix(l, "+++ "):
			continue
		case strings.HasPrefix(l, "+"):
			kind = Added
		case strings.HasPrefix(l, "-"):
			kind = Removed
		}
		out = append(out, Line{kind, indent + detail(l, width)})
	}
	for _, l := range splitLines(e.Tool.Output) {
		out = append(out, Line{Detail, indent + detail(l, width)})
	}
	return out
}

// detail renders a line of a diff or an output for one row: a tab is
// four spaces, the rest termsafe's.
func detail(l string, width int) string {
	return termsafe.Cut(strings.ReplaceAll(l, "\t", "    "), width)
}

func splitLines(s string) []string {
	if s = strings.TrimRight(s, "\n"); s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func (v *View) width() int {
	if v.Width <= 0 {
		return 120
	}
	return v.Width
}

// Label is the label of a running delegation ("explorer#2"; in a batch,
// "id (agent)"), "" when the call id is not one.
func (v *View) Label(callID string) string { return v.labels[callID] }

// start labels a delegation: in a batch by its id in the plan, else by
// its agent numbered within the lead's turn.
func (v *View) start(d *agents.DelegationEvent) string {
	label := ""
	if d.ID != "" {
		label = termsafe.Line(fmt.Sprintf("%s (%s)", d.ID, d.Agent))
	} else {
		v.seen[d.Agent]++
		label = termsafe.Line(fmt.Sprintf("%s#%d", d.Agent, v.seen[d.Agent]))
	}
	v.labels[d.CallID] = label
	return label
}

// finish forgets a delegation and returns its label: its plan id in a
// batch, the label it started with, else its agent.
func (v *View) finish(d *agents.DelegationEvent) string {
	label, ok := v.labels[d.CallID]
	delete(v.labels, d.CallID)
	switch {
	case d.ID != "":
		return termsafe.Line(d.ID)
	case ok:
		return label
	}
	return termsafe.Line(d.Agent)
}

// who names a sub-agent on its lines: its delegation's label, else its
// name; nothing for the lead.
func (v *View) who(e agents.Event) string {
	if e.Depth == 0 {
		return ""
	}
	if l := v.labels[e.Parent]; e.Parent != "" && l != "" {
		return l + ": "
	}
	return e.Agent + ": "
}

// noteLines are a notebook write and what it changed, the first changed
// lines of the body.
func noteLines(n *agents.NoteEvent) []Line {
	out := one(Note, "📝 %s %s — %s", n.Action, n.Name, brief.Line(n.Description, noteRunes))
	if n.Action == "pinned" || n.Action == "unpinned" {
		return out
	}
	diff := linediff.Changed(n.PrevBody, n.Body)
	for i, l := range diff {
		if i == noteDiffLines {
			out = append(out, one(Note, "   … %d more changed lines (yagent notes show %s)", len(diff)-noteDiffLines, n.Name)...)
			break
		}
		kind := Added
		if strings.HasPrefix(l, "-") {
			kind = Removed
		}
		out = append(out, Line{kind, "   " + brief.Line(l, diffRunes)})
	}
	return out
}

// one is a single line, rendered as one line for the terminal.
func one(k Kind, format string, args ...any) []Line {
	return []Line{{k, termsafe.Line(fmt.Sprintf(format, args...))}}
}

// Seconds renders a duration for a person: "340ms", "12.3s".
func Seconds(ms int64) string {
	if ms < 1000 {
		return strconv.FormatInt(ms, 10) + "ms"
	}
	return fmt.Sprintf("%.1fs", float64(ms)/1000)
}
