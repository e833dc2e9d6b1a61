package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/responses"

	"github.com/yagent/yagent/internal/redact"
)

// OpenAIClient is a [Client] for any OpenAI-compatible endpoint (OpenAI,
// Azure, OpenRouter, DeepSeek, Kimi, Gemini, Mistral, Groq, vLLM, llama.cpp
// server, Ollama, LM Studio…), over Chat Completions or the Responses API,
// speaking each provider's dialect through its [Profile]. It is safe for
// concurrent use.
type OpenAIClient struct {
	chat            openai.ChatCompletionService
	responses       responses.ResponseService
	embeddings      openai.EmbeddingService
	baseURL         string
	model           string
	timeout         time.Duration
	maxRetries      int
	backoff         func(int) time.Duration
	profile         Profile
	wire            wire // the API it speaks, chosen once in NewOpenAI
	reasoningEffort string
	bodyOpts        bodyOptions
	secrets         redact.Secrets // what the requests carry that errors must not show
	// memory is where an adapting client (no provider named, none
	// revealed by the base URL, Chat Completions) keeps what its endpoint
	// taught it; nil for every other client.
	memory *Adaptations
	// endpoint names the endpoint in memory: the base URL without user
	// information, query or fragment, so no credential is ever kept.
	endpoint string
}

var _ Client = (*OpenAIClient)(nil)

// wire is the API a client speaks — Chat Completions or Responses —
// decided once, when the client is built: how a request's body is built
// and how one attempt is sent and its stream read.
type wire struct {
	body    func(req Request, model string, p *Profile) (*object, error)
	attempt func(ctx context.Context, body []byte, ho *httpOutcome, out sink, tick func()) (Response, error)
}

// errIdle is the cancellation cause of an attempt that heard nothing from
// the server for the configured timeout.
var errIdle = errors.New("request timeout")

// errCut marks a stream that ended without a finish reason.
var errCut = errors.New("stream ended before the answer finished")

// NewOpenAI returns a client for cfg. It returns ErrNoEndpoint when
// cfg.BaseURL is empty. Unlike openai.NewClient it never reads the process
// environment: everything comes from cfg.
func NewOpenAI(cfg EndpointConfig) (*OpenAIClient, error) {
	if cfg.BaseURL == "" {
		return nil, ErrNoEndpoint
	}
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("model endpoint %q is not an http(s) URL: check OPENAI_BASE_URL or models.<name>.base_url", cfg.BaseURL)
	}
	provider := cfg.Provider
	if provider == "" {
		provider = GuessProvider(cfg.BaseURL)
	}
	profile, err := LookupProfile(provider)
	if err != nil {
		return nil, fmt.Errorf("models.<name>.provider: %w", err)
	}
	api := cfg.API
	switch api {
	case "":
		api = APIChat
	case APIChat, APIResponses:
	default:
		return nil, fmt.Errorf("models.<name>.api: unknown API %q (want %s or %s)", cfg.API, APIChat, APIResponses)
	}
	adaptive := cfg.Provider == "" && provider == ProviderGeneric && api == APIChat
	if adaptive {
		profile = adaptiveProfile(profile)
	}
	c := &OpenAIClient{
		baseURL:         strings.TrimRight(cfg.BaseURL, "/"),
		model:           cfg.Model,
		timeout:         cfg.Timeout,
		maxRetries:      cfg.MaxRetries,
		backoff:         cfg.Backoff,
		profile:         profile,
		reasoningEffort: cfg.ReasoningEffort,
		bodyOpts:        bodyOptions{extraBody: cfg.ExtraBody, dropParams: cfg.DropParams},
		secrets:         credentials(cfg, u),
	}
	// Messages name the endpoint by c.baseURL: a password or a key in it
	// is scrubbed like any other credential.
	target := c.baseURL
	c.baseURL = c.secrets.String(target)
	if cfg.Timeout < 0 || cfg.MaxRetries < 0 {
		return nil, fmt.Errorf("model endpoint %s: timeout %v and max_retries %d: want 0 or more (0: no bound, no retry)", c.baseURL, cfg.Timeout, cfg.MaxRetries)
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{Transport: http.DefaultTransport}
		if t, ok := http.DefaultTransport.(*http.Transport); ok {
			hc.Transport = t.Clone()
		}
	}
	opts := []option.RequestOption{
		option.WithBaseURL(target),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(0), // the retry policy is ours
	}
	if profile.APIKeyHeader != "" {
		if cfg.APIKey != "" {
			opts = append(opts, option.WithHeader(profile.APIKeyHeader, cfg.APIKey))
		}
	} else {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	if cfg.APIVersion != "" {
		opts = append(opts, option.WithQuery("api-version", cfg.APIVersion))
	}
	for _, k := range sortedKeys(cfg.ExtraHeaders) {
		opts = append(opts, option.WithHeader(k, cfg.ExtraHeaders[k]))
	}
	if adaptive {
		c.memory = cfg.Adaptations
		if c.memory == nil {
			c.memory = NewAdaptations()
		}
		bare := *u
		bare.User, bare.RawQuery, bare.Fragment = nil, "", ""
		c.endpoint = strings.TrimRight(bare.String(), "/")
	}
	c.wire = wire{body: c.chatBody, attempt: c.chatAttempt}
	if api == APIResponses {
		c.wire = wire{body: c.responsesBody, attempt: c.responsesAttempt}
	}
	c.chat = openai.NewChatCompletionService(opts...)
	c.responses = responses.NewResponseService(opts...)
	c.embeddings = openai.NewEmbeddingService(opts...)
	return c, nil
}

