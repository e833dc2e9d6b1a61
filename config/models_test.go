package config

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"
)

// TestModelProfilesAndAliases pins the models section: provider, api and
// the escape hatches per model (a new model takes the default's first),
// and models.aliases, which is not a model.
func TestModelProfilesAndAliases(t *testing.T) {
	user := `models:
  fast:
    model: deepseek-chat
    base_url: https://api.deepseek.com
    provider: deepseek
    extra_body: {thinking: {type: enabled}}
    drop_params: [stream_options]
  aliases:
    sonnet: fast
    opus: gpt-5
`
	workspace := "models:\n  aliases:\n    haiku: fast\n"
	cfg, err := load(t, user, workspace)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := cfg.Models["aliases"]; ok {
		t.Error(`models.aliases was read as a model`)
	}
	want := map[string]string{"sonnet": "fast", "opus": "gpt-5", "haiku": "fast"}
	if diff := cmp.Diff(want, cfg.ModelAliases); diff != "" {
		t.Errorf("aliases (-want +got):\n%s", diff)
	}
	fast := cfg.Models["fast"]
	if fast.Provider != "deepseek" || fast.API != "chat" || fast.ContextWindow != 128000 || len(fast.DropParams) != 1 {
		t.Errorf("models.fast = %+v; want provider deepseek, api chat and the default's window", fast)
	}
	if got := fast.ExtraBody["thinking"]; !cmp.Equal(got, map[string]any{"type": "enabled"}) {
		t.Errorf("extra_body.thinking = %v", got)
	}
	// config show prints the aliases where a file sets them.
	out, err := yaml.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "    aliases:\n        haiku: fast\n") && !strings.Contains(string(out), "  aliases:\n    haiku: fast\n") {
		t.Errorf("YAML lacks models.aliases:\n%s", out)
	}
	var js struct {
		Models map[string]json.RawMessage `json:"models"`
	}
	raw, _ := json.Marshal(cfg)
	if err := json.Unmarshal(raw, &js); err != nil || !strings.Contains(string(js.Models["aliases"]), `"sonnet":"fast"`) {
		t.Errorf("JSON models.aliases = %s (%v)", js.Models["aliases"], err)
	}
}

// TestModelValuesChecked: an unknown provider or API, and an alias that is
// not a model name, are errors naming file, line and key.
func TestModelValuesChecked(t *testing.T) {
	for _, tc := range []struct{ user, want string }{
		{"models:\n  default:\n    provider: claude\n", `config.yaml:3: models.default.provider: unknown provider "claude": want one of openai, azure, openrouter`},
		{"models:\n  fast:\n    model: x\n    api: completions\n", `config.yaml:4: models.fast.api: unknown API "completions": want chat (Chat Completions) or responses`},
		{"models:\n  aliases:\n    sonnet: {model: x}\n", "config.yaml:3: models.aliases.sonnet: want a model: a name under models: or a model id"},
		{"models:\n  aliases: [sonnet]\n", "config.yaml:2: models.aliases: want a mapping of alias: model"},
		{"models:\n  default:\n    extra_headers: [a]\n", "config.yaml:3: models.default.extra_headers: cannot unmarshal !!seq into map"},
	} {
		_, err := load(t, tc.user, "")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Load(%q) = %v; want %q", tc.user, err, tc.want)
		}
	}
}

func TestModelHeadersFromEnvironment(t *testing.T) {
	m := Model{ExtraHeaders: map[string]string{"X-Title": "yagent", "Authorization": "${GATEWAY_TOKEN}"}}
	got := m.Headers(func(k string) string { return map[string]string{"GATEWAY_TOKEN": "Bearer s3cret"}[k] })
	want := map[string]string{"X-Title": "yagent", "Authorization": "Bearer s3cret"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Headers (-want +got):\n%s", diff)
	}
}
