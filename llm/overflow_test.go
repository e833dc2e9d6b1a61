package llm

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// contextOverflowExamples are real errors, as the provider sent them, for
// every row of contextOverflows, each with where it was seen; and errors
// that look alike but are not about the window.
var contextOverflowExamples = []struct {
	provider string
	status   int
	body     string
	source   string
	overflow bool
}{
	{"OpenAI chat", 400, `{"error":{"message":"This model's maximum context length is 8192 tokens. However, your messages resulted in 8227 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`,
		"https://github.com/crewAIInc/crewAI-examples/issues/121", true},
	{"OpenAI Responses API", 400, `{"error":{"message":"Your input exceeds the context window of this model. Please adjust your input and try again.","type":"invalid_request_error","param":"input","code":"context_length_exceeded"}}`,
		"https://github.com/VectorlyApp/bluebox/issues/66", true},
	{"OpenAI Responses API (code lost by a proxy)", 400, `{"error":"Your input exceeds the context window of this model. Please adjust your input and try again."}`,
		"https://github.com/onyx-dot-app/onyx/issues/6051", true},
	{"vLLM", 400, `{"object":"error","message":"This model's maximum context length is 16384 tokens. However, you requested 19591 tokens (9591 in the messages, 10000 in the completion). Please reduce the length of the messages or completion. None","type":"BadRequestError","param":null,"code":400}`,
		"https://github.com/vllm-project/vllm/issues/20409", true},
	{"DeepSeek", 400, `{"error":{"message":"This model's maximum context length is 65536 tokens. However, you requested 66343 tokens (62247 in the messages, 4096 in the completion). Please reduce the length of the messages or completion.","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}`,
		"https://github.com/FoundationAgents/OpenManus/issues/79", true},
	{"OpenRouter", 400, `{"error":{"message":"This endpoint's maximum context length is 32768 tokens. However, you requested about 42832 tokens (42832 of text input). Please reduce the length of either one, or use the \"middle-out\" transform to compress your prompt automatically.","code":400}}`,
		"https://github.com/refly-ai/refly/issues/1177", true},
	{"Anthropic", 400, `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 219898 tokens > 200000 maximum"},"request_id":"req_011CVjxiYzEFcAQC4Fk87zw2"}`,
		"https://github.com/earendil-works/pi/issues/102", true},
	{"Anthropic (input plus max_tokens)", 400, `{"type":"error","error":{"type":"invalid_request_error","message":"input length and ` + "`max_tokens`" + ` exceed context limit: 199759 + 8192 > 200000, decrease input length or ` + "`max_tokens`" + ` and try again"}}`,
		"https://github.com/continuedev/continue/issues/6080", true},
	{"Gemini", 400, `{"error":{"code":400,"message":"The input token count (134123) exceeds the maximum number of tokens allowed (131072).","status":"INVALID_ARGUMENT"}}`,
		"https://github.com/google-gemini/gemini-cli/issues/12214", true},
	{"vLLM V1", 400, `{"object":"error","message":"The decoder prompt (length 17772) is longer than the maximum model length of 16384.","type":"BadRequestError","param":null,"code":400}`,
		"https://github.com/xorbitsai/inference/issues/3785", true},
	{"llama.cpp server", 400, `{"error":{"code":400,"message":"the request exceeds the available context size. try increasing the context size or enable context shift","type":"exceed_context_size_error","n_prompt_tokens":14429,"n_ctx":8192}}`,
		"https://github.com/oobabooga/textgen/issues/7257", true},
	{"llama.cpp server (first release: status 500)", 500, `{"error":{"code":500,"message":"the request exceeds the available context size. try increasing the context size or enable context shift","type":"exceed_context_size_error","n_prompt_tokens":1407,"n_ctx":256}}`,
		"https://github.com/ggml-org/llama.cpp/pull/15780", true},
	{"llama.cpp server (type only)", 400, `{"error":{"code":400,"message":"request (4476 tokens) exceeds the available context size (4096 tokens)","type":"exceed_context_size_error"}}`,
		"https://github.com/ggml-org/llama.cpp/pull/15780", true},
	{"Ollama (truncate: false)", 400, `{"error":"the input length exceeds the context length"}`,
		"https://github.com/nano-step/nano-brain/issues/208", true},
	{"LM Studio", 400, `{"error":"Input length 6491 exceeds context length 1500"}`,
		"https://github.com/lmstudio-ai/examples/issues/29", true},
	{"LM Studio (context overflow policy stop)", 400, `{"error":"The number of tokens to keep from the initial prompt is greater than the context length."}`,
		"https://github.com/badlogic/pi-mono/blob/main/packages/ai/src/utils/overflow.ts", true},
	{"Mistral", 400, `{"object":"error","message":"Prompt contains 40123 tokens, too large for model with 32768 maximum context length","type":"invalid_request_message_error","param":null,"code":"3051"}`,
		"https://github.com/badlogic/pi-mono/blob/main/packages/ai/src/utils/overflow.ts", true},
	{"Amazon Bedrock", 400, `{"message":"Input is too long for requested model."}`,
		"https://github.com/badlogic/pi-mono/blob/main/packages/ai/src/utils/overflow.ts", true},
	{"xAI", 400, `{"code":"Client specified an invalid argument","error":"This model's maximum prompt length is 131072 but the request contains 537812 tokens."}`,
		"https://github.com/badlogic/pi-mono/blob/main/packages/ai/src/utils/overflow.ts", true},
	// Look alike, but a shorter history does not cure them.
	{"OpenAI tokens-per-minute limit", 429, `{"error":{"message":"Request too large for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, Requested 35000. The input or output tokens must be reduced in order to run successfully.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`,
		"https://platform.openai.com/docs/guides/rate-limits", false},
	{"Anthropic output cap", 400, `{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: 10000 > 4096, which is the maximum allowed number of output tokens for claude-3-5-sonnet-20240620"}}`,
		"https://github.com/ChatGPTNextWeb/NextChat/issues/4964", false},
	{"Mistral embeddings batch", 400, `{"object":"error","message":"Too many tokens in batch. Max is 16384 got 17555","type":"invalid_request_error","param":null,"code":null}`,
		"https://github.com/aurelio-labs/semantic-router/issues/297", false},
}