// Profile returns the provider profile the client speaks.
func (c *OpenAIClient) Profile() Profile { return c.profile }

// Stream sends req and streams the answer, retrying failures that a new
// attempt may cure (429, 5xx, connection errors, timeouts, cut streams,
// answers the provider ended with an error). An adapting client (see
// [Adaptation]) also resends, once, a request its endpoint refused with a
// 400 or 422 that names what to change, before anything streamed.
func (c *OpenAIClient) Stream(ctx context.Context, req Request) (Response, error) {
	model := req.Model
	if model == "" {
		model = c.model
	}
	if model == "" {
		return Response{}, errors.New("no model set: set YAGENT_MODEL or models.<name>.model")
	}
	emit := func(Event) {}
	if req.OnEvent != nil {
		emit = req.OnEvent
	}
	streamed := false
	report := func(e Event) {
		if e.Kind == EventText || e.Kind == EventReasoning {
			streamed = true
		}
		emit(e)
	}
	var adapt Adaptation
	if c.memory != nil {
		adapt = c.memory.get(c.endpoint)
	}
	resp, s, refusal, err := c.send(ctx, req, model, adapt, report)
	if err == nil || c.memory == nil || streamed || ctx.Err() != nil {
		return resp, err
	}
	var api *APIError
	if !errors.As(err, &api) || (api.StatusCode != http.StatusBadRequest && api.StatusCode != http.StatusUnprocessableEntity) {
		return resp, err
	}
	next := adapt.learnRefusal(refusal, s)
	if next == adapt {
		return resp, err
	}
	c.memory.update(c.endpoint, func(a Adaptation) Adaptation { return a.learnRefusal(refusal, s) })
	again, _, _, err := c.send(ctx, req, model, next, report)
	again.Attempts += resp.Attempts
	return again, err
}

