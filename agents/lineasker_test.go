package agents

import (
	"context"
	"errors"
	"testing"
)

type yesAsker struct{}

func (yesAsker) Ask(context.Context, Question) (Answer, error) { return Allow, nil }

type typingAsker struct{ yesAsker }

func (typingAsker) AskLine(context.Context, string) (string, error) { return "typed", nil }

// TestHookAskerPassesLines: the hook wrapper every run puts in front of
// the person's asker still takes a line (an MCP server's elicitation in
// the plain prompt), and says so when the asker beneath takes none.
func TestHookAskerPassesLines(t *testing.T) {
	la, ok := HookAsker(typingAsker{}).(LineAsker)
	if !ok {
		t.Fatal("HookAsker's result is not a LineAsker")
	}
	if got, err := la.AskLine(t.Context(), "x"); got != "typed" || err != nil {
		t.Errorf("AskLine = %q, %v; want typed", got, err)
	}
	if !TakesLines(HookAsker(typingAsker{})) || TakesLines(HookAsker(yesAsker{})) || TakesLines(yesAsker{}) {
		t.Error("TakesLines does not see through HookAsker to the asker beneath")
	}
	if _, err := HookAsker(yesAsker{}).(LineAsker).AskLine(t.Context(), "x"); !errors.Is(err, ErrNoLine) {
		t.Errorf("AskLine over an asker without lines: %v; want ErrNoLine", err)
	}
}
