package director

import (
	"context"

	"github.com/yagent/yagent/blackboard"
)

// IndexTail returns a function that rebuilds the board index from disk. It
// is called before every director model call; the text goes into that one
// request's transient tail and nowhere else — never into the history, never
// into the rollout — which is why findings survive compaction.
func IndexTail(store *blackboard.Store, board string, opts blackboard.IndexOptions) func(context.Context) (string, error) {
	return func(context.Context) (string, error) {
		idx, err := store.BuildIndex(board, opts)
		if err != nil {
			return "", err
		}
		return idx.Text, nil
	}
}
