package llmtest

// usage computes the token counts of an answer, unless the step sets them.
// Prompt tokens are the request's tools and messages bytes over four. Cached
// tokens are the longest common byte prefix with the previous answered
// request of the same agent, over four: a client that keeps its prompt
// prefix stable shows high cached counts, as a provider's prompt cache
// would. Tools come first because chat templates render them first.
func (s *Server) usage(set *Usage, req *chatRequest, agent string, replyBytes int) wireUsage {
	prompt := make([]byte, 0, len(req.RawTools)+len(req.RawMessages))
	prompt = append(append(prompt, req.RawTools...), req.RawMessages...)
	var u wireUsage
	u.PromptTokens = (len(prompt) + 3) / 4
	if prev, ok := s.lastPrompt[agent]; ok {
		u.PromptTokensDetails.CachedTokens = commonPrefix(prev, prompt) / 4
	}
	s.lastPrompt[agent] = prompt
	u.CompletionTokens = max(1, (replyBytes+3)/4)
	if set != nil {
		if set.PromptTokens != nil {
			u.PromptTokens = *set.PromptTokens
		}
		if set.CachedTokens != nil {
			u.PromptTokensDetails.CachedTokens = *set.CachedTokens
		}
		if set.CompletionTokens != nil {
			u.CompletionTokens = *set.CompletionTokens
		}
	}
	u.PromptTokensDetails.CachedTokens = min(u.PromptTokensDetails.CachedTokens, u.PromptTokens)
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	return u
}

func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
