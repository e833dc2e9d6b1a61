package setup

import "fmt"

// provider is a row of llm's profile table as setup offers it: the base
// URL it usually has and the variable its key usually lives in ("" = a
// local server without a key, or an endpoint only the person knows).
type provider struct {
	name, baseURL, keyEnv string
}

// endpoints are the usual base URL and key variable per provider; the
// providers themselves are llm.ProviderNames() (TestEveryProviderOffered).
var endpoints = map[string]provider{
	"openai":           {baseURL: "https://api.openai.com/v1", keyEnv: "OPENAI_API_KEY"},
	"azure":            {keyEnv: "AZURE_OPENAI_API_KEY"},
	"openrouter":       {baseURL: "https://openrouter.ai/api/v1", keyEnv: "OPENROUTER_API_KEY"},
	"deepseek":         {baseURL: "https://api.deepseek.com", keyEnv: "DEEPSEEK_API_KEY"},
	"moonshot":         {baseURL: "https://api.moonshot.ai/v1", keyEnv: "MOONSHOT_API_KEY"},
	"gemini":           {baseURL: "https://generativelanguage.googleapis.com/v1beta/openai", keyEnv: "GEMINI_API_KEY"},
	"mistral":          {baseURL: "https://api.mistral.ai/v1", keyEnv: "MISTRAL_API_KEY"},
	"groq":             {baseURL: "https://api.groq.com/openai/v1", keyEnv: "GROQ_API_KEY"},
	"anthropic-compat": {baseURL: "https://api.anthropic.com/v1", keyEnv: "ANTHROPIC_API_KEY"},
	"ollama":           {baseURL: "http://localhost:11434/v1"},
	"vllm":             {baseURL: "http://localhost:8000/v1"},
	"llamacpp":         {baseURL: "http://localhost:8080/v1"},
	"lmstudio":         {baseURL: "http://localhost:1234/v1"},
	"generic":          {},
}

func providerOf(name string) provider {
	p := endpoints[name]
	p.name = name
	return p
}

func (p provider) hint() string {
	switch {
	case p.baseURL == "":
		return "(you give the base URL)"
	case p.keyEnv == "":
		return p.baseURL + " (local, no key)"
	}
	return fmt.Sprintf("%s (%s)", p.baseURL, p.keyEnv)
}
