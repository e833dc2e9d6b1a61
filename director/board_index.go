package director

import (
	"context"
	"strings"
	"time"

	"github.com/yagent/yagent/blackboard"
)

// boardIndex rebuilds the board index from disk. It is called before every
// director model call; the text goes into that one request's transient tail
// and nowhere else — never into the history, never into the rollout — which
// is why findings survive compaction. The lead's unread messages come
// first (issue 30 item 4; what it was shown is its session's record),
// then the notes, the task list's counts, this process's background
// delegations still running (live state, never notes) and those that
// finished since the lead's last call (the session's record); in a turn,
// the refs shown are kept until a response marks them seen.
func (d *Director) boardIndex(ctx context.Context) (string, error) {
	idx, err := d.app.Board.BuildIndex(d.opts.BoardID, d.app.Index)
	if err != nil {
		return "", err
	}
	bg, shown := d.backgroundSections(time.Now())
	mail, unread := d.mailSection()
	if t := turnOf(ctx); t != nil {
		t.shown, t.mail = shown, unread
	}
	var tasks string
	if d.app.Index.MaxNotes > 0 {
		if l, err := d.app.Board.Tasks(d.opts.BoardID); err == nil {
			tasks = l.Summary()
		}
	}
	var parts []string
	for _, p := range []string{mail, idx.Text, tasks, bg} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, "\n\n"), nil
}

// mailSection is the lead's unread messages and their refs.
func (d *Director) mailSection() (string, []string) {
	if d.app.Index.MaxNotes == 0 {
		return "", nil // the index is off
	}
	msgs, err := d.app.Board.Mailbox(d.opts.BoardID, blackboard.Director)
	if err != nil {
		return "", nil
	}
	var unread []blackboard.Message
	var refs []string
	for _, m := range msgs {
		if !d.opts.Session.Read(m.Ref) {
			unread = append(unread, m)
			refs = append(refs, m.Ref)
		}
	}
	return blackboard.FormatMailbox(unread, 0), refs
}

// markShown records that the lead saw the finished background
// delegations and the messages the request just answered listed (never
// fails the turn).
func (d *Director) markShown(t *turnState) {
	if len(t.mail) > 0 {
		d.warn("record which messages the lead was shown", d.opts.Session.MarkRead(t.mail...))
		t.mail = nil
	}
	if len(t.shown) == 0 {
		return
	}
	d.warn("record which finished delegations the lead was shown", d.opts.Session.MarkSeen(t.shown...))
	t.shown = nil
}
