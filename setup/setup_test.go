package setup

import (
	"bytes"
	"context"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/llm/llmtest"
)

func modelServer(t *testing.T) *llmtest.Server {
	t.Helper()
	sc, err := llmtest.Parse([]byte("steps: [{optional: true}]"), "models")
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.New(sc, llmtest.WithModels("small"),
		llmtest.WithModelCards(llmtest.ModelCard{ID: "big", ContextLength: 200000, Prompt: "0.000002", Completion: "0.000008"}))
	t.Cleanup(srv.Close)
	return srv
}

func run(t *testing.T, home, answers string, env ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	vars := map[string]string{}
	for i := 0; i+1 < len(env); i += 2 {
		vars[env[i]] = env[i+1]
	}
	_, err := Run(t.Context(), Options{Home: home, In: strings.NewReader(answers), Out: &out, Getenv: func(k string) string { return vars[k] }})
	return out.String(), err
}

func loadHome(t *testing.T, home string) *config.Config {
	t.Helper()
	cfg, err := config.Load(config.Options{Getenv: func(k string) string {
		if k == "YAGENT_HOME" {
			return home
		}
		return ""
	}, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestSetupWritesConfig pins what setup writes: models.default with the
// endpoint, the model picked from /models and the window and price its
// answer gave, merged into the person's file (other keys and comments
// kept); a pasted key goes to keys/ (0600), never into config.yaml.
func TestSetupWritesConfig(t *testing.T) {
	srv := modelServer(t)
	home := t.TempDir()
	file := filepath.Join(home, "config.yaml")
	if err := os.WriteFile(file, []byte("agents:\n  max_steps: 7 # mine\nmodels:\n  default:\n    timeout: 5m\n  other: {model: x}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, home, "vllm\n"+srv.URL()+"\npaste\nsk-pasted\n1\n")
	if err != nil {
		t.Fatalf("setup: %v; said:\n%s", err, out)
	}
	data, _ := os.ReadFile(file)
	if strings.Contains(string(data), "sk-pasted") {
		t.Errorf("config.yaml holds the pasted key:\n%s", data)
	}
	if !strings.Contains(string(data), "max_steps: 7 # mine") {
		t.Errorf("config.yaml lost the person's key or its comment:\n%s", data)
	}
	key, err := os.Stat(filepath.Join(home, "keys", "vllm"))
	if err != nil || key.Mode().Perm() != 0o600 {
		t.Errorf("keys/vllm: %v, %v; want a 0600 file", key, err)
	}
	cfg := loadHome(t, home)
	def := cfg.Models["default"]
	if def.BaseURL != srv.URL() || def.Model != "big" || def.ContextWindow != 200000 || def.Price != (config.Price{Input: 2, Output: 8}) {
		t.Errorf("models.default = %+v; want %s, big, 200000 and {2 0 8} from /models; setup said:\n%s", def, srv.URL(), out)
	}
	if def.APIKey(func(string) string { return "" }) != "sk-pasted" || def.Provider != "vllm" || def.Timeout.D().Minutes() != 5 {
		t.Errorf("models.default = %+v; want the pasted key, provider vllm and the file's timeout kept", def)
	}
	if cfg.Agents.MaxSteps != 7 || cfg.Models["other"].Model != "x" {
		t.Errorf("agents.max_steps = %d, models.other = %+v; want the file's other keys kept", cfg.Agents.MaxSteps, cfg.Models["other"])
	}
	if !strings.Contains(out, "context window: 200000 tokens (the endpoint's /models)") {
		t.Errorf("setup said:\n%s\nwant the window and where it came from", out)
	}
}

// TestSetupWhenModelsFail pins the fallbacks: /models refused → the model
// id is typed; its window then comes from the table of known models, else
// it is the default 128 000 with a notice; a named key variable is
// written as api_key_env (and said to be unset when it is).
func TestSetupWhenModelsFail(t *testing.T) {
	down := httptest.NewServer(http.NotFoundHandler())
	defer down.Close()
	home := t.TempDir()
	out, err := run(t, home, "openai\n"+down.URL+"\nMY_API_KEY\ngpt-4.1\n")
	if err != nil {
		t.Fatalf("setup: %v; said:\n%s", err, out)
	}
	def := loadHome(t, home).Models["default"]
	if def.Model != "gpt-4.1" || def.ContextWindow != 1047576 || def.APIKeyEnv != "MY_API_KEY" || def.APIKeyFile != "" {
		t.Errorf("models.default = %+v; want gpt-4.1 with the table's window and api_key_env MY_API_KEY", def)
	}
	if !strings.Contains(out, "could not list the models") || !strings.Contains(out, "MY_API_KEY is not set") {
		t.Errorf("setup said:\n%s\nwant why no list, and that MY_API_KEY is unset", out)
	}
	out, err = run(t, home, "generic\n"+down.URL+"\nnone\nmy-finetune\n")
	if err != nil {
		t.Fatalf("setup again: %v; said:\n%s", err, out)
	}
	def = loadHome(t, home).Models["default"]
	if def.Model != "my-finetune" || def.ContextWindow != 128000 || def.APIKeyEnv != "" || def.Price != (config.Price{}) {
		t.Errorf("models.default = %+v; want my-finetune, 128000, no key variable, no price", def)
	}
	if !strings.Contains(out, `context window of model "my-finetune" is not known`) || !strings.Contains(out, `models.default is now model "gpt-4.1" at "`+down.URL+`"; this replaces it`) {
		t.Errorf("setup said:\n%s\nwant the model it replaces named, and the notice of the assumed window", out)
	}
}

// TestSetupListTimeout pins that an endpoint whose /models never answers
// is given up after ListTimeout: the model id is typed instead.
func TestSetupListTimeout(t *testing.T) {
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	defer hang.Close()
	home := t.TempDir()
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second) // broken, it fails here, not at go test's timeout
	defer cancel()
	_, err := Run(ctx, Options{Home: home, In: strings.NewReader("generic\n" + hang.URL + "\nnone\nm\n"), Out: &out,
		Getenv: func(string) string { return "" }, ListTimeout: 50 * time.Millisecond})
	if err != nil || !strings.Contains(out.String(), "could not list the models") || loadHome(t, home).Models["default"].Model != "m" {
		t.Errorf("setup against a /models that never answers: %v; said:\n%s\nwant the list given up and the typed model written", err, out.String())
	}
}

// TestSetupRefusesUnreadableFile pins that a config.yaml setup cannot
// read is refused before a question is asked, and left as it was.
func TestSetupRefusesUnreadableFile(t *testing.T) {
	for _, bad := range []string{"models: [1, 2]\n", "agents: {\n", "- a list\n"} {
		home := t.TempDir()
		file := filepath.Join(home, "config.yaml")
		os.WriteFile(file, []byte(bad), 0o644)
		out, err := run(t, home, "openai\n\nnone\ngpt-4.1\n")
		if err == nil || !strings.Contains(err.Error(), "run yagent setup again") || out != "" {
			t.Errorf("config.yaml %q: err = %v, said %q; want a refusal saying what to do, before any question", bad, err, out)
		}
		if data, _ := os.ReadFile(file); string(data) != bad {
			t.Errorf("config.yaml %q was changed to %q", bad, data)
		}
	}
}

// TestEveryProviderOffered keeps setup's usual endpoints in step with
// llm's profile table: a provider added there is offered here.
func TestEveryProviderOffered(t *testing.T) {
	want := llm.ProviderNames()
	slices.Sort(want)
	if got := slices.Sorted(maps.Keys(endpoints)); !slices.Equal(got, want) {
		t.Errorf("setup's endpoints name %v; llm's profiles %v", got, want)
	}
}
