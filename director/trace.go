package director

import (
	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/telemetry"
)

// endTurnSpan records how a director turn ended: its reason, steps and
// tokens; the person's input and the answer are content.
func endTurnSpan(sp *telemetry.Span, input string, out *agents.Outcome, err error) {
	sp.Content(telemetry.KeyInputMessages, func() string { return telemetry.TextMessages("user", input) })
	if out != nil {
		sp.String(telemetry.KeyReason, out.Reason)
		sp.Int(telemetry.KeySteps, out.Steps)
		sp.Usage(out.Usage.PromptTokens, out.Usage.CompletionTokens, out.Usage.CachedTokens, out.Usage.ReasoningTokens)
		sp.Content(telemetry.KeyOutputMessages, func() string { return telemetry.TextMessages("assistant", out.Final) })
	}
	sp.End(err)
}
