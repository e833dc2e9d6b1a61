package app

import (
	"fmt"
	"maps"
	"net/url"
	"path/filepath"
	"slices"
	"sync"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/budget"
	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/setup"
)

// Clients builds and caches one model client per configured model name.
// Build it with NewClients; it is safe for concurrent use.
type Clients struct {
	cfg    *config.Config
	getenv func(string) string
	// replay, when set, is the base URL of a scripted scenario that
	// serves every model.
	replay string
	// override is --model: a name under models: serves as the default
	// model, anything else is the default endpoint's model id.
	override string
	// warn reports a model name that maps to nothing (once per name).
	warn func(string)

	mu     sync.Mutex
	cache  map[string]llm.Client
	warned map[string]bool
	// adapt is what endpoints no provider is named for taught, kept in
	// $YAGENT_HOME/endpoints.json across runs (opened at the first client).
	adapt *llm.Adaptations
}

// AdaptationsFile is where what endpoints taught is remembered
// (llm.Adaptations): in the yagent home, out of every sandbox's view.
func AdaptationsFile(cfg *config.Config) string { return filepath.Join(cfg.Home, "endpoints.json") }

// ClientOptions configure NewClients.
type ClientOptions struct {
	// Getenv reads the variables that hold keys and headers.
	Getenv func(string) string
	// Model is --model ("" = models.default): a name under models:, else
	// a model id for the default endpoint.
	Model string
	// Replay, when set, is the base URL of a scripted scenario serving
	// every model (--replay).
	Replay string
	// Warn reports a model name that maps to nothing, once per name.
	Warn func(string)
}

// NewClients returns the model clients of cfg.
func NewClients(cfg *config.Config, o ClientOptions) *Clients {
	return &Clients{cfg: cfg, getenv: o.Getenv, override: o.Model, replay: o.Replay, warn: o.Warn}
}

