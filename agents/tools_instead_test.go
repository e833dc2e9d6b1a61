package agents

import (
	"context"
	"strings"
	"testing"
)

// insteadAsker declines every question with the person's words.
type insteadAsker struct{ asked []Question }

func (a *insteadAsker) Ask(ctx context.Context, q Question) (Answer, error) {
	ans, _, err := a.AskInstead(ctx, q)
	return ans, err
}

func (a *insteadAsker) AskInstead(_ context.Context, q Question) (Answer, string, error) {
	a.asked = append(a.asked, q)
	return Deny, "  use make test instead  ", nil
}

// TestDeclinedWithInstructions (issue 32 item 6): "no, and tell it what
// to do instead" reaches the model as the refusal's reason, for a command
// and a write, through the hook asker every run wraps its asker in.
func TestDeclinedWithInstructions(t *testing.T) {
	w := demoWorkspace(t)
	person := &insteadAsker{}
	policy := ShellPolicy{Approval: ApproveUntrusted, Ask: HookAsker(person)}
	tools := append(FSTools(w, policy), ShellTool(w, policy))
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"shell", map[string]any{"command": "go test ./..."}},
		{"write_file", map[string]any{"path": "x.txt", "content": "x\n"}},
	} {
		r := call(t, tools, c.tool, c.args)
		if want := "the person declined and said what to do instead: use make test instead"; !r.IsError || !strings.Contains(r.Content, want) {
			t.Errorf("%s declined with words = %q; want the refusal saying %q", c.tool, r.Content, want)
		}
	}
	if len(person.asked) != 2 {
		t.Errorf("the person was asked %d times; want 2", len(person.asked))
	}
	if got := declined(" "); got != refuseDeclined {
		t.Errorf("declined without words = %q; want the plain refusal", got)
	}
}
