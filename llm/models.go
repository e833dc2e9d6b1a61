package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// ModelInfo is what an endpoint's GET /models says of one model. Zero
// means the answer did not say.
type ModelInfo struct {
	ID string
	// ContextWindow is the model's window in tokens: OpenRouter, Moonshot
	// and Together's context_length, Groq's context_window, vLLM's
	// max_model_len, Mistral's and LM Studio's max_context_length.
	ContextWindow int
	// Price is in US dollars per million tokens; HasPrice says the answer
	// named one (OpenRouter's pricing, per token; Together's, per million).
	Input, CachedInput, Output float64
	HasPrice                   bool
}

// ListModels asks the endpoint of ep for its models (GET {base}/models,
// with ep's key and headers), sorted by id. The error names the URL,
// never a credential; a caller falls back to asking for a model id.
func ListModels(ctx context.Context, ep EndpointConfig) ([]ModelInfo, error) {
	u, err := url.Parse(strings.TrimSuffix(ep.BaseURL, "/") + "/models")
	if err != nil || ep.BaseURL == "" {
		return nil, fmt.Errorf("list models: base URL %q is not a URL", ep.BaseURL)
	}
	secrets := credentials(ep, u)
	fail := func(format string, args ...any) error {
		return secrets.Error(fmt.Errorf("list models at %s: "+format, append([]any{u.Redacted()}, args...)...))
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fail("%w", err)
	}
	prov := ep.Provider
	if prov == "" {
		prov = GuessProvider(ep.BaseURL)
	}
	if p, err := LookupProfile(prov); err == nil && p.APIKeyHeader != "" && ep.APIKey != "" {
		req.Header.Set(p.APIKeyHeader, ep.APIKey)
	} else if ep.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+ep.APIKey)
	}
	for _, k := range sortedKeys(ep.ExtraHeaders) {
		req.Header.Set(k, ep.ExtraHeaders[k])
	}
	hc := ep.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fail("%w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 32<<20))
	if err != nil {
		return nil, fail("%w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fail("%s", resp.Status)
	}
	return parseModels(body)
}

// parseModels reads a /models answer: {"data": [...]} (OpenAI and most)
// or a bare array.
func parseModels(body []byte) ([]ModelInfo, error) {
	var list struct {
		Data []json.RawMessage `json:"data"`
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(body, &list); err == nil && list.Data != nil {
		raw = list.Data
	} else if err := json.Unmarshal(body, &raw); err != nil {
		return nil, fmt.Errorf("list models: the answer is not a model list: %.80s", body)
	}
	var out []ModelInfo
	for _, r := range raw {
		var m struct {
			ID      string         `json:"id"`
			Pricing map[string]any `json:"pricing"`
		}
		if json.Unmarshal(r, &m) != nil || m.ID == "" {
			continue
		}
		var all map[string]any
		_ = json.Unmarshal(r, &all)
		info := ModelInfo{ID: m.ID}
		for _, k := range []string{"context_length", "context_window", "max_model_len", "max_context_length"} {
			if n := number(all[k]); n > 0 {
				info.ContextWindow = int(n)
				break
			}
		}
		// OpenRouter prices per token (prompt, completion,
		// input_cache_read); Together per million (input, output).
		if in, ok := price(m.Pricing["prompt"]); ok {
			outp, ok := price(m.Pricing["completion"])
			cached, _ := price(m.Pricing["input_cache_read"])
			info.Input, info.Output, info.CachedInput, info.HasPrice = in*1e6, outp*1e6, cached*1e6, ok
		} else if in, ok := price(m.Pricing["input"]); ok {
			outp, ok := price(m.Pricing["output"])
			info.Input, info.Output, info.HasPrice = in, outp, ok
		}
		out = append(out, info)
	}
	slices.SortFunc(out, func(a, b ModelInfo) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

// number reads a JSON number or a numeric string; anything else is 0.
func number(v any) float64 {
	f, _ := price(v)
	return f
}

// price reads a JSON number or a numeric string; ok is false for
// anything else and for a negative value (OpenRouter's "-1": the price
// varies).
func price(v any) (float64, bool) {
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case string:
		var err error
		if f, err = strconv.ParseFloat(x, 64); err != nil {
			return 0, false
		}
	default:
		return 0, false
	}
	return f, f >= 0
}
