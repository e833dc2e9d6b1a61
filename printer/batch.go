package printer

import (
	"fmt"
	"io"
	"strconv"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/agents/eventline"
	"github.com/yagent/yagent/batch"
	"github.com/yagent/yagent/internal/brief"
	"github.com/yagent/yagent/internal/termsafe"
)

// Batch shows a batch run's progress on errOut: a line per start,
// finish and skip with the time since the run began and, on a terminal, a
// one-line progress bar kept below the lines.
type Batch struct {
	mu      sync.Mutex
	errOut  io.Writer
	tty     bool
	start   time.Time
	last    time.Time
	total   int
	done    int
	running int
	bar     bool // the bar is on screen
	view    eventline.View
}

// NewBatch returns a batch printer on errOut; tty draws the bar.
func NewBatch(errOut io.Writer, tty bool) *Batch {
	return &Batch{errOut: errOut, tty: tty}
}

// BatchSink is where a batch's events go: with asJSON a JSON stream on
// out (human nil), else a Batch on errOut (human is it, for the table).
func BatchSink(asJSON bool, out, errOut io.Writer, tty bool) (sink agents.Sink, human *Batch) {
	if asJSON {
		return NewJSON(out, errOut), nil
	}
	human = NewBatch(errOut, tty)
	return human, human
}

// Emit prints the lines of e, a delegation's after its clock.
func (p *Batch) Emit(e agents.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.last = e.Time
	clock := ""
	switch e.Type {
	case agents.EventBatchStarted:
		p.start, p.total = e.Time, e.Batch.Delegations
	case agents.EventDelegationStarted:
		p.running++
		clock = p.clock(e)
	case agents.EventDelegationFinished:
		p.done++
		if !e.Delegation.Resumed {
			p.running--
		}
		clock = p.clock(e)
	case agents.EventDelegationSkipped:
		p.done++
		clock = p.clock(e)
	case agents.EventBatchFinished:
		p.clearBar()
		return
	}
	for _, l := range p.view.Lines(e, eventline.Options{}) {
		p.clearBar()
		io.WriteString(p.errOut, clock+l.Text+"\n")
	}
	p.drawBar()
}

// clock is the time since the run began, as "[  1.2s] ", before the
// lines of a delegation.
func (p *Batch) clock(e agents.Event) string {
	return fmt.Sprintf("[%5.1fs] ", e.Time.Sub(p.start).Seconds())
}

func (p *Batch) clearBar() {
	if p.bar {
		io.WriteString(p.errOut, "\r\x1b[K")
		p.bar = false
	}
}

// drawBar shows "[█████░░░░░] 12/200 · 16 running · 3.4s" on a terminal.
func (p *Batch) drawBar() {
	if !p.tty || p.total == 0 {
		return
	}
	fmt.Fprintf(p.errOut, "%s %d/%d · %d running · %.1fs", bar(p.done, p.total), p.done, p.total, p.running, p.last.Sub(p.start).Seconds())
	p.bar = true
}

// Finish prints the closing line: counts, requests, tokens, wall time and
// where the notes are.
func (p *Batch) Finish(rep *batch.Report) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearBar()
	u := rep.Usage()
	fmt.Fprintf(p.errOut, "── %d delegations: %s · %d requests · %d tokens · %s\n", len(rep.Delegations), rep.CountsText(),
		u.Requests, u.PromptTokens+u.CompletionTokens, eventline.Seconds(rep.Elapsed.Milliseconds()))
	fmt.Fprintf(p.errOut, "board %s: yagent board ls --board %s\n", rep.Board, rep.Board)
}

// BatchTable prints the report, one row per delegation in plan order.
func BatchTable(w io.Writer, rep *batch.Report) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tAGENT\tSTATUS\tREF\tCONCLUSION\tTOKENS\tTIME")
	for _, d := range rep.Delegations {
		ref, tokens, took := d.Ref, "-", eventline.Seconds(d.Elapsed.Milliseconds())
		if ref == "" {
			ref = "-"
		}
		if d.Usage.Requests > 0 {
			tokens = strconv.Itoa(d.Usage.PromptTokens + d.Usage.CompletionTokens)
		}
		switch {
		case d.Resumed:
			tokens, took = "-", "resumed"
		case d.Usage.Requests == 0 && d.Elapsed == 0:
			took = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", termsafe.Line(d.ID), termsafe.Line(d.Agent), d.Status, termsafe.Line(ref), brief.Line(brief.FirstNonBlank(d.Conclusion, d.Reason), 70), tokens, took)
	}
	return tw.Flush()
}
