package agents

import "errors"

// ErrNoBoardScope is returned when neither a session id nor a task id is
// known: the caller must not fall back to an empty board id, which
// blackboard.SanitizeBoardID would turn into a fresh ad-hoc board every
// round — an index that is always empty, silently.
var ErrNoBoardScope = errors.New("no session or task id to scope the board to")

// SetBoardScope returns the board id of a session: the session id first,
// else the task id (rollouts from before board ids were recorded).
func SetBoardScope(sessionID, taskID string) (string, error) {
	switch {
	case sessionID != "":
		return sessionID, nil
	case taskID != "":
		return taskID, nil
	}
	return "", ErrNoBoardScope
}
