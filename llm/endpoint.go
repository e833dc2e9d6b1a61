package llm

import (
	"errors"
	"net/http"
	"time"
)

// ErrNoEndpoint reports a configuration without a base URL. Callers branch
// on it to tell the person how to configure a model.
var ErrNoEndpoint = errors.New("no model endpoint configured: set OPENAI_BASE_URL or models.default.base_url")

// EndpointConfig says where and how to reach an OpenAI-compatible server.
// Its values are taken as they are: the configuration resolves every default
// (config/defaults.yaml), and a zero means none (no bound, no retry, no
// pause), never "some default".
type EndpointConfig struct {
	BaseURL string // e.g. https://api.openai.com/v1 or http://127.0.0.1:8080/v1
	APIKey  string // may be empty for local servers
	Model   string // used when Request.Model is empty
	// Timeout bounds each attempt's silence: the wait for the response
	// headers and for every next stream chunk. A stream that keeps producing
	// is never cut, a stalled one is abandoned and retried. 0: no bound.
	Timeout time.Duration
	// MaxRetries is how many times a failed attempt is retried; 0: none.
	// Negative is an error.
	MaxRetries int
	HTTPClient *http.Client // optional
	// Backoff returns the pause before retry number attempt (1 for the first
	// retry), typically ExponentialBackoff; nil: no pause. A Retry-After
	// sent by the server wins when it is longer (capped at MaxRetryWait).
	Backoff func(attempt int) time.Duration

	// Provider names the provider profile (see [ProviderNames]); empty
	// guesses it from BaseURL ([GuessProvider]). When it is empty and the
	// base URL reveals no provider, the client adapts to the endpoint from
	// its answers (see [Adaptation]).
	Provider string
	// Adaptations is where an adapting client remembers what its endpoint
	// taught it, shared by the clients given the same one (a file under
	// the yagent home: OpenAdaptations); nil: the client's own memory.
	Adaptations *Adaptations
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
	// Secrets are values sent with every request, besides APIKey and the
	// ExtraHeaders named like credentials (Authorization, *key*, *token*,
	// *secret*, Cookie), that an error must never show: the extra_headers
	// read from the environment. Errors are scrubbed of all of them.
	Secrets []string
}
