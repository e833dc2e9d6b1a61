// Package agents is yagent's agent runtime: the turn loop, the Tool
// interface and the registry with its per-turn gates, the built-in
// workspace tools, sub-agent runs ending in agent_exit, the board writer
// (one note per finished delegation) and agent definitions.
//
// A turn is: build the request (stable prefix, history, transient tail) →
// stream the answer → run the tool calls (concurrently, bounded) → append
// the results → repeat until a final answer, agent_exit, the step budget or
// cancellation. Bad model output never crashes the loop: an unknown tool,
// malformed JSON or arguments failing the schema come back to the model as a
// tool result saying what was wrong.
package agents
