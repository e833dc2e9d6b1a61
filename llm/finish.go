package llm

import "errors"

// Finish reasons that end a stream without an answer.
const (
	FinishError         = "error"          // the provider failed upstream (OpenRouter)
	FinishContentFilter = "content_filter" // the provider's filter stopped the answer
	FinishLength        = "length"         // the output cap was reached
)

// ErrFinishedWithoutAnswer marks an answer the provider ended with a finish
// reason that is not an answer (error, content_filter, or a length stop
// before any text or tool call).
var ErrFinishedWithoutAnswer = errors.New("the model ended its answer without answering")

// finishError is the error of a stream that ended without an answer.
type finishError struct {
	reason string
	msg    string
}

func (e *finishError) Error() string { return e.msg }
func (e *finishError) Unwrap() error { return ErrFinishedWithoutAnswer }

// notAnAnswer reports an answer that ended without answering. A stream
// that finished with "error" is retryable (the provider says its upstream
// failed); a content filter or an output cap spent before any text or tool
// call (often all of it on reasoning) is not: the same request would end
// the same way.
func notAnAnswer(r Response) error {
	m := r.Message
	switch {
	case r.FinishReason == FinishError:
		return retryable(&finishError{FinishError, "the provider ended the answer with finish_reason \"error\" (an upstream failure)"})
	case r.FinishReason == FinishContentFilter:
		return &finishError{FinishContentFilter, "the provider's content filter stopped the answer (finish_reason \"content_filter\"): rephrase the request or use another model"}
	case r.FinishReason == FinishLength && m.Content == "" && len(m.ToolCalls) == 0:
		what := "before any text"
		if m.Reasoning != "" {
			what = "on reasoning, before any text"
		}
		return &finishError{FinishLength, "the model spent its whole output limit " + what + " (finish_reason \"length\"): raise the limit or lower models.<name>.reasoning_effort"}
	}
	return nil
}
