package config

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// KnownModel is what yagent knows of a model without asking its
// endpoint: its window in tokens and its list price (zero: not known).
type KnownModel struct {
	ContextWindow int
	Price         Price
}

// knownModels is the small table of models whose window and price are
// published (the providers' pricing pages, late 2026). An id is looked up
// as it is and by its last path element (openai/gpt-4.1 on a gateway).
// A window an endpoint's /models states wins over this table; a model in
// neither gets the default window with a notice.
var knownModels = map[string]KnownModel{
	"gpt-5":                   {400000, Price{1.25, 0.125, 10}},
	"gpt-5-mini":              {400000, Price{0.25, 0.025, 2}},
	"gpt-5-nano":              {400000, Price{0.05, 0.005, 0.4}},
	"gpt-4.1":                 {1047576, Price{2, 0.5, 8}},
	"gpt-4.1-mini":            {1047576, Price{0.4, 0.1, 1.6}},
	"gpt-4.1-nano":            {1047576, Price{0.1, 0.025, 0.4}},
	"gpt-4o":                  {128000, Price{2.5, 1.25, 10}},
	"gpt-4o-mini":             {128000, Price{0.15, 0.075, 0.6}},
	"o3":                      {200000, Price{2, 0.5, 8}},
	"o4-mini":                 {200000, Price{1.1, 0.275, 4.4}},
	"deepseek-chat":           {128000, Price{0.28, 0.028, 0.42}},
	"deepseek-reasoner":       {128000, Price{0.28, 0.028, 0.42}},
	"gemini-2.5-pro":          {1048576, Price{1.25, 0.31, 10}},
	"gemini-2.5-flash":        {1048576, Price{0.3, 0.075, 2.5}},
	"mistral-small-latest":    {128000, Price{0.1, 0, 0.3}},
	"mistral-medium-latest":   {128000, Price{0.4, 0, 2}},
	"codestral-latest":        {256000, Price{0.3, 0, 0.9}},
	"kimi-k2-0905-preview":    {262144, Price{0.6, 0.15, 2.5}},
	"claude-sonnet-4-5":       {200000, Price{3, 0.3, 15}},
	"claude-opus-4-1":         {200000, Price{15, 1.5, 75}},
	"llama-3.3-70b-versatile": {131072, Price{0.59, 0, 0.79}},
}

// LookupKnownModel returns what the table of known models says of id:
// by the whole id, else by its last path element.
func LookupKnownModel(id string) (KnownModel, bool) {
	id = strings.ToLower(strings.TrimSpace(id))
	if k, ok := knownModels[id]; ok {
		return k, true
	}
	if i := strings.LastIndexByte(id, '/'); i >= 0 {
		k, ok := knownModels[id[i+1:]]
		return k, ok
	}
	return KnownModel{}, false
}

// KnownModelIDs lists the table's ids, sorted.
func KnownModelIDs() []string { return slices.Sorted(maps.Keys(knownModels)) }

// Where a model's window came from.
const (
	FromEndpoint = "the endpoint's /models"
	FromTable    = "yagent's table of known models"
	FromDefault  = "the default"
)

// ModelFacts are a model's window and price, and where each came from.
type ModelFacts struct {
	ContextWindow int
	WindowFrom    string
	Price         Price
	PriceFrom     string // "" = not known: no cost is shown
}

// ResolveModelFacts gives a model's window and price in this order: what
// its endpoint's /models said (window > 0; hasPrice), else the table of
// known models, else the default window (models.default.context_window
// of defaults.yaml) and no price. Notice says so when the default
// served, with what to set.
func ResolveModelFacts(id string, window int, price Price, hasPrice bool) (ModelFacts, error) {
	var f ModelFacts
	known, isKnown := LookupKnownModel(id)
	switch {
	case window > 0:
		f.ContextWindow, f.WindowFrom = window, FromEndpoint
	case isKnown && known.ContextWindow > 0:
		f.ContextWindow, f.WindowFrom = known.ContextWindow, FromTable
	default:
		def, err := DefaultContextWindow()
		if err != nil {
			return f, err
		}
		f.ContextWindow, f.WindowFrom = def, FromDefault
	}
	switch {
	case hasPrice:
		f.Price, f.PriceFrom = price, FromEndpoint
	case isKnown && known.Price != (Price{}):
		f.Price, f.PriceFrom = known.Price, FromTable
	}
	return f, nil
}

// WindowNotice is the line a person reads when a model's window is the
// default: neither its endpoint nor the table knew it.
func WindowNotice(name, id string, window int) string {
	return fmt.Sprintf("notice: the context window of model %q is not known (no file sets it, yagent's table of known models lacks it, and yagent setup found no window in the endpoint's /models): assuming %d tokens; set models.%s.context_window to its window", id, window, name)
}

// DefaultContextWindow is models.default.context_window of defaults.yaml.
func DefaultContextWindow() (int, error) {
	root, err := parseDefaults()
	if err != nil {
		return 0, err
	}
	var n int
	if err := lookup(root, "models", "default", "context_window").Decode(&n); err != nil {
		return 0, fmt.Errorf("built-in defaults: models.default.context_window: %w", err)
	}
	return n, nil
}

// resolveModelFacts fills, for every model with a model id, what no file
// set: context_window and price from the table of known models. A window
// the table does not know stays the default and gets a notice
// (Config.Notices). Keys are judged by presence in the files, so a
// present value — 0 prices too — always wins.
func (c *Config) resolveModelFacts(layers []layer) {
	for _, name := range slices.Sorted(maps.Keys(c.Models)) {
		m := c.Models[name]
		if m.Model == "" {
			continue
		}
		set := func(key string) bool {
			for _, l := range layers {
				if lookup(l.root, "models", name, key) != nil {
					return true
				}
			}
			return false
		}
		known, ok := LookupKnownModel(m.Model)
		if !set("context_window") {
			if ok && known.ContextWindow > 0 {
				m.ContextWindow = known.ContextWindow
			} else {
				c.Notices = append(c.Notices, WindowNotice(name, m.Model, m.ContextWindow))
			}
		}
		if !set("price") && ok {
			m.Price = known.Price
		}
		c.Models[name] = m
	}
}
