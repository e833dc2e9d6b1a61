package config

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestModelFactsOrder pins where a model's window and price come from:
// what its endpoint's /models said, else the table of known models, else
// the default window (128 000) with a notice and no price.
func TestModelFactsOrder(t *testing.T) {
	listed := Price{Input: 1, Output: 2}
	tests := []struct {
		name       string
		id         string
		window     int
		price      Price
		hasPrice   bool
		wantWindow int
		windowFrom string
		wantPrice  Price
		priceFrom  string
	}{
		{"the endpoint said both", "gpt-4.1", 7000, listed, true, 7000, FromEndpoint, listed, FromEndpoint},
		{"the endpoint said a free price", "gpt-4.1", 7000, Price{}, true, 7000, FromEndpoint, Price{}, FromEndpoint},
		{"the endpoint said nothing: the table", "gpt-4.1", 0, Price{}, false, 1047576, FromTable, Price{2, 0.5, 8}, FromTable},
		{"a gateway's id: the table by its last element", "openai/gpt-4.1-mini", 0, Price{}, false, 1047576, FromTable, Price{0.4, 0.1, 1.6}, FromTable},
		{"the window from the endpoint, the price from the table", "gpt-4.1", 9000, Price{}, false, 9000, FromEndpoint, Price{2, 0.5, 8}, FromTable},
		{"nobody knows: the default", "my-finetune", 0, Price{}, false, 128000, FromDefault, Price{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := ResolveModelFacts(tt.id, tt.window, tt.price, tt.hasPrice)
			if err != nil {
				t.Fatal(err)
			}
			if f.ContextWindow != tt.wantWindow || f.WindowFrom != tt.windowFrom || f.Price != tt.wantPrice || f.PriceFrom != tt.priceFrom {
				t.Errorf("ResolveModelFacts(%q, %d, %v, %v) = %+v; want window %d from %q, price %v from %q",
					tt.id, tt.window, tt.price, tt.hasPrice, f, tt.wantWindow, tt.windowFrom, tt.wantPrice, tt.priceFrom)
			}
		})
	}
}

// TestModelFactsAtLoad pins the same order for a configuration: a window
// or price a file sets wins (a present 0 price too), else the table's,
// else the default window with one notice naming the key to set.
func TestModelFactsAtLoad(t *testing.T) {
	user := `models:
  default: {model: gpt-4.1}
  set: {model: gpt-4.1, context_window: 50000, price: {input: 0}}
  unknown: {model: my-finetune}
`
	cfg, err := load(t, user, "")
	if err != nil {
		t.Fatal(err)
	}
	if m := cfg.Models["default"]; m.ContextWindow != 1047576 || m.Price != (Price{2, 0.5, 8}) {
		t.Errorf("models.default (gpt-4.1, nothing set) = window %d, price %v; want the table's 1047576 and {2 0.5 8}", m.ContextWindow, m.Price)
	}
	if m := cfg.Models["set"]; m.ContextWindow != 50000 || m.Price != (Price{}) {
		t.Errorf("models.set = window %d, price %v; want the file's 50000 and no price", m.ContextWindow, m.Price)
	}
	if m := cfg.Models["unknown"]; m.ContextWindow != 128000 {
		t.Errorf("models.unknown window = %d; want the default 128000", m.ContextWindow)
	}
	if len(cfg.Notices) != 1 || !strings.Contains(cfg.Notices[0], `"my-finetune"`) || !strings.Contains(cfg.Notices[0], "models.unknown.context_window") {
		t.Errorf("notices = %q; want one for my-finetune naming models.unknown.context_window", cfg.Notices)
	}
	// YAGENT_MODEL names the default's model after the files: it is
	// looked up as well.
	cfg, err = load(t, "", "", "YAGENT_MODEL", "deepseek-chat")
	if err != nil {
		t.Fatal(err)
	}
	if m := cfg.Models["default"]; m.Price != (Price{0.28, 0.028, 0.42}) || len(cfg.Notices) != 0 {
		t.Errorf("YAGENT_MODEL=deepseek-chat: price %v, notices %q; want the table's price and no notice", m.Price, cfg.Notices)
	}
}

// TestAPIKeyFile pins api_key_file: a file in $YAGENT_HOME/keys/ read
// when api_key_env names no set variable (a set one wins), and a name
// that is no plain file name refused at load.
func TestAPIKeyFile(t *testing.T) {
	home, wd := t.TempDir(), t.TempDir()
	write(t, filepath.Join(home, "config.yaml"), "models:\n  default: {api_key_env: ROUTER_API_KEY, api_key_file: router}\n")
	write(t, filepath.Join(KeyDir(home), "router"), "sk-from-file\n")
	cfg, err := Load(Options{Getenv: env(home), Dir: wd})
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Models["default"].APIKey(env(home)); got != "sk-from-file" {
		t.Errorf("APIKey without the variable = %q; want the file's sk-from-file", got)
	}
	if got := cfg.Models["default"].APIKey(env(home, "ROUTER_API_KEY", "sk-env")); got != "sk-env" {
		t.Errorf("APIKey with the variable set = %q; want sk-env", got)
	}
	write(t, filepath.Join(home, "config.yaml"), "models:\n  default: {api_key_file: ../config.yaml}\n")
	if _, err := Load(Options{Getenv: env(home), Dir: wd}); err == nil || !strings.Contains(err.Error(), "models.default.api_key_file") {
		t.Errorf("api_key_file ../config.yaml: err = %v; want an error naming models.default.api_key_file", err)
	}
}
