package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// APIError is an HTTP error answer from the model endpoint. Its Error is one
// line that names the endpoint and says what to do next.
type APIError struct {
	StatusCode int
	Code       string // provider error code, e.g. "model_not_found"
	Type       string // provider error type, e.g. "invalid_request_error"
	Message    string // provider message, flattened to one line
	Param      string // the request field the provider named, if any
	Model      string
	BaseURL    string
	Provider   string // the profile the request was built with
}

func (e *APIError) Error() string {
	msg := e.Message
	if msg == "" {
		msg = http.StatusText(e.StatusCode)
	}
	switch {
	case e.Code == "replay_ended": // llmtest.ReplayEnded: the server's own words say what to do
		return msg
	case e.StatusCode == http.StatusNotFound && e.isModelError(), e.Code == "model_not_found":
		return fmt.Sprintf("model %q not found at %s: check models.<name>.model or YAGENT_MODEL (server said: %s)", e.Model, e.BaseURL, msg)
	case e.StatusCode == http.StatusNotFound:
		return fmt.Sprintf("%s answered 404 (%s): check OPENAI_BASE_URL, it usually ends in /v1", e.BaseURL, msg)
	case e.StatusCode == http.StatusUnauthorized:
		return fmt.Sprintf("%s rejected the API key (401: %s): check OPENAI_API_KEY", e.BaseURL, msg)
	case e.StatusCode == http.StatusForbidden:
		return fmt.Sprintf("%s denied access to model %q (403: %s): check the API key's project and permissions", e.BaseURL, e.Model, msg)
	case e.Code == "insufficient_quota":
		return fmt.Sprintf("quota exhausted at %s (429: %s): check the account's plan and billing", e.BaseURL, msg)
	case e.StatusCode == http.StatusTooManyRequests:
		return fmt.Sprintf("rate limited by %s (429: %s): wait a little, lower parallelism or raise the rate limit", e.BaseURL, msg)
	case e.ContextOverflow():
		return fmt.Sprintf("the request is too long for the context window of model %q (%d: %s): set models.<name>.context_window to the model's real window so yagent compacts the history in time, or use a model with a larger window", e.Model, e.StatusCode, msg)
	case e.StatusCode >= 500:
		return fmt.Sprintf("server error at %s (%d: %s): the provider is failing, try again later", e.BaseURL, e.StatusCode, msg)
	case e.StatusCode == http.StatusBadRequest || e.StatusCode == http.StatusUnprocessableEntity:
		return fmt.Sprintf("%s rejected the request for model %q (%d: %s): %s", e.BaseURL, e.Model, e.StatusCode, msg, e.rejectHint())
	}
	return fmt.Sprintf("request to %s for model %q failed (%d: %s)", e.BaseURL, e.Model, e.StatusCode, msg)
}

// rejectHint says what to change for a request the provider refused,
// from what its message names.
func (e *APIError) rejectHint() string {
	low := strings.ToLower(e.Message)
	now := ""
	if e.Provider != "" {
		now = fmt.Sprintf(" (now %s)", e.Provider)
	}
	switch {
	case strings.Contains(low, "reasoning_content"):
		return "the provider wants the model's reasoning sent back: set models.<name>.provider to deepseek or moonshot" + now
	case strings.Contains(low, "thought_signature"):
		return "the provider wants Gemini's thought signatures sent back: set models.<name>.provider: gemini" + now
	case strings.Contains(low, "role 'user' after role 'tool'"), strings.Contains(low, "unexpected role"):
		return "the provider refuses this order of roles: set models.<name>.provider: mistral" + now + " or agents.tail_role"
	case e.Param != "":
		return fmt.Sprintf("the provider refused the field %q: drop it with models.<name>.drop_params: [%s], or check models.<name>.provider%s", e.Param, e.Param, now)
	}
	return "the model or server may not support a parameter or tools: drop a field with models.<name>.drop_params, or check models.<name>.provider" + now
}

