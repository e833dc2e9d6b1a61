package director

import (
	"context"
	"time"
)

// boardIndex rebuilds the board index from disk. It is called before every
// director model call; the text goes into that one request's transient tail
// and nowhere else — never into the history, never into the rollout — which
// is why findings survive compaction. After the notes come this process's
// background delegations still running (live state, never notes) and
// those that finished since the lead's last call (the session's record);
// in a turn, the refs shown are kept until a response marks them seen.
func (d *Director) boardIndex(ctx context.Context) (string, error) {
	idx, err := d.app.Board.BuildIndex(d.opts.BoardID, d.app.Index)
	if err != nil {
		return "", err
	}
	bg, shown := d.backgroundSections(time.Now())
	if t := turnOf(ctx); t != nil {
		t.shown = shown
	}
	switch {
	case bg == "":
		return idx.Text, nil
	case idx.Text == "":
		return bg, nil
	}
	return idx.Text + "\n\n" + bg, nil
}

// markShown records that the lead saw the finished background
// delegations the request just answered listed (never fails the turn).
func (d *Director) markShown(t *turnState) {
	if len(t.shown) == 0 {
		return
	}
	d.warn("record which finished delegations the lead was shown", d.opts.Session.MarkSeen(t.shown...))
	t.shown = nil
}
