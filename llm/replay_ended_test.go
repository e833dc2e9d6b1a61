package llm_test

import (
	"strings"
	"testing"

	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/llm/llmtest"
)

// TestReplayEndedSaysSo: a person who types past a replay's script is told
// the scripted scenario has ended, not given a provider's advice about
// parameters (issue 32 item 3); outside a replay an unmatched request is
// still the server's own complaint.
func TestReplayEndedSaysSo(t *testing.T) {
	const sc = "steps: [{reply: {text: hello}}]"
	for _, replay := range []bool{true, false} {
		srv := inlineServer(t, sc, llmtest.WithReplay(replay))
		c := newClient(t, srv.URL(), nil)
		req := llm.Request{Messages: director(user("hi"))}
		if _, err := c.Stream(t.Context(), req); err != nil {
			t.Fatal(err)
		}
		_, err := c.Stream(t.Context(), req)
		if err == nil {
			t.Fatalf("replay=%v: a second request past the script succeeded", replay)
		}
		msg := err.Error()
		ended := strings.Contains(msg, "scenario has ended") && !strings.Contains(msg, "drop_params")
		if ended != replay {
			t.Errorf("replay=%v: error %q", replay, msg)
		}
	}
}
