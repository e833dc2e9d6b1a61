package llm

import (
	"fmt"
	"net/url"
	"strings"
)

// Provider names, as written in models.<name>.provider.
const (
	ProviderOpenAI          = "openai"
	ProviderAzure           = "azure"
	ProviderOpenRouter      = "openrouter"
	ProviderDeepSeek        = "deepseek"
	ProviderMoonshot        = "moonshot"
	ProviderGemini          = "gemini"
	ProviderMistral         = "mistral"
	ProviderGroq            = "groq"
	ProviderAnthropicCompat = "anthropic-compat"
	ProviderOllama          = "ollama"
	ProviderVLLM            = "vllm"
	ProviderLlamaCpp        = "llamacpp"
	ProviderLMStudio        = "lmstudio"
	ProviderGeneric         = "generic"
)

// The two wires a model can be reached over (models.<name>.api).
const (
	APIChat      = "chat"      // Chat Completions, /chat/completions
	APIResponses = "responses" // the Responses API, /responses
)

// TailPlacement says where the transient tail of a request goes.
type TailPlacement int

const (
	// TailOwnMessage sends the tail as a message of its own after the
	// history, with the role the caller gave it.
	TailOwnMessage TailPlacement = iota
	// TailMergeIntoLast appends the tail's text to the last message of the
	// history (a user or tool message): for providers that refuse a user
	// message right after a tool message.
	TailMergeIntoLast
)

// Profile is everything provider-specific about talking to one provider,
// in one place: what to keep from its answers and send back, which request
// fields to leave out, how to shape tool schemas and where the transient
// tail may go. Callers never branch on a provider; they pick a profile by
// name (models.<name>.provider) or let the base URL choose one.
type Profile struct {
	Name string
	// ReasoningField is the assistant-message field the reasoning goes back
	// in ("" = never sent back).
	ReasoningField string
	// ReasoningAlways sends ReasoningField on every assistant message, empty
	// when there was no reasoning (DeepSeek V4 and Kimi refuse an assistant
	// tool-call message without it).
	ReasoningAlways bool
	// KeepMessage lists fields of a streamed answer kept verbatim in
	// Message.Extras and sent back on the assistant message.
	KeepMessage []string
	// KeepToolCall lists fields of a streamed tool call kept in
	// ToolCall.Extras and sent back on the call.
	KeepToolCall []string
	// Omit lists request fields never sent.
	Omit []string
	// MaxTokensField is the name the output cap goes under.
	MaxTokensField string
	// ShapeSchema rewrites a tool's parameter schema into a form the
	// provider accepts; nil sends it verbatim.
	ShapeSchema func(*jsonNode)
	// Tail is where the transient tail goes.
	Tail TailPlacement
	// APIKeyHeader, when set, carries the key instead of
	// "Authorization: Bearer" (Azure's api-key).
	APIKeyHeader string
	// Evidence says where the rules above come from: the recorded replay
	// under testdata/providers/ that pins them, or the documented rule.
	Evidence string
}

