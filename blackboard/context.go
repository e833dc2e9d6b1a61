package blackboard

import "context"

type boardIDKey struct{}

// WithBoardID returns a context carrying the session's board id, read back
// by the board tools (list_notes, read_note, context_pack).
func WithBoardID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, boardIDKey{}, id)
}

// BoardIDFrom returns the board id carried by ctx; ok is false when there is
// none or it is empty.
func BoardIDFrom(ctx context.Context) (id string, ok bool) {
	id, _ = ctx.Value(boardIDKey{}).(string)
	return id, id != ""
}
