package printer

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/yagent/yagent/agents"
)

// Notices prints yagent's notices to w, one per line, and nothing else
// (the commands that open a session to inspect it).
func Notices(w io.Writer) agents.Sink {
	return noticeLines(w, "")
}

// NoticeLog prints yagent's notices to w, one per line after the time of
// day, and nothing else (a worker's log of jobs).
func NoticeLog(w io.Writer) agents.Sink {
	return noticeLines(w, "15:04:05 ")
}

func noticeLines(w io.Writer, clock string) agents.Sink {
	var mu sync.Mutex
	return agents.SinkFunc(func(e agents.Event) {
		if e.Type == agents.EventNotice {
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintln(w, e.Time.Format(clock)+e.Text)
		}
	})
}

// OnlyNotices passes sink yagent's notices (the replay label, recoveries)
// and nothing else: a batch or a worker runs many sub-agents at once, whose
// own events (text, tool calls) would be noise.
func OnlyNotices(sink agents.Sink) agents.Sink {
	return agents.SinkFunc(func(e agents.Event) {
		if e.Type == agents.EventNotice {
			sink.Emit(e)
		}
	})
}

// Progress draws "[█████░░░] 12/40 files" on a terminal (On), nothing
// elsewhere.
type Progress struct {
	W    io.Writer
	On   bool
	seen bool
}

// Update redraws the bar at done of total.
func (b *Progress) Update(done, total int) {
	if !b.On || total == 0 {
		return
	}
	fmt.Fprintf(b.W, "\r\x1b[K%s %d/%d files", bar(done, total), done, total)
	b.seen = true
}

// Clear removes the bar, if it was drawn.
func (b *Progress) Clear() {
	if b.seen {
		io.WriteString(b.W, "\r\x1b[K")
	}
}

// bar is "[█████░░░░░]", done of total filled.
func bar(done, total int) string {
	const width = 24
	filled := done * width / total
	return "[" + strings.Repeat("█", filled) + strings.Repeat("░", width-filled) + "]"
}
