package llm

import "fmt"

// placeTail puts the transient tail (the message marked Transient, which
// the caller appends last) where the profile says. With TailOwnMessage the
// messages go out as given. With TailMergeIntoLast the tail's text is
// appended to the history's last message, so no user message follows a
// tool message; the tail stays last in the request either way, after the
// cacheable prefix. msgs is never modified.
func placeTail(msgs []Message, where TailPlacement) ([]Message, error) {
	n := len(msgs)
	for i, m := range msgs {
		if m.Transient && i != n-1 {
			return nil, fmt.Errorf("message %d: the transient tail must be the last message", i)
		}
	}
	if n < 2 || !msgs[n-1].Transient || where != TailMergeIntoLast {
		return msgs, nil
	}
	last := msgs[n-2]
	if last.Role != RoleUser && last.Role != RoleTool {
		return msgs, nil
	}
	out := append(msgs[:n-2:n-2], last)
	out[n-2].Content += "\n\n" + msgs[n-1].Content
	return out, nil
}
