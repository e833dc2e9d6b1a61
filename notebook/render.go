package notebook

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/yagent/yagent/internal/linediff"
	"github.com/yagent/yagent/internal/termsafe"
)

// BlockHeader starts the notebook's part of the [state] block.
const BlockHeader = "[notebook]"

// PinLimits are the pinned notes' own budget in the index-mode block:
// Chars (pinned_chars, never below max_note_chars) and Max (pinned_max).
type PinLimits struct{ Chars, Max int }

// Block renders the notebook for the tail's [state] block. An empty
// notebook gets a block only under pressure — silence there would miss the
// main case: a long session that has not written anything yet.
func Block(notes []Note, mode Mode, underPressure bool, pins PinLimits) string {
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
	quoted := quotedPins(notes, pins)
	for _, n := range notes {
		switch {
		case !n.Pinned:
		case quoted[n.Name]:
			fmt.Fprintf(&b, "\n## %s | %s (pinned)\n%s", n.Name, n.Description, strings.TrimRight(n.Body, "\n"))
		default:
			fmt.Fprintf(&b, "\n## %s | %s (pinned; over the pin budget — chat_note_read %s for the body)", n.Name, n.Description, n.Name)
		}
	}
	return b.String()
}

// quotedPins decides which pinned notes are quoted verbatim within the pin
// budget. Pins that passed the budget check hold their place in the order
// they were admitted (PinnedAt, then name); a pin that arrived past the
// check — restored from the archive, rewritten by a rebuild, or over a
// ceiling lowered since — comes after them, so it is the one named with a
// marker instead of quoted, and pushes no other pin out.
func quotedPins(notes []Note, pins PinLimits) map[string]bool {
	var pinned []Note
	for _, n := range notes {
		if n.Pinned {
			pinned = append(pinned, n)
		}
	}
	slices.SortStableFunc(pinned, func(a, b Note) int {
		if c := a.PinnedAt.Compare(b.PinnedAt); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	quoted := map[string]bool{}
	used := 0
	for _, n := range pinned {
		size := utf8.RuneCountInString(n.Body)
		if len(quoted) < pins.Max && used+size <= pins.Chars {
			quoted[n.Name] = true
			used += size
		}
	}
	return quoted
}

// WriteShown writes what `yagent notes show` prints: the note's heading
// and body on out, the lines its last edit changed on errOut. The model
// writes the notebook: shown, never obeyed (termsafe).
func WriteShown(out, errOut io.Writer, n Note) {
	pin := ""
	if n.Pinned {
		pin = " (pinned)"
	}
	fmt.Fprintf(out, "## %s | %s%s\n%s\n", termsafe.Line(n.Name), termsafe.Line(n.Description), pin, termsafe.Text(strings.TrimRight(n.Body, "\n")))
	if n.PrevBody != "" && n.PrevBody != n.Body {
		fmt.Fprintln(errOut, "last edit:")
		for _, l := range linediff.Changed(n.PrevBody, n.Body) {
			fmt.Fprintln(errOut, "  "+termsafe.Text(l))
		}
	}
}

// WriteSaved writes what `yagent notes put` prints: the note created or
// saved on out, the lines the write changed on errOut.
func WriteSaved(out, errOut io.Writer, res SaveResult) {
	verb := "saved"
	if res.Created {
		verb = "created"
	}
	fmt.Fprintf(out, "📝 %s %s\n", verb, termsafe.Line(res.Note.Name))
	for _, l := range linediff.Changed(res.Note.PrevBody, res.Note.Body) {
		fmt.Fprintln(errOut, "   "+termsafe.Text(l))
	}
}

// WritePinned writes what `yagent notes pin` prints.
func WritePinned(out io.Writer, n Note) {
	verb := "unpinned"
	if n.Pinned {
		verb = "pinned"
	}
	fmt.Fprintf(out, "📝 %s %s\n", verb, termsafe.Line(n.Name))
}

// Deleted is what `yagent notes rm` prints: {deleted} as JSON, else Text.
type Deleted struct {
	Name string `json:"deleted"`
}

// Text is the line of a deleted note.
func (d Deleted) Text() string { return "📝 deleted " + termsafe.Line(d.Name) }
