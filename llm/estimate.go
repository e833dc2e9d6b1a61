package llm

// perMessageOverhead approximates the tokens a chat template spends on a
// message's role and delimiters.
const perMessageOverhead = 4

// EstimateTokens is a cheap, deterministic estimate of the prompt tokens of
// msgs and tools: about one token per four bytes, plus a small overhead per
// message. Reasoning and provider extras count: they go back to providers
// that demand them. It is meant for accounting between two provider
// reports, not for billing.
func EstimateTokens(msgs []Message, tools []ToolDef) int {
	bytes := 0
	for _, m := range msgs {
		bytes += len(m.Role) + len(m.Content) + len(m.ToolCallID) + len(m.Reasoning)
		for _, raw := range m.Extras {
			bytes += len(raw)
		}
		for _, tc := range m.ToolCalls {
			bytes += len(tc.ID) + len(tc.Name) + len(tc.Arguments)
		}
	}
	for _, t := range tools {
		bytes += len(t.Name) + len(t.Description) + len(t.Parameters)
	}
	return (bytes+3)/4 + perMessageOverhead*len(msgs)
}
