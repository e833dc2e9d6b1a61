package llmtest

import (
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/yagent/yagent/llm"
)

// Server serves one scenario on 127.0.0.1. Create it with New or Start and
// stop it with Close.
type Server struct {
	sc   *Scenario
	opts options
	url  string
	hs   *http.Server

	active    sync.WaitGroup
	closeOnce sync.Once

	mu         sync.Mutex // guards everything below
	closed     bool
	steps      []stepState
	captured   map[string]string
	lastPrompt map[string][]byte // agent → tools+messages bytes of its last answered request
	reqs       []Recorded
}

// Recorded is one request the server received.
type Recorded struct {
	N         int    // 1-based arrival order across all endpoints
	Path      string // e.g. /v1/chat/completions
	URL       string // the request URI, query included
	Body      []byte
	Agent     string // from the "[agent:NAME]" marker in the first system message
	StepID    string // the step that answered: its id, or steps[i]
	Unmatched bool
	Messages  []llm.Message
	Tools     []string // names of declared tools
	Stream    bool
	Time      time.Time
	Model     string
	Fault     string // the fault kind served, "" for a normal answer
	Status    int    // HTTP status answered (200 for a cut stream)
	Header    http.Header
	// PromptTokens is the prompt_tokens the answer reported (bytes of the
	// request's tools and messages over four, unless the step set it); 0
	// when the request got an error instead.
	PromptTokens int
}

type stepState struct {
	served   int // normal answers
	faulted  int // faults served
	captures []capture
}

type capture struct {
	name string
	re   *regexp.Regexp
}

type options struct {
	replay bool
	models []string
	cards  []ModelCard
	logf   func(format string, args ...any)
	now    func() time.Time
}

// Option configures a Server.
type Option func(*options)

// WithReplay marks the server as serving a replay, so whatever shows it can
// say so (see Label).
func WithReplay(replay bool) Option { return func(o *options) { o.replay = replay } }

// WithModels restricts the models the server knows: a request for another
// model gets OpenAI's 404 model_not_found, and GET /v1/models lists these.
func WithModels(names ...string) Option { return func(o *options) { o.models = names } }

// ModelCard is a model GET /v1/models lists with what OpenRouter says of
// it: its window (context_length) and its price in US dollars per token,
// as strings (pricing.prompt, pricing.completion); zero values are left
// out.
type ModelCard struct {
	ID                 string
	ContextLength      int
	Prompt, Completion string
}

// WithModelCards adds models to GET /v1/models with their window and
// price; requests for them are served (WithModels' restriction allows
// them too).
func WithModelCards(cards ...ModelCard) Option {
	return func(o *options) { o.cards = append(o.cards, cards...) }
}

// WithLogf reports unmatched requests through logf (t.Logf in tests).
func WithLogf(logf func(format string, args ...any)) Option {
	return func(o *options) { o.logf = logf }
}

// New starts a server for sc, panicking if sc is invalid or no port can be
// had (as httptest.NewServer does). Programs should use Start.
func New(sc *Scenario, opts ...Option) *Server {
	s, err := Start(sc, opts...)
	if err != nil {
		panic(err)
	}
	return s
}

// Start validates sc and starts a server for it on 127.0.0.1:0.
func Start(sc *Scenario, opts ...Option) (*Server, error) {
	if ps := sc.validate(); len(ps) > 0 {
		msgs := make([]string, len(ps))
		for i, p := range ps {
			msgs[i] = p.format(nil)
		}
		return nil, fmt.Errorf("llmtest: invalid scenario %s: %s", sc.Name, strings.Join(msgs, "; "))
	}
	s := &Server{
		sc:         sc,
		opts:       options{now: time.Now},
		steps:      make([]stepState, len(sc.Steps)),
		captured:   map[string]string{},
		lastPrompt: map[string][]byte{},
	}
	for _, o := range opts {
		o(&s.opts)
	}
	for i, st := range sc.Steps {
		for _, name := range sortedKeys(st.Capture) {
			s.steps[i].captures = append(s.steps[i].captures, capture{name, regexp.MustCompile(st.Capture[name])})
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("llmtest: listen: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.handleChat)
	mux.HandleFunc("POST /v1/responses", s.handleResponses)
	mux.HandleFunc("POST /v1/embeddings", s.handleEmbeddings)
	mux.HandleFunc("GET /v1/models", s.handleModels)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "invalid_request_error", "unknown_url",
			fmt.Sprintf("llmtest: no endpoint %s %s (serving /v1/chat/completions, /v1/responses, /v1/embeddings, /v1/models)", r.Method, r.URL.Path))
	})
	s.hs = &http.Server{
		Handler:  s.track(mux),
		ErrorLog: log.New(io.Discard, "", 0),
	}
	s.url = "http://" + ln.Addr().String() + "/v1"
	go s.hs.Serve(ln)
	return s, nil
}

