package agents

import (
	"context"
	"errors"
)

// LineAsker is an Asker that can also take a line of text from the
// person (an MCP server's elicitation asks for strings and numbers). The
// plain prompt's asker (internal/ttyask) is one; an asker that is not
// can still answer yes/no questions through Ask.
type LineAsker interface {
	Asker
	// AskLine shows prompt and returns the line typed ("" for an empty
	// line or the end of input).
	AskLine(ctx context.Context, prompt string) (string, error)
}

// ErrNoLine is AskLine of an asker that cannot take text.
var ErrNoLine = errors.New("this prompt takes no text")

// AskLine passes a line question on to the asker HookAsker wraps.
func (h hookAsker) AskLine(ctx context.Context, prompt string) (string, error) {
	if la, ok := h.ask.(LineAsker); ok {
		return la.AskLine(ctx, prompt)
	}
	return "", ErrNoLine
}

// TakesLines says ask can take a line of text (through HookAsker too).
func TakesLines(ask Asker) bool {
	switch a := ask.(type) {
	case hookAsker:
		return TakesLines(a.ask)
	case LineAsker:
		return true
	}
	return false
}