// send builds req's body under the profile as adapt changes it and sends
// it with the retry policy. When it fails, it returns what the body
// carried and the last attempt's error body (scrubbed), for an adapting
// client to read a refusal.
func (c *OpenAIClient) send(ctx context.Context, req Request, model string, adapt Adaptation, emit func(Event)) (Response, sent, []byte, error) {
	p := c.profile
	if c.memory != nil {
		p = adapt.apply(p)
	}
	body, err := c.wire.body(req, model, &p)
	if err != nil {
		return Response{}, sent{}, nil, fmt.Errorf("build request for %s: %w", model, err)
	}
	raw, err := body.MarshalJSON()
	if err != nil {
		return Response{}, sent{}, nil, fmt.Errorf("build request for %s: %w", model, err)
	}
	var resp Response
	var last httpOutcome
	n, err := c.retry(ctx, emit, func(ctx context.Context, n int) (time.Duration, error) {
		var err error
		var wait time.Duration
		resp, wait, err = c.streamOnce(ctx, raw, model, n, c.maxRetries+1, emit, &last)
		return wait, err
	})
	if err != nil {
		return Response{Attempts: n}, sentBy(req, &p, body), last.body, err
	}
	resp.Attempts = n
	return resp, sent{}, nil, nil
}

// httpOutcome is what a middleware saw of one attempt's HTTP response; the
// SDK does not expose headers or a non-JSON error body.
type httpOutcome struct {
	status int
	header http.Header
	body   []byte // error bodies only, capped
}

// notStream reports a successful answer that is not an event stream: a base
// URL pointing at a web page, or a server ignoring "stream": true.
func (o *httpOutcome) notStream() bool {
	ct := o.header.Get("Content-Type")
	return o.status > 0 && o.status < 400 && ct != "" && !strings.HasPrefix(ct, "text/event-stream")
}

func (o *httpOutcome) middleware(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	res, err := next(req)
	if res == nil {
		return res, err
	}
	o.status, o.header = res.StatusCode, res.Header
	if res.StatusCode >= 400 && res.Body != nil {
		o.body, _ = io.ReadAll(io.LimitReader(res.Body, 64<<10))
		res.Body.Close()
		res.Body = io.NopCloser(bytes.NewReader(o.body))
	}
	return res, err
}

// streamOnce makes one attempt. Its deadline is a watchdog reset by every
// chunk, so a long answer that keeps flowing is never cut.
// What the attempt's HTTP response was is left in last.
func (c *OpenAIClient) streamOnce(ctx context.Context, body []byte, model string, n, maxAttempts int, emit func(Event), last *httpOutcome) (Response, time.Duration, error) {
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	tick, stop := c.watchdog(func() { cancel(errIdle) })
	defer stop()
	out := sink{
		text:      func(s string) { emit(Event{Kind: EventText, Text: s, Attempt: n, MaxAttempts: maxAttempts}) },
		reasoning: func(s string) { emit(Event{Kind: EventReasoning, Text: s, Attempt: n, MaxAttempts: maxAttempts}) },
	}
	var ho httpOutcome
	var resp Response
	var err error
	resp, err = c.wire.attempt(actx, body, &ho, out, tick)
	if err == nil {
		err = notAnAnswer(resp)
	}
	if err != nil {
		wait, err := c.classify(actx, err, &ho, model)
		*last = ho
		return Response{}, wait, err
	}
	if resp.Model == "" {
		resp.Model = model
	}
	return resp, 0, nil
}

// watchdog calls idle after the configured timeout of silence: tick
// restarts the wait, stop ends it. With no timeout it never fires.
func (c *OpenAIClient) watchdog(idle func()) (tick, stop func()) {
	if c.timeout <= 0 {
		return func() {}, func() {}
	}
	t := time.AfterFunc(c.timeout, idle)
	return func() { t.Reset(c.timeout) }, func() { t.Stop() }
}

