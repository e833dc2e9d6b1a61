package notebook

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// BlockHeader starts the notebook's part of the [state] block.
const BlockHeader = "[notebook]"

// Block renders the notebook for the tail's [state] block. An empty
// notebook gets a block only under pressure — silence there would miss the
// main case: a long session that has not written anything yet.
func Block(notes []Note, mode Mode, underPressure bool, pinnedBudget int) string {
	var b strings.Builder
	if len(notes) == 0 {
		if !underPressure {
			return ""
		}
		return BlockHeader + " empty. Before the conversation is compacted, save what must survive with chat_note_save."
	}
	chars, count := Size(notes)
	if mode == Inline {
		fmt.Fprintf(&b, "%s %d notes, %d characters:", BlockHeader, count, chars)
		for _, n := range notes {
			pin := ""
			if n.Pinned {
				pin = " (pinned)"
			}
			fmt.Fprintf(&b, "\n## %s | %s%s\n%s", n.Name, n.Description, pin, strings.TrimRight(n.Body, "\n"))
		}
		return b.String()
	}
	fmt.Fprintf(&b, "%s %d notes, %d characters — index mode: chat_note_read NAME gives a body.", BlockHeader, count, chars)
	for _, n := range notes {
		if !n.Pinned {
			fmt.Fprintf(&b, "\n- %s — %s", n.Name, n.Description)
		}
	}
	// Pinned notes verbatim, within their budget. A pin over the budget
	// (restored from the archive, a lowered ceiling) is named with a
	// marker and does not push the others out.
	used := 0
	for _, n := range notes {
		if !n.Pinned {
			continue
		}
		size := utf8.RuneCountInString(n.Body)
		if used+size > pinnedBudget {
			fmt.Fprintf(&b, "\n## %s | %s (pinned; over the pin budget — chat_note_read %s for the body)", n.Name, n.Description, n.Name)
			continue
		}
		used += size
		fmt.Fprintf(&b, "\n## %s | %s (pinned)\n%s", n.Name, n.Description, strings.TrimRight(n.Body, "\n"))
	}
	return b.String()
}
