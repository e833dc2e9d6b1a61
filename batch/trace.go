package batch

import "github.com/yagent/yagent/telemetry"

// endBatchSpan records how a batch ended: how many delegations did not
// succeed; a cancelled run or one with failures fails the span.
func endBatchSpan(sp *telemetry.Span, r *Report) {
	if sp == nil {
		return
	}
	failed := 0
	for i := range r.Delegations {
		if !r.Delegations[i].Succeeded() {
			failed++
		}
	}
	sp.Int(telemetry.KeyBatchFailed, failed)
	u := r.Usage()
	sp.Usage(u.PromptTokens, u.CompletionTokens, u.CachedTokens, u.ReasoningTokens)
	switch {
	case r.Cancelled:
		sp.Fail("cancelled", "the batch was cancelled")
	case failed > 0:
		sp.Fail("delegation_failed", "a delegation did not succeed")
	}
	sp.End(nil)
}