// TestContextOverflowTable: every wording in the table is recognised in a
// real error (cited), through an HTTP error and a stream error event; the
// message names the window setting and never tells anyone to type
// /compact; such an error is never retried as is; and every row of the
// table is exercised by some example.
func TestContextOverflowTable(t *testing.T) {
	var seen []string // the words of every overflow example
	for _, ex := range contextOverflowExamples {
		t.Run(ex.provider, func(t *testing.T) {
			api := newAPIError(ex.status, []byte(ex.body), "m", "http://127.0.0.1:1/v1")
			if got := api.ContextOverflow(); got != ex.overflow {
				t.Fatalf("%s (%s): ContextOverflow() = %v; want %v\nmessage: %q", ex.provider, ex.source, got, ex.overflow, api.Message)
			}
			if got := IsContextOverflow(fmt.Errorf("model call 3: %w", api)); got != ex.overflow {
				t.Errorf("IsContextOverflow(wrapped) = %v; want %v", got, ex.overflow)
			}
			if !ex.overflow {
				return
			}
			seen = append(seen, strings.ToLower(api.Code+" "+api.Type+" "+api.Message))
			msg := api.Error()
			if !strings.Contains(msg, "models.<name>.context_window") || strings.Contains(msg, "/compact") {
				t.Errorf("Error() = %q; want it to name models.<name>.context_window and not /compact", msg)
			}
			if api.Retryable() {
				t.Errorf("a request too long for the window is retried as is (%d)", ex.status)
			}
			if se := newStreamError([]byte(ex.body)); !IsContextOverflow(se) || se.retryable {
				t.Errorf("as a stream error event: overflow %v, retryable %v; want true, false", se.overflow, se.retryable)
			}
		})
	}
	for _, o := range contextOverflows {
		if !slices.ContainsFunc(seen, func(w string) bool { return strings.Contains(w, o.marker) }) {
			t.Errorf("row %q (%s) has no example error with its source", o.marker, o.provider)
		}
	}
}
