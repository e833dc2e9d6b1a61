package main

import (
	"fmt"
	"path/filepath"
	"sync"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/llm/llmtest"
)

// clients builds and caches one model client per configured model name.
type clients struct {
	cfg    *config.Config
	getenv func(string) string
	// replay, when set, serves every model from a scripted scenario.
	replay *llmtest.Server
	// override replaces the default model's provider id (--model).
	override string

	mu    sync.Mutex
	cache map[string]llm.Client
}

// resolve implements agents.ClientFunc. An empty name is the default
// model; a name that is not configured (e.g. Claude's "sonnet" in a
// .claude/agents definition) also falls back to the default.
func (c *clients) resolve(name string) (llm.Client, string, error) {
	if _, ok := c.cfg.Models[name]; !ok || name == "" {
		name = "default"
	}
	m := c.cfg.Models[name]
	id := m.Model
	if name == "default" && c.override != "" {
		id = c.override
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if cl, ok := c.cache[name]; ok {
		return cl, id, nil
	}
	ep := llm.EndpointConfig{BaseURL: m.BaseURL, APIKey: m.APIKey(c.getenv), Model: id, Timeout: m.Timeout.D(), MaxRetries: m.MaxRetries}
	if m.MaxRetries == 0 {
		ep.MaxRetries = -1 // max_retries: 0 means no retries (key presence)
	}
	if c.replay != nil {
		ep = llm.EndpointConfig{BaseURL: c.replay.URL(), Model: "replay", MaxRetries: -1}
		id = "replay"
	}
	if ep.BaseURL == "" {
		return nil, "", fmt.Errorf("%w\n  export OPENAI_BASE_URL=https://api.openai.com/v1 OPENAI_API_KEY=sk-… YAGENT_MODEL=gpt-4.1-mini\n  (or Ollama: OPENAI_BASE_URL=http://localhost:11434/v1 YAGENT_MODEL=qwen3; vLLM: OPENAI_BASE_URL=http://host:8000/v1)\n  or set models.%s.base_url in %s; to try yagent offline: yagent run --replay testdata/scenarios/demo.yaml \"…\"",
			llm.ErrNoEndpoint, name, filepath.Join(c.cfg.Home, "config.yaml"))
	}
	cl, err := llm.NewOpenAI(ep)
	if err != nil {
		return nil, "", fmt.Errorf("model %s: %w", name, err)
	}
	if c.cache == nil {
		c.cache = map[string]llm.Client{}
	}
	c.cache[name] = cl
	return cl, id, nil
}

var _ agents.ClientFunc = (*clients)(nil).resolve