// track counts running handlers so Close can wait for them.
func (s *Server) track(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			writeError(w, http.StatusServiceUnavailable, "server_error", "closed", "llmtest: server closed")
			return
		}
		s.active.Add(1)
		s.mu.Unlock()
		defer s.active.Done()
		h.ServeHTTP(w, r)
	})
}

// URL is the base URL clients use, ending in /v1.
func (s *Server) URL() string { return s.url }

// Close stops the server and waits for running handlers. Closing the
// connections cancels every request's context, which cuts pending delays
// short. It may be called more than once.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		_ = s.hs.Close()
		s.active.Wait()
	})
}

// Scenario returns the scenario being served.
func (s *Server) Scenario() *Scenario { return s.sc }

// Replay reports whether the server was started WithReplay.
func (s *Server) Replay() bool { return s.opts.replay }

// Label says what is answering, for a banner or a status line.
func (s *Server) Label() string {
	what := s.sc.Path
	if what == "" {
		what = s.sc.Name
	}
	if s.opts.replay {
		return fmt.Sprintf("replay of %s (scripted model, not a live LLM)", what)
	}
	return fmt.Sprintf("scripted model %s (llmtest)", what)
}

// Requests returns every request received so far, in arrival order.
func (s *Server) Requests() []Recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Recorded(nil), s.reqs...)
}

// Unmatched returns the chat requests no step matched.
func (s *Server) Unmatched() []Recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Recorded
	for _, r := range s.reqs {
		if r.Unmatched {
			out = append(out, r)
		}
	}
	return out
}

// Pending returns the labels of steps that still expect requests: limited
// Times not used up, neither repeat nor optional.
func (s *Server) Pending() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for i := range s.sc.Steps {
		st := &s.sc.Steps[i]
		if n := st.limit(); n > 0 && !st.Optional && s.steps[i].served < n {
			out = append(out, st.label(i))
		}
	}
	return out
}

// AssertDone fails t when a step is still pending or a request went
// unmatched, listing them.
func (s *Server) AssertDone(t testing.TB) {
	t.Helper()
	pending, unmatched := s.Pending(), s.Unmatched()
	if len(pending) == 0 && len(unmatched) == 0 {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "llmtest: scenario %s not done", s.sc.Name)
	if len(pending) > 0 {
		fmt.Fprintf(&b, "\n\tpending steps: %s", strings.Join(pending, ", "))
	}
	for _, r := range unmatched {
		fmt.Fprintf(&b, "\n\tunmatched %s", describe(r))
	}
	t.Errorf("%s", b.String())
}

// limit is how many normal answers the step gives; 0 means unlimited.
func (st *Step) limit() int {
	switch {
	case st.Repeat:
		return 0
	case st.Times == nil:
		return 1
	}
	return *st.Times
}

func (st *Step) label(i int) string {
	if st.ID != "" {
		return st.ID
	}
	return fmt.Sprintf("steps[%d]", i)
}

func describe(r Recorded) string {
	agent, last := r.Agent, ""
	if agent == "" {
		agent = "-"
	}
	if n := len(r.Messages); n > 0 {
		last = truncate(r.Messages[n-1].Content, 80)
	}
	return fmt.Sprintf("request #%d (agent=%s, last message: %q)", r.N, agent, last)
}

// truncate cuts s to at most n bytes on a rune boundary, marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
