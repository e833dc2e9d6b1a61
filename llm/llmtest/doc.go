// Package llmtest is a scripted OpenAI-compatible server. It plays a
// [Scenario] (a YAML file of steps, see AGENTS.md beside this file) over real
// HTTP on 127.0.0.1: each chat completion request is answered by the first
// step, in file order, that is not used up and whose matchers all accept it,
// with text and tool calls streamed exactly as OpenAI's wire protocol does,
// or with a fault (an HTTP error, a slow first byte, a cut stream). Every
// request is recorded for assertions. It also serves deterministic
// embeddings and a model list.
//
// It is not a _test package: yagent's --replay serves a recorded scenario
// through it, labelled as a replay. A Server is safe for concurrent requests;
// its scenario is never modified.
package llmtest
