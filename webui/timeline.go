package webui

import (
	"fmt"
	"net/http"
	"time"

	"github.com/yagent/yagent/event"
	"github.com/yagent/yagent/memory"
)

// Geometry of the timeline's SVG (viewBox units; the picture scales).
const (
	tlWidth  = 1000.0
	tlLabel  = 220.0 // the label column
	tlRight  = 20.0
	tlRow    = 34.0
	tlBar    = 22.0
	tlAxis   = 30.0
	tlMinBar = 3.0 // a bar never vanishes, however short
)

// bar is one delegation over wall time.
type bar struct {
	CallID, Agent, Task, Status, Ref, Href, SubSession string
	Start, End                                         time.Time
	Running                                            bool
	Tokens                                             tokens
	X, Y, W                                            float64
	LabelY                                             float64
	Title                                              string
}

type tick struct {
	X     float64
	Label string
}

type timelineData struct {
	Info          memory.Info
	Start, End    time.Time
	Bars          []bar
	Ticks         []tick
	Height        float64
	Width, LabelW float64
	BarH          float64
	// Overlaps is how many pairs of bars ran at the same time.
	Overlaps int
}

// buildTimeline pairs each delegation's start with its finish (by call id,
// in the session's rollout) and lays the bars out over the session's wall
// time, one row each in start order, so parallel ones stand one above the
// other over the same stretch. A delegation still running ends at now.
func buildTimeline(in memory.Info, ro *memory.Rollout, now time.Time) timelineData {
	d := timelineData{Info: in, Start: ro.Meta.Created, Width: tlWidth, LabelW: tlLabel, BarH: tlBar}
	byCall := map[string]int{}
	last := ro.Meta.Created
	for _, it := range ro.Items {
		if it.Time.After(last) {
			last = it.Time
		}
		dl := it.Delegation
		if dl == nil {
			continue
		}
		switch it.Type {
		case event.DelegationStarted:
			byCall[dl.CallID] = len(d.Bars)
			d.Bars = append(d.Bars, bar{CallID: dl.CallID, Agent: dl.Agent, Task: dl.Task, SubSession: dl.SubSession, Start: it.Time, Running: true, Status: "running"})
		case event.DelegationFinished:
			i, ok := byCall[dl.CallID]
			if !ok { // recovered after a crash without its start line
				i = len(d.Bars)
				d.Bars = append(d.Bars, bar{CallID: dl.CallID, Agent: dl.Agent, SubSession: dl.SubSession, Start: it.Time})
			}
			b := &d.Bars[i]
			b.End, b.Running, b.Status, b.Ref = it.Time, false, dl.Status, dl.Ref
			b.Href = noteHref(in.BoardID, dl.Ref)
			delete(byCall, dl.CallID)
		}
	}
	for i := range d.Bars {
		if d.Bars[i].Running {
			d.Bars[i].End = now
			if now.After(last) {
				last = now
			}
		}
	}
	d.End = last
	if len(d.Bars) > 0 {
		// Zoom to the delegations: the director's own time before the
		// first start is not what the picture is about.
		d.Start = d.Bars[0].Start
		for _, b := range d.Bars {
			if b.Start.Before(d.Start) {
				d.Start = b.Start
			}
		}
		d.End = d.Start
		for i := range d.Bars {
			b := &d.Bars[i]
			if b.End.Before(b.Start) { // a clock that went back: never a negative bar
				b.End = b.Start
			}
			if b.End.After(d.End) {
				d.End = b.End
			}
		}
	}
	span := d.End.Sub(d.Start)
	if span <= 0 {
		span = time.Millisecond
	}
	area := tlWidth - tlLabel - tlRight
	x := func(t time.Time) float64 { return tlLabel + area*float64(t.Sub(d.Start))/float64(span) }
	for i := range d.Bars {
		b := &d.Bars[i]
		b.X = x(b.Start)
		b.W = max(x(b.End)-b.X, tlMinBar)
		b.Y = tlAxis + float64(i)*tlRow
		b.LabelY = b.Y + tlBar*0.7
	}
	for i := range d.Bars {
		for j := i + 1; j < len(d.Bars); j++ {
			if d.Bars[i].Start.Before(d.Bars[j].End) && d.Bars[j].Start.Before(d.Bars[i].End) {
				d.Overlaps++
			}
		}
	}
	for k := 0; k <= 4; k++ {
		at := time.Duration(float64(span) * float64(k) / 4)
		d.Ticks = append(d.Ticks, tick{X: tlLabel + area*float64(k)/4, Label: "+" + fmtDur(at)})
	}
	d.Height = tlAxis + float64(len(d.Bars))*tlRow + 10
	return d
}

func fmtDur(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return d.Round(time.Second).String()
}

func (s *Server) timelinePage(w http.ResponseWriter, r *http.Request) {
	in, ro, ok := s.session(w, r)
	if !ok {
		return
	}
	d := buildTimeline(in, ro, s.o.Now())
	for i := range d.Bars {
		b := &d.Bars[i]
		if b.SubSession != "" {
			b.Tokens = s.sessionTokens(r, b.SubSession)
		}
		state := b.Status
		if b.Running {
			state = "running"
		}
		b.Title = fmt.Sprintf("%s · %s · %s · %s\n%s", b.Agent, state, fmtDur(b.End.Sub(b.Start)), b.Tokens, b.Task)
	}
	s.render(w, http.StatusOK, page{Title: "Timeline " + in.ID,
		Crumbs: append(sessionCrumbs(in), crumb{sessionHref(in.ID) + "/timeline", "timeline"}), Data: d})
}