// profiles is the table: one row per provider.
var profiles = []Profile{
	{Name: ProviderOpenAI, MaxTokensField: "max_completion_tokens",
		Evidence: "testdata/providers/openai.txtar; OpenAI's reasoning models refuse max_tokens (vercel/ai reasoning-model-legacy-parameter-error.json)"},
	{Name: ProviderAzure, MaxTokensField: "max_completion_tokens", APIKeyHeader: "api-key",
		Evidence: "testdata/providers/azure.txtar; Azure OpenAI authenticates with the api-key header and versions the classic endpoint with ?api-version="},
	{Name: ProviderOpenRouter, MaxTokensField: "max_tokens", KeepMessage: []string{"reasoning_details"},
		Evidence: "testdata/providers/openrouter.txtar; openrouter.ai/docs/use-cases/reasoning-tokens#preserving-reasoning-blocks: send reasoning_details back unmodified"},
	{Name: ProviderDeepSeek, MaxTokensField: "max_tokens", ReasoningField: "reasoning_content", ReasoningAlways: true,
		Evidence: "testdata/providers/deepseek.txtar; DeepSeek V4 thinking answers 400 unless every assistant message carries reasoning_content"},
	{Name: ProviderMoonshot, MaxTokensField: "max_tokens", ReasoningField: "reasoning_content", ReasoningAlways: true,
		Evidence: "testdata/providers/moonshot.txtar; Kimi: \"thinking is enabled but reasoning_content is missing in assistant tool call message\""},
	{Name: ProviderGemini, MaxTokensField: "max_tokens", KeepToolCall: []string{"extra_content"}, ShapeSchema: shapeGeminiSchema,
		Evidence: "testdata/providers/gemini.txtar; ai.google.dev/gemini-api/docs/thought-signatures: extra_content.google.thought_signature must go back"},
	{Name: ProviderMistral, MaxTokensField: "max_tokens", Omit: []string{"stream_options"}, Tail: TailMergeIntoLast,
		Evidence: "testdata/providers/mistral.txtar; Mistral refuses a user message right after a tool message"},
	{Name: ProviderGroq, MaxTokensField: "max_completion_tokens",
		Evidence: "testdata/providers/groq.txtar"},
	{Name: ProviderAnthropicCompat, MaxTokensField: "max_tokens",
		Evidence: "testdata/providers/anthropic-compat.txtar"},
	{Name: ProviderOllama, MaxTokensField: "max_tokens", ReasoningField: "reasoning",
		Evidence: "testdata/providers/ollama.txtar; ollama/ollama openai/openai.go reads an assistant message's reasoning back into its thinking"},
	{Name: ProviderVLLM, MaxTokensField: "max_tokens",
		Evidence: "testdata/providers/vllm.txtar"},
	{Name: ProviderLlamaCpp, MaxTokensField: "max_tokens", ReasoningField: "reasoning_content",
		Evidence: "testdata/providers/llamacpp.txtar; llama.cpp server parses reasoning_content of assistant messages back into the chat template"},
	{Name: ProviderLMStudio, MaxTokensField: "max_tokens",
		Evidence: "testdata/providers/lmstudio.txtar"},
	{Name: ProviderGeneric, MaxTokensField: "max_tokens",
		Evidence: "testdata/providers/generic.txtar"},
}

// ProviderNames lists the known providers in table order.
func ProviderNames() []string {
	names := make([]string, len(profiles))
	for i, p := range profiles {
		names[i] = p.Name
	}
	return names
}

// LookupProfile returns the profile of a provider name.
func LookupProfile(name string) (Profile, error) {
	for _, p := range profiles {
		if p.Name == name {
			return p, nil
		}
	}
	return Profile{}, fmt.Errorf("unknown provider %q (want one of %s)", name, strings.Join(ProviderNames(), ", "))
}

// GuessProvider picks a provider from a base URL: by host for hosted
// providers, by the default port for local servers, else generic.
func GuessProvider(baseURL string) string {
	u, err := url.Parse(baseURL)
	if err != nil {
		return ProviderGeneric
	}
	host := strings.ToLower(u.Hostname())
	hosts := []struct{ suffix, provider string }{
		{"api.openai.com", ProviderOpenAI},
		{".openai.azure.com", ProviderAzure},
		{".cognitiveservices.azure.com", ProviderAzure},
		{".services.ai.azure.com", ProviderAzure},
		{"openrouter.ai", ProviderOpenRouter},
		{"api.deepseek.com", ProviderDeepSeek},
		{"api.moonshot.ai", ProviderMoonshot},
		{"api.moonshot.cn", ProviderMoonshot},
		{"generativelanguage.googleapis.com", ProviderGemini},
		{"api.mistral.ai", ProviderMistral},
		{"api.groq.com", ProviderGroq},
		{"api.anthropic.com", ProviderAnthropicCompat},
	}
	for _, h := range hosts {
		d := strings.TrimPrefix(h.suffix, ".")
		if (host == d && !strings.HasPrefix(h.suffix, ".")) || strings.HasSuffix(host, "."+d) {
			return h.provider
		}
	}
	ports := map[string]string{"11434": ProviderOllama, "1234": ProviderLMStudio, "8080": ProviderLlamaCpp, "8000": ProviderVLLM}
	if p, ok := ports[u.Port()]; ok {
		return p
	}
	return ProviderGeneric
}
