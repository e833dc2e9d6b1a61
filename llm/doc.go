// Package llm is yagent's model client: one small interface, [Client], with
// one method that streams a chat completion, and [OpenAIClient], its
// implementation over openai-go, on Chat Completions or the Responses API,
// speaking each provider's dialect through one table of [Profile]s.
//
// The rest of yagent speaks only in this package's types (Message, ToolCall,
// ToolDef, Request, Response); nothing outside llm imports openai-go for chat.
// OpenAIClient owns the retry policy (the SDK's own retries are switched off),
// assembles text and parallel tool calls from stream deltas, reads usage
// including cached prompt tokens, keeps reasoning apart from the answer
// (with the opaque extras a provider demands back), and turns provider
// failures into one-line errors that say what to do next ([APIError]).
//
// Tests never reach a live model: package llm/llmtest serves scripted
// scenarios over real HTTP, and every end-to-end test of this package goes
// through the real openai-go client against it.
package llm
