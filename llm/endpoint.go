package llm

import (
	"errors"
	"net/http"
	"time"
)

// ErrNoEndpoint reports a configuration without a base URL. Callers branch
// on it to tell the person how to configure a model.
var ErrNoEndpoint = errors.New("no model endpoint configured: set OPENAI_BASE_URL or models.default.base_url")

// Defaults applied by [NewOpenAI] to zero fields of [EndpointConfig].
const (
	DefaultTimeout    = 120 * time.Second
	DefaultMaxRetries = 3
)

// EndpointConfig says where and how to reach an OpenAI-compatible server.
type EndpointConfig struct {
	BaseURL string // e.g. https://api.openai.com/v1 or http://127.0.0.1:8080/v1
	APIKey  string // may be empty for local servers
	Model   string // used when Request.Model is empty
	// Timeout bounds each attempt's silence: the wait for the response
	// headers and for every next stream chunk. A stream that keeps producing
	// is never cut, a stalled one is abandoned and retried. Default 120s.
	Timeout time.Duration
	// MaxRetries is how many times a failed attempt is retried. Default 3;
	// a negative value means no retries.
	MaxRetries int
	HTTPClient *http.Client // optional
	// Backoff returns the pause before retry number attempt (1 for the first
	// retry). Optional; the default is exponential with jitter. A Retry-After
	// sent by the server wins when it is longer (capped at MaxRetryWait).
	Backoff func(attempt int) time.Duration

	// Provider names the provider profile (see [ProviderNames]); empty
	// guesses it from BaseURL ([GuessProvider]).
	Provider string
	// API is APIChat (default) or APIResponses.
	API string
	// ReasoningEffort, when set, is sent as reasoning.effort (Responses)
	// or reasoning_effort (Chat Completions).
	ReasoningEffort string
	// APIVersion, when set, is sent as the api-version query parameter
	// (Azure's classic endpoint).
	APIVersion string
	// ExtraBody adds or replaces top-level request fields; ExtraHeaders
	// adds headers; DropParams removes top-level request fields. They are
	// the escape hatches for what a profile does not know yet.
	ExtraBody    map[string]any
	ExtraHeaders map[string]string
	DropParams   []string
}

// EndpointFromEnv reads OPENAI_BASE_URL, OPENAI_API_KEY and YAGENT_MODEL
// through getenv (os.Getenv in production, a map in tests).
func EndpointFromEnv(getenv func(string) string) EndpointConfig {
	return EndpointConfig{
		BaseURL: getenv("OPENAI_BASE_URL"),
		APIKey:  getenv("OPENAI_API_KEY"),
		Model:   getenv("YAGENT_MODEL"),
	}
}
