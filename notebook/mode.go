package notebook

import (
	"context"
	"fmt"
	"unicode/utf8"

	"github.com/yagent/yagent/config"
)

// Mode is how the notebook is shown for a turn.
type Mode string

const (
	// Inline: bodies verbatim in the block; there is no read tool.
	Inline Mode = "inline"
	// Index: name — description lines plus pinned notes verbatim;
	// chat_note_read exists.
	Index Mode = "index"
)

// Size is a notebook's size: body characters and notes.
func Size(notes []Note) (chars, count int) {
	for _, n := range notes {
		chars += utf8.RuneCountInString(n.Body)
	}
	return chars, len(notes)
}

// NextMode applies the hysteresis: from inline, enter index above either
// upper bound; from index, return to inline only below both lower bounds.
// Without it a notebook on the edge would flip the tool list — and break
// the prompt cache — every turn.
func NextMode(prev Mode, chars, count int, c config.Notes) Mode {
	if prev == Index {
		if chars < c.IndexLeaveChars && count < c.IndexLeaveNotes {
			return Inline
		}
		return Index
	}
	if chars > c.IndexEnterChars || count > c.IndexEnterNotes {
		return Index
	}
	return Inline
}

// NeedsRebuild reports whether the notebook is past the compact
// thresholds (the "compact" event after a turn).
func NeedsRebuild(notes []Note, c config.Notes) bool { return OverCompact(notes, c) != "" }

// OverCompact says which compact threshold the notebook is past ("" when
// none): "18000 characters, over notes.compact_chars (16000)".
func OverCompact(notes []Note, c config.Notes) string {
	chars, count := Size(notes)
	switch {
	case chars > c.CompactChars:
		return fmt.Sprintf("%d characters, over notes.compact_chars (%d)", chars, c.CompactChars)
	case count > c.CompactNotes:
		return fmt.Sprintf("%d notes, over notes.compact_notes (%d)", count, c.CompactNotes)
	}
	return ""
}

// EnterTurn computes the mode at turn entry from the notebook's size and
// the previous mode (chats.notes_mode), stores it, and fixes it — with an
// empty read set for the blind-overwrite guard — for the whole turn.
func (b *Book) EnterTurn(ctx context.Context) (Mode, error) {
	var prev string
	if err := b.db.QueryRowContext(ctx, `SELECT notes_mode FROM chats WHERE id = ?`, b.chatID).Scan(&prev); err != nil {
		return Inline, err
	}
	notes, err := b.List(ctx)
	if err != nil {
		return Inline, err
	}
	chars, count := Size(notes)
	mode := NextMode(Mode(prev), chars, count, b.cfg)
	if string(mode) != prev {
		if _, err := b.db.ExecContext(ctx, `UPDATE chats SET notes_mode = ? WHERE id = ?`, string(mode), b.chatID); err != nil {
			return mode, err
		}
	}
	b.mu.Lock()
	b.mode, b.read = mode, map[string]bool{}
	b.mu.Unlock()
	return mode, nil
}
