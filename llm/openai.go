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
	"github.com/openai/openai-go/v3/packages/ssestream"
)

// OpenAIClient is a [Client] for any OpenAI-compatible Chat Completions
// endpoint (OpenAI, OpenRouter, vLLM, llama.cpp server, Ollama, LM Studio).
// It is safe for concurrent use.
type OpenAIClient struct {
	chat       openai.ChatCompletionService
	embeddings openai.EmbeddingService
	baseURL    string
	model      string
	timeout    time.Duration
	maxRetries int
	backoff    func(int) time.Duration
	isOpenAI   bool
}

var _ Client = (*OpenAIClient)(nil)

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
	c := &OpenAIClient{
		baseURL:    strings.TrimRight(cfg.BaseURL, "/"),
		model:      cfg.Model,
		timeout:    cfg.Timeout,
		maxRetries: cfg.MaxRetries,
		backoff:    cfg.Backoff,
		isOpenAI:   isOpenAIHost(u),
	}
	if c.timeout <= 0 {
		c.timeout = DefaultTimeout
	}
	switch {
	case c.maxRetries == 0:
		c.maxRetries = DefaultMaxRetries
	case c.maxRetries < 0:
		c.maxRetries = 0
	}
	if c.backoff == nil {
		c.backoff = defaultBackoff
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{Transport: http.DefaultTransport}
		if t, ok := http.DefaultTransport.(*http.Transport); ok {
			hc.Transport = t.Clone()
		}
	}
	opts := []option.RequestOption{
		option.WithBaseURL(c.baseURL),
		option.WithAPIKey(cfg.APIKey),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(0), // the retry policy is ours
	}
	c.chat = openai.NewChatCompletionService(opts...)
	c.embeddings = openai.NewEmbeddingService(opts...)
	return c, nil
}

// Stream sends req and streams the answer, retrying failures that a new
// attempt may cure (429, 5xx, connection errors, timeouts, cut streams).
func (c *OpenAIClient) Stream(ctx context.Context, req Request) (Response, error) {
	model := req.Model
	if model == "" {
		model = c.model
	}
	if model == "" {
		return Response{}, errors.New("no model set: set YAGENT_MODEL or models.<name>.model")
	}
	params, err := c.chatParams(req, model)
	if err != nil {
		return Response{}, fmt.Errorf("build request for %s: %w", model, err)
	}
	emit := func(Event) {}
	if req.OnEvent != nil {
		emit = req.OnEvent
	}
	var resp Response
	n, err := c.retry(ctx, emit, func(ctx context.Context, n int) (time.Duration, error) {
		var err error
		var wait time.Duration
		resp, wait, err = c.streamOnce(ctx, params, model, n, c.maxRetries+1, emit)
		return wait, err
	})
	if err != nil {
		return Response{Attempts: n}, err
	}
	resp.Attempts = n
	return resp, nil
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
func (c *OpenAIClient) streamOnce(ctx context.Context, params openai.ChatCompletionNewParams, model string, n, maxAttempts int, emit func(Event)) (Response, time.Duration, error) {
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	watchdog := time.AfterFunc(c.timeout, func() { cancel(errIdle) })
	defer watchdog.Stop()

	var out httpOutcome
	stream := c.chat.NewStreaming(actx, params, option.WithMiddleware(out.middleware))
	defer stream.Close()

	var asm assembler
	text := func(s string) { emit(Event{Kind: EventText, Text: s, Attempt: n, MaxAttempts: maxAttempts}) }
	for stream.Next() {
		watchdog.Reset(c.timeout)
		chunk := stream.Current()
		asm.add(&chunk, text)
	}
	err := stream.Err()
	switch {
	case err == nil && !asm.finished():
		err = errCut
	case err != nil && asm.finished() && ctx.Err() == nil && out.status < 400 && !isStreamError(err):
		// The answer is complete; only the usage chunk or [DONE] was lost.
		err = nil
	}
	if err != nil {
		wait, err := c.classify(actx, err, &out, model)
		return Response{}, wait, err
	}
	if asm.model != "" {
		model = asm.model
	}
	return Response{Message: asm.message(), FinishReason: asm.finish, Usage: asm.usage, Model: model}, 0, nil
}

func isStreamError(err error) bool {
	var se *ssestream.StreamError
	return errors.As(err, &se)
}

// classify turns the failure of one attempt into the error to report and
// says whether a new attempt may cure it (see retryable). The caller's own
// cancellation is handled by retry before any of this matters.
func (c *OpenAIClient) classify(actx context.Context, err error, out *httpOutcome, model string) (time.Duration, error) {
	if errors.Is(context.Cause(actx), errIdle) {
		return 0, retryable(fmt.Errorf("no answer from %s for %s (%w): the server is overloaded or the model is loading", c.baseURL, c.timeout, errIdle))
	}
	var sdkErr *openai.Error
	if out.status == 0 && errors.As(err, &sdkErr) {
		out.status = sdkErr.StatusCode
	}
	if out.status >= 400 {
		api := newAPIError(out.status, out.body, model, c.baseURL)
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