// Resolve implements agents.ClientFunc. An empty name and "inherit" are
// the default model. Another name (an agent file's model: field) is a name
// under models:, else an alias under models.aliases (which names a model
// or a raw model id); a name neither maps is a visible warning, and the
// default model serves.
func (c *Clients) Resolve(name string) (llm.Client, string, error) {
	key, rawID := c.modelFor(name)
	m := c.cfg.Models[key]
	id := m.Model
	if rawID != "" {
		id = rawID
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if cl, ok := c.cache[key]; ok {
		return cl, id, nil
	}
	ep := llm.EndpointConfig{BaseURL: m.BaseURL, APIKey: m.APIKey(c.getenv), Model: id, Timeout: m.Timeout.D(),
		MaxRetries: m.MaxRetries, Backoff: llm.ExponentialBackoff,
		Provider: m.Provider, API: m.API, ReasoningEffort: m.ReasoningEffort, APIVersion: m.APIVersion,
		ExtraBody: m.ExtraBody, ExtraHeaders: m.Headers(c.getenv), DropParams: m.DropParams,
		Secrets: m.SecretHeaders(c.getenv)}
	if c.replay != "" {
		// A scripted model answers at once and never fails by chance: no
		// retries, the configured timeout; what it teaches is forgotten.
		ep = llm.EndpointConfig{BaseURL: c.replay, Model: "replay", Timeout: m.Timeout.D()}
		id = "replay"
	} else {
		if c.adapt == nil {
			c.adapt = llm.OpenAdaptations(AdaptationsFile(c.cfg), func(msg string) {
				if c.warn != nil {
					c.warn(msg)
				}
			})
		}
		ep.Adaptations = c.adapt
	}
	name = key
	if ep.BaseURL == "" {
		return nil, "", fmt.Errorf("%w\n  yagent setup asks for a provider, key and model on a terminal; or put this line in %s:\n  %s\n  or export OPENAI_BASE_URL=https://api.openai.com/v1 OPENAI_API_KEY=sk-… YAGENT_MODEL=gpt-4.1-mini\n  (or Ollama: OPENAI_BASE_URL=http://localhost:11434/v1 YAGENT_MODEL=qwen3; vLLM: OPENAI_BASE_URL=http://host:8000/v1)\n  or set models.%s.base_url in that file; to try yagent offline: yagent demo (or yagent run --replay demo \"…\")",
			llm.ErrNoEndpoint, filepath.Join(c.cfg.Home, "config.yaml"), setup.OneLine, name)
	}
	oc, err := llm.NewOpenAI(ep)
	if err != nil {
		return nil, "", fmt.Errorf("model %s: %w", name, err)
	}
	// Every model call is checked against, and charged to, the budget
	// its context carries (budget.With), at this model's price.
	cl := budget.Guard{Client: oc, Price: budget.Price{Input: m.Price.Input, Cached: m.Price.CachedInput, Output: m.Price.Output}}
	if c.cache == nil {
		c.cache = map[string]llm.Client{}
	}
	c.cache[key] = cl
	return cl, id, nil
}

// ModelSettings are what a model name runs on, without secrets.
type ModelSettings = config.ModelSettings

// Settings resolves name as Resolve does, without building a client; ok
// is false when the name maps to nothing (Resolve would let the default
// model serve it).
func (c *Clients) Settings(name string) (ModelSettings, bool) {
	key, rawID, known := c.lookup(name)
	m := c.cfg.Models[key]
	s := ModelSettings{Name: name, Entry: key, Provider: m.Provider, ID: m.Model}
	if rawID != "" {
		s.ID = rawID
	}
	base := m.BaseURL
	if c.replay != "" {
		base, s.ID = c.replay, "replay"
	}
	if s.Provider == "" {
		s.Provider = llm.GuessProvider(base)
	}
	if u, err := url.Parse(base); err == nil {
		s.Host = u.Host
	}
	return s, known
}

// Label is how the model a name resolves to is shown wherever the person
// sees it (the status line, /status, /model): the name they chose and the
// model id it runs, "small → gpt-4.1-mini"; the id alone when they named
// the id itself or nothing (models.default).
func (c *Clients) Label(name string) string {
	s, _ := c.Settings(name)
	chosen := name
	if chosen == "" || chosen == "inherit" {
		chosen = c.override
	}
	if chosen == "" || chosen == s.ID {
		return s.ID
	}
	return chosen + " → " + s.ID
}

// lookup maps a model name to the key under models: whose endpoint serves
// it and the model id to ask for when it is not that entry's own; known
// is false when the name maps to nothing and the default model serves it.
func (c *Clients) lookup(name string) (key, rawID string, known bool) {
	if name == "" || name == "inherit" {
		key, rawID = c.defaultModel()
		return key, rawID, true
	}
	if _, ok := c.cfg.Models[name]; ok {
		return name, "", true
	}
	if target, ok := c.cfg.ModelAliases[name]; ok {
		if _, ok := c.cfg.Models[target]; ok {
			return target, "", true
		}
		key, _ := c.defaultModel()
		return key, target, true
	}
	key, rawID = c.defaultModel()
	return key, rawID, false
}

// modelFor maps a model name to the key under models: whose endpoint
// serves it, and the model id to ask for when it is not that entry's own.
func (c *Clients) modelFor(name string) (key, rawID string) {
	key, rawID, known := c.lookup(name)
	if known {
		return key, rawID
	}
	c.mu.Lock()
	first := !c.warned[name]
	if c.warned == nil {
		c.warned = map[string]bool{}
	}
	c.warned[name] = true
	c.mu.Unlock()
	if first && c.warn != nil {
		c.warn(fmt.Sprintf("model %q is not under models: nor models.aliases; the default model serves it (map it with models.aliases.%s: <model>)", name, name))
	}
	return key, rawID
}

// defaultModel is models.default, or what --model (or /model) names: a
// name under models:, an alias under models.aliases, else a model id for
// the default endpoint.
func (c *Clients) defaultModel() (key, rawID string) {
	name := c.override
	if name == "" {
		return "default", ""
	}
	if target, ok := c.cfg.ModelAliases[name]; ok {
		name = target
	}
	if _, ok := c.cfg.Models[name]; ok {
		return name, ""
	}
	return "default", name
}

var _ agents.ClientFunc = (*Clients)(nil).Resolve

// WithGuessedProviders returns a copy of cfg where every model without a
// provider shows the one its base_url selects, and the names of those
// models (what `yagent config show` shows).
func WithGuessedProviders(cfg *config.Config) (*config.Config, []string) {
	out := *cfg
	out.Models = maps.Clone(cfg.Models)
	var guessed []string
	for _, name := range slices.Sorted(maps.Keys(out.Models)) {
		m := out.Models[name]
		if m.Provider == "" {
			m.Provider = llm.GuessProvider(m.BaseURL)
			out.Models[name] = m
			guessed = append(guessed, name)
		}
	}
	return &out, guessed
}
