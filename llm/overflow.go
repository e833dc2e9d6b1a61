package llm

import (
	"errors"
	"net/http"
	"strings"
)

// contextOverflows is how providers say that a request is longer than the
// model's context window: one row per wording, matched case-insensitively
// against the error's code, type and message. Every row has at least one
// real error, with its source, in TestContextOverflowTable
// (overflow_test.go). Errors that only look alike stay out: a rate limit
// on tokens per minute (429) and an output cap ("max_tokens: 10000 > 4096")
// are not cured by a shorter history.
var contextOverflows = []struct {
	provider string
	marker   string // lower case
}{
	{"OpenAI, Azure, Groq (code)", "context_length_exceeded"},
	{"OpenAI Responses API", "exceeds the context window"},
	{"OpenAI legacy, vLLM, DeepSeek, OpenRouter, Kimi", "maximum context length"},
	{"Anthropic", "prompt is too long"},
	{"Anthropic (input plus max_tokens)", "exceed context limit"},
	{"Gemini", "exceeds the maximum number of tokens allowed"},
	{"vLLM V1", "longer than the maximum model length"},
	{"llama.cpp server (type)", "exceed_context_size_error"},
	{"llama.cpp server", "exceeds the available context size"},
	{"Ollama (truncate: false)", "exceeds the context length"},
	{"LM Studio", "exceeds context length"},
	{"LM Studio (context overflow policy stop)", "greater than the context length"},
	{"Mistral", "too large for model with"},
	{"Amazon Bedrock", "input is too long"},
	{"xAI", "maximum prompt length"},
}

// overflowMarker returns the row of contextOverflows that the error's
// words match, or "" when none does.
func overflowMarker(status int, code, typ, msg string) string {
	if status == http.StatusTooManyRequests {
		return "" // "Request too large … tokens per min": a rate limit, not the window
	}
	words := strings.ToLower(code + " " + typ + " " + msg)
	for _, o := range contextOverflows {
		if strings.Contains(words, o.marker) {
			return o.marker
		}
	}
	return ""
}

// ContextOverflow reports whether the provider refused the request as
// longer than the model's context window.
func (e *APIError) ContextOverflow() bool {
	return overflowMarker(e.StatusCode, e.Code, e.Type, e.Message) != ""
}

// IsContextOverflow reports whether err says a request did not fit the
// model's context window — an HTTP error or an error event in a stream, in
// any of the wordings of contextOverflows. A shorter history may cure it;
// the same request never will.
func IsContextOverflow(err error) bool {
	if api, ok := errors.AsType[*APIError](err); ok {
		return api.ContextOverflow()
	}
	if se, ok := errors.AsType[*streamError](err); ok {
		return se.overflow
	}
	return false
}