// chatAttempt streams one Chat Completions answer.
func (c *OpenAIClient) chatAttempt(ctx context.Context, body []byte, ho *httpOutcome, out sink, tick func()) (Response, error) {
	var params openai.ChatCompletionNewParams
	param.SetJSON(body, &params)
	stream := c.chat.NewStreaming(ctx, params, option.WithMiddleware(ho.middleware))
	defer stream.Close()
	asm := assembler{profile: &c.profile}
	for stream.Next() {
		tick()
		chunk := stream.Current()
		asm.add(&chunk, out)
	}
	err := stream.Err()
	if err == nil && c.memory != nil && asm.reasoningField != "" {
		c.memory.update(c.endpoint, func(a Adaptation) Adaptation { return a.learnReasoning(asm.reasoningField) })
	}
	switch {
	case err == nil && !asm.finished():
		err = errCut
	case err != nil && asm.finished() && (context.Cause(ctx) == nil || errors.Is(context.Cause(ctx), errIdle)) && ho.status < 400 && !isStreamError(err):
		// The answer is complete; only the usage chunk or [DONE] was lost.
		err = nil
	}
	if err != nil {
		return Response{}, err
	}
	return Response{Message: asm.message(), FinishReason: asm.finish, Usage: asm.usage, Model: asm.model}, nil
}

func isStreamError(err error) bool {
	var se *ssestream.StreamError
	return errors.As(err, &se)
}

// classify turns the failure of one attempt into the error to report and
// says whether a new attempt may cure it (see retryable). The caller's own
// cancellation is handled by retry before any of this matters.
//
// It is the one place a provider's answer becomes a yagent error, so it is
// where the request's credentials are taken out (see scrub): whatever
// prints, records or exports an error of this package (the printer,
// --json, rollouts and notes, traces, EventRetry) gets scrubbed text.
func (c *OpenAIClient) classify(actx context.Context, err error, out *httpOutcome, model string) (time.Duration, error) {
	wait, err := c.classifyAttempt(actx, c.scrubParts(err, out), out, model)
	return wait, c.scrub(err)
}

func (c *OpenAIClient) classifyAttempt(actx context.Context, err error, out *httpOutcome, model string) (time.Duration, error) {
	var fe *finishError
	if errors.As(err, &fe) {
		var r *retryableError
		if errors.As(err, &r) {
			return 0, retryable(fmt.Errorf("%s: %w", c.baseURL, fe))
		}
		return 0, fmt.Errorf("%s: %w", c.baseURL, fe)
	}
	var re *responsesError
	if errors.As(err, &re) {
		if re.retryable {
			return 0, retryable(fmt.Errorf("%s: %w", c.baseURL, re))
		}
		return 0, fmt.Errorf("%s: %w", c.baseURL, re)
	}
	if errors.Is(context.Cause(actx), errIdle) {
		return 0, retryable(fmt.Errorf("no answer from %s for %s (%w): the server is overloaded or the model is loading", c.baseURL, c.timeout, errIdle))
	}
	var sdkErr *openai.Error
	if out.status == 0 && errors.As(err, &sdkErr) {
		out.status = sdkErr.StatusCode
	}
	if out.status >= 400 {
		api := newAPIError(out.status, out.body, model, c.baseURL)
		api.Provider = c.profile.Name
		if !api.Retryable() {
			return 0, api
		}
		wait, _ := retryAfter(out.header, time.Now())
		return wait, retryable(api)
	}
	var se *ssestream.StreamError
	if errors.As(err, &se) {
		e := newStreamError(se.Event.Data)
		if e.retryable {
			return 0, retryable(fmt.Errorf("%s: %w", c.baseURL, e))
		}
		return 0, fmt.Errorf("%s: %w", c.baseURL, e)
	}
	if errors.Is(err, errCut) && out.notStream() {
		return 0, fmt.Errorf("%s answered %q instead of an event stream: check OPENAI_BASE_URL (it usually ends in /v1) and that the server supports streaming", c.baseURL, out.header.Get("Content-Type"))
	}
	if errors.Is(err, errCut) {
		return 0, retryable(fmt.Errorf("%s: %w", c.baseURL, errCut))
	}
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	if errors.As(err, &syntax) || errors.As(err, &typ) {
		return 0, fmt.Errorf("decode stream chunk from %s: %w", c.baseURL, err)
	}
	return 0, retryable(fmt.Errorf("connection to %s failed: %w", c.baseURL, err))
}