func (e *APIError) isModelError() bool {
	return e.Code == "model_not_found" || strings.Contains(strings.ToLower(e.Message), "model")
}

// Retryable reports whether the same request may succeed later: rate limits
// (but not an exhausted quota), timeouts, conflicts and server errors — but
// never a request too long for the window, whatever its status (llama.cpp
// answered those with 500).
func (e *APIError) Retryable() bool {
	switch {
	case e.Code == "insufficient_quota", e.ContextOverflow():
		return false
	case e.StatusCode == http.StatusRequestTimeout, e.StatusCode == http.StatusConflict,
		e.StatusCode == http.StatusTooManyRequests, e.StatusCode >= 500:
		return true
	}
	return false
}

// newAPIError builds an APIError from a status and an error body in any of
// the shapes providers use: {"error":{"message","type","code"}},
// {"error":"text"}, {"message":"text"} or plain text.
func newAPIError(status int, body []byte, model, baseURL string) *APIError {
	e := &APIError{StatusCode: status, Model: model, BaseURL: baseURL}
	var env struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(body, &env) != nil {
		e.Message = oneLine(string(body))
		return e
	}
	var obj struct {
		Message string          `json:"message"`
		Type    string          `json:"type"`
		Code    json.RawMessage `json:"code"`
		Param   json.RawMessage `json:"param"`
	}
	var text string
	switch {
	case len(env.Error) > 0 && env.Error[0] == '{' && json.Unmarshal(env.Error, &obj) == nil:
		e.Message, e.Type, e.Code, e.Param = oneLine(obj.Message), obj.Type, rawCode(obj.Code), rawCode(obj.Param)
	case len(env.Error) > 0 && env.Error[0] == '"' && json.Unmarshal(env.Error, &text) == nil:
		e.Message = oneLine(text)
	default:
		e.Message = oneLine(env.Message)
	}
	return e
}

// rawCode renders a code that may be a string, a number or null.
func rawCode(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return ""
}

// oneLine flattens whitespace and caps the length so an error stays a line.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	const max = 300
	if len(s) > max {
		cut := max
		for cut > 0 && !isRuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// streamError is an error event received in the middle of a stream
// ({"error": {...}} in a data line), as OpenRouter and vLLM send when the
// upstream fails after the headers went out.
type streamError struct {
	msg       string
	retryable bool
	overflow  bool // too long for the window (IsContextOverflow)
}

func (e *streamError) Error() string { return "error event in stream: " + e.msg }

// newStreamError classifies an error event by its code: numeric codes like
// HTTP statuses, words that mean overload or a server failure.
func newStreamError(data []byte) *streamError {
	api := newAPIError(0, data, "", "")
	if api.Message == "" {
		api.Message = oneLine(string(data))
	}
	if n, err := strconv.Atoi(api.Code); err == nil {
		api.StatusCode = n
		return &streamError{msg: api.Message, retryable: api.Retryable(), overflow: api.ContextOverflow()}
	}
	if api.ContextOverflow() {
		return &streamError{msg: api.Message, overflow: true}
	}
	words := strings.ToLower(api.Code + " " + api.Type + " " + api.Message)
	retryable := false
	for _, w := range []string{"server", "overload", "rate", "timeout", "unavailable", "disconnect", "internal"} {
		if strings.Contains(words, w) {
			retryable = true
		}
	}
	return &streamError{msg: api.Message, retryable: retryable}
}

// retryableError marks failures of one attempt that a new attempt may cure.
type retryableError struct{ err error }

func (e *retryableError) Error() string { return e.err.Error() }
func (e *retryableError) Unwrap() error { return e.err }

func retryable(err error) error { return &retryableError{err} }

// IsTransient reports whether err is a failure a later attempt may cure
// that Stream gave up on after its own retries: a 5xx, a rate limit, a
// timeout, a refused or cut connection. A caller with other hosts (a
// queue worker) tries elsewhere; a refused key, a missing model or a bad
// request are not transient.
func IsTransient(err error) bool {
	var r *retryableError
	return errors.As(err, &r)
}
