package director

// boardIndex rebuilds the board index from disk. It is called before every
// director model call; the text goes into that one request's transient tail
// and nowhere else — never into the history, never into the rollout — which
// is why findings survive compaction.
func (d *Director) boardIndex() (string, error) {
	idx, err := d.app.Board.BuildIndex(d.opts.BoardID, d.app.Index)
	return idx.Text, err
}
