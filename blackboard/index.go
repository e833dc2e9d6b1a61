package blackboard

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/yagent/yagent/config"
)

// IndexHeaderPrefix starts every index text. An injector recognises an
// index left in a request by an earlier step by this prefix and strips it,
// so injecting twice in one step is idempotent.
const IndexHeaderPrefix = "[board index"

// IndexOptions bound the index, as config resolved them (the defaults are
// in config/defaults.yaml). Its cost is at most MaxNotes × LineChars runes
// plus a header, paid on every director call and every delegation prefix.
type IndexOptions struct {
	// MaxNotes is how many of the newest notes are listed
	// (blackboard.index_max_notes); 0 turns the index off.
	MaxNotes int
	// LineChars is the rune budget of one line
	// (blackboard.index_line_chars); 0 means no trimming.
	LineChars int
}

// Index is a built index.
type Index struct {
	// Text is exactly what is injected into an LLM call; empty when the
	// board is empty or the index is off.
	Text string
	// Listed is the number of notes on lines, Total the notes on the board,
	// Skipped the listed candidates that could not be read.
	Listed, Total, Skipped int
	// Unreadable names the skipped notes, newest first.
	Unreadable []Unreadable
}

// BuildIndex rescans the board and renders its index. Only the newest
// MaxNotes files are decoded (file-name order is time order), so the cost
// beyond the directory listing does not grow with the board. Unreadable
// notes are counted and reported on a trailing line, so "the board is
// empty" and "N notes could not be read" look different.
func (s *Store) BuildIndex(board string, opts IndexOptions) (Index, error) {
	if !s.Enabled() || opts.MaxNotes <= 0 || board == "" {
		return Index{}, nil
	}
	dir := BoardDir(s.root, SanitizeBoardID(board))
	files, total, patched, err := s.newestFiles(dir, opts.MaxNotes)
	if err != nil {
		return Index{}, fmt.Errorf("build index of board %s: %w", board, err)
	}
	idx := Index{Total: total}
	if total == 0 {
		return idx, nil
	}
	var listed []NoteMeta
	metas := map[noteFile]NoteMeta{}
	superseded := map[string]bool{} // refs a listed follow-up's note replaces
	for i := len(files) - 1; i >= 0; i-- {
		m, h, err := s.readNoteMeta(dir, files[i])
		if err != nil {
			idx.Skipped++
			idx.Unreadable = append(idx.Unreadable, Unreadable{Ref: files[i].ref(), Err: err.Error()})
			continue
		}
		metas[files[i]] = m
		listed = append(listed, m)
		superseded[h.Supersedes] = h.Supersedes != ""
	}
	lines := make([]string, len(listed))
	for i, m := range listed {
		lines[i] = formatIndexLine(m, opts.LineChars, superseded[m.Ref])
	}
	// Every pending change, however old its note: one line each, so the
	// lead sees what waits for apply_change or discard_change.
	var pending []string
	for i := len(patched) - 1; i >= 0; i-- {
		m, ok := metas[patched[i]]
		if !ok {
			var err error
			if m, _, err = s.readNoteMeta(dir, patched[i]); err != nil {
				continue // a patch whose note is gone (GC removes it) or unreadable
			}
		}
		if m.Change != nil && m.Change.State == ChangePending {
			pending = append(pending, FormatChangeLine(m))
		}
	}
	idx.Listed = len(lines)
	var b strings.Builder
	fmt.Fprintf(&b, "%s · board %s] %d of %d notes, newest first. read_note{ref} returns a note's full text.", IndexHeaderPrefix, SanitizeBoardID(board), idx.Listed, idx.Total)
	for _, l := range lines {
		b.WriteByte('\n')
		b.WriteString(l)
	}
	if len(pending) > 0 {
		fmt.Fprintf(&b, "\n%d pending changes (apply_change{ref} merges one into the workspace, discard_change{ref} drops it):", len(pending))
		for _, l := range pending {
			b.WriteByte('\n')
			b.WriteString(l)
		}
	}
	if idx.Skipped > 0 {
		refs := make([]string, len(idx.Unreadable))
		for i, u := range idx.Unreadable {
			refs[i] = u.Ref
		}
		fmt.Fprintf(&b, "\n(%d unreadable notes skipped: %s)", idx.Skipped, strings.Join(refs, ", "))
	}
	idx.Text = b.String()
	return idx, nil
}

// FormatIndexLine renders one index line within budget runes (0 means no
// trimming). The retrievable ref is always kept whole, however small the
// budget; only the conclusion is trimmed (then dropped).
func FormatIndexLine(m NoteMeta, budget int) string { return formatIndexLine(m, budget, false) }

// formatIndexLine is FormatIndexLine, with "superseded" in the status of
// a note a newer listed note supersedes (a follow-up's).
func formatIndexLine(m NoteMeta, budget int, superseded bool) string {
	status := string(m.Status)
	if m.Degraded != DegradedNone {
		status += ", " + string(m.Degraded)
	}
	if m.Oversized {
		status += ", oversized"
	}
	if superseded {
		status += ", superseded"
	}
	head := "- " + m.Ref + " [" + status + "]"
	text := m.Conclusion
	if text == "" {
		text = m.Task
	}
	text = strings.Join(strings.Fields(text), " ")
	if text == "" {
		return head
	}
	if budget == 0 {
		return head + " " + text
	}
	room := budget - utf8.RuneCountInString(head) - 1
	if room < 2 {
		return head
	}
	return head + " " + truncateRunes(text, room)
}

// FormatChangeLine renders a note's pending change on one line: ref,
// branch and diffstat.
func FormatChangeLine(m NoteMeta) string {
	c := m.Change
	return fmt.Sprintf("- change %s: %s, %d files +%d -%d", m.Ref, c.Branch, len(c.Files), c.Insertions, c.Deletions)
}

// IndexOptionsFromConfig takes the index valves from configuration as they
// are: a 0 means the same here as there.
func IndexOptionsFromConfig(c config.Blackboard) IndexOptions {
	return IndexOptions{MaxNotes: c.IndexMaxNotes, LineChars: c.IndexLineChars}
}
