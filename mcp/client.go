package mcp

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/internal/redact"
)

// ServersOptions configure the client side.
type ServersOptions struct {
	// Getenv reads token_env variables; nil means os.Getenv.
	Getenv func(string) string
	// Environ is the environment stdio servers inherit (before their env:);
	// nil means os.Environ().
	Environ []string
	// Version is yagent's version, sent as the client's.
	Version string
	// Notify, when set, is told of events people should see: a server
	// that stopped, a restart.
	Notify func(msg string)
	// OAuth authorizes url servers that ask for it (oauth.go); its zero
	// value leaves OAuth off.
	OAuth OAuthOptions
	// Elicit declares elicitation to the servers: set it only where a
	// person can answer (a terminal). The questions go to the asker of the
	// last session that asked for tools (elicit.go); headless they are
	// declined.
	Elicit bool
}

// Servers are the external MCP servers of one yagent process (config
// mcp_servers). Each is started at most once — when a session first asks
// for tools — and restarted at most once after it dies. Safe for
// concurrent use.
type Servers struct {
	opts    ServersOptions
	remotes map[string]*remote
	names   []string // sorted

	askMu sync.Mutex
	ask   agents.Asker // elicitations' (elicit.go)
}

// NewServers prepares the configured servers without starting any.
func NewServers(cfg map[string]config.MCPServer, opts ServersOptions) *Servers {
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.Environ == nil {
		opts.Environ = os.Environ()
	}
	s := &Servers{opts: opts, remotes: map[string]*remote{}}
	for name, c := range cfg {
		r := &remote{name: name, cfg: c, opts: &s.opts}
		var secrets []string // no error or notice shows them
		if c.URL != "" && c.TokenEnv != "" {
			secrets = append(secrets, opts.Getenv(c.TokenEnv))
		}
		if c.URL != "" && c.OAuthClientSecretEnv != "" {
			secrets = append(secrets, opts.Getenv(c.OAuthClientSecretEnv))
		}
		for _, v := range c.Headers {
			secrets = append(secrets, v) // "Bearer X": redact takes X too
		}
		r.secrets = redact.NewGrowing(secrets...)
		if opts.Elicit {
			r.elicit = s.elicit(name)
		}
		if c.URL != "" && c.TokenEnv == "" && !hasAuthorization(c.Headers) && opts.OAuth.Store != nil {
			r.oauth = &oauthFlow{server: name, url: c.URL, opts: &s.opts.OAuth, say: r.sayf, issued: r.secrets.Add,
				clientID: c.OAuthClientID, secretEnv: c.OAuthClientSecretEnv, getenv: opts.Getenv}
		}
		s.remotes[name] = r
	}
	s.names = slices.Sorted(maps.Keys(cfg))
	return s
}

// ServerInfo is one configured server as `yagent mcp ls` shows it.
type ServerInfo struct {
	Name      string     `json:"name"`
	Transport string     `json:"transport"`        // stdio or http
	Source    string     `json:"source,omitempty"` // a workspace's .mcp.json, not the configuration
	Target    string     `json:"target"`           // the command line or the URL
	Enabled   bool       `json:"enabled"`
	Status    string     `json:"status"` // disabled, running, failed, needs login (OAuth, headless), stopped
	Error     string     `json:"error,omitempty"`
	Tools     []ToolInfo `json:"tools"`
}

// ToolInfo is one tool of a server, under both its names.
type ToolInfo struct {
	Name        string `json:"name"`     // as the model sees it: mcp_<server>__<tool>
	Original    string `json:"original"` // as the server named it
	Description string `json:"description"`
	ReadOnly    bool   `json:"read_only"` // the server's readOnlyHint (not trusted)
	// Allowed says mcp_servers.<server>.allow lists it: it runs unasked.
	Allowed bool   `json:"allowed"`
	Skipped string `json:"skipped,omitempty"` // why the tool is not offered
}

// Tools starts every enabled server not started yet (in parallel) and
// returns their tools, sorted by name, for a session's registry, each
// behind the session's external gate (policy: a call runs only when the
// person approves it or mcp_servers.NAME.allow lists the tool). A server
// that cannot start is left out and reported in errs.
func (s *Servers) Tools(ctx context.Context, policy agents.ShellPolicy) (tools []*agents.Tool, errs []error) {
	s.setAsker(policy.Ask)
	s.start(ctx)
	for _, name := range s.names {
		r := s.remotes[name]
		if !r.cfg.Enabled {
			continue
		}
		ts, err := r.agentTools(policy)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		tools = append(tools, ts...)
	}
	return tools, errs
}

// List starts the enabled servers and describes every configured one.
func (s *Servers) List(ctx context.Context) []ServerInfo {
	s.start(ctx)
	out := make([]ServerInfo, 0, len(s.names))
	for _, name := range s.names {
		out = append(out, s.remotes[name].info())
	}
	return out
}

func (s *Servers) start(ctx context.Context) {
	var wg sync.WaitGroup
	for _, name := range s.names {
		if r := s.remotes[name]; r.cfg.Enabled {
			wg.Go(func() { r.ensureStarted(ctx) })
		}
	}
	wg.Wait()
}

// Close stops every server this process started.
func (s *Servers) Close() error {
	var errs []error
	for _, name := range s.names {
		if err := s.remotes[name].close(); err != nil {
			errs = append(errs, fmt.Errorf("stop mcp server %s: %w", name, err))
		}
	}
	return errors.Join(errs...)
}

// remote is one external server and its connection.
type remote struct {
	name string
	cfg  config.MCPServer
	opts *ServersOptions
	// secrets are the bearer token (token_env), the headers' values and
	// the OAuth tokens issued to it, which no error, notice or result this
	// server brings back may show.
	secrets *redact.Growing
	// oauth authorizes a url server without token_env or an Authorization
	// header when it answers 401 (nil: OAuth is off for it).
	oauth *oauthFlow
	// elicit answers the server's elicitation/create (nil: not declared).
	elicit func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error)

	mu       sync.Mutex
	started  bool // a first start was attempted
	sess     *sdk.ClientSession
	tools    []*sdk.Tool
	startErr error
	stopped  error // why the live session ended, until the restart
	restarts int
	closing  bool
}

const maxRestarts = 1

// bounded returns ctx bounded by the server's timeout (mcp_servers.<name>
// .timeout, resolved by config, which refuses 0); 0 would mean no bound,
// never a default of this package's own.
func (r *remote) bounded(ctx context.Context) (context.Context, context.CancelFunc) {
	if d := r.cfg.Timeout.D(); d > 0 {
		return context.WithTimeout(ctx, d)
	}
	return context.WithCancel(ctx)
}

// startBound is bounded() for a start: its deadline can be paused while
// the person authorizes the server in a browser (pause returns what
// restarts it, with the whole timeout again).
func (r *remote) startBound(ctx context.Context) (_ context.Context, cancel func(), pause func() (resume func())) {
	d := r.cfg.Timeout.D()
	if d <= 0 {
		ctx, cancel := context.WithCancel(ctx)
		return ctx, cancel, func() func() { return func() {} }
	}
	ctx, cancelCause := context.WithCancelCause(ctx)
	expire := func() { cancelCause(context.DeadlineExceeded) }
	var mu sync.Mutex
	timer := time.AfterFunc(d, expire)
	pause = func() func() {
		mu.Lock()
		timer.Stop()
		mu.Unlock()
		return func() {
			mu.Lock()
			timer = time.AfterFunc(d, expire)
			mu.Unlock()
		}
	}
	cancel = func() {
		mu.Lock()
		timer.Stop()
		mu.Unlock()
		cancelCause(context.Canceled)
	}
	return ctx, cancel, pause
}

func (r *remote) sayf(msg string) {
	if r.opts.OAuth.Say != nil {
		r.opts.OAuth.Say(msg)
		return
	}
	r.notify(msg)
}

func (r *remote) ensureStarted(ctx context.Context) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.started {
		return
	}
	r.started = true
	r.startErr = r.connectLocked(ctx)
}

// connectLocked starts the server, runs the handshake and lists its
// tools, all within the server's timeout. Its error is scrubbed of the
// bearer token: it is kept and shown as the server's failure.
func (r *remote) connectLocked(ctx context.Context) (err error) {
	defer func() { err = r.secrets.Error(err) }()
	if err := r.cfg.Check(r.name); err != nil {
		return err
	}
	ctx, cancel, pause := r.startBound(ctx)
	defer cancel()
	if r.oauth != nil {
		r.oauth.mu.Lock()
		r.oauth.pause = pause
		r.oauth.mu.Unlock()
	}
	t, err := r.transport()
	if err != nil {
		return err
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "yagent", Version: r.opts.Version},
		&sdk.ClientOptions{Capabilities: &sdk.ClientCapabilities{}, ElicitationHandler: r.elicit})
	sess, err := client.Connect(ctx, t, nil)
	if err != nil {
		return fmt.Errorf("start mcp server %s (%s): %w", r.name, r.target(), deadlineHint(ctx, err, r.name, r.cfg.Timeout.D()))
	}
	var tools []*sdk.Tool
	for tool, err := range sess.Tools(ctx, nil) {
		if err != nil {
			sess.Close()
			return fmt.Errorf("list the tools of mcp server %s: %w", r.name, deadlineHint(ctx, err, r.name, r.cfg.Timeout.D()))
		}
		tools = append(tools, tool)
	}
	r.sess, r.tools, r.stopped = sess, tools, nil
	go r.watch(sess)
	return nil
}

// deadlineHint names the setting to raise when ctx ran out.
func deadlineHint(ctx context.Context, err error, server string, d time.Duration) error {
	if errors.Is(context.Cause(ctx), context.DeadlineExceeded) {
		return fmt.Errorf("no answer within %s (raise mcp_servers.%s.timeout): %w", d, server, err)
	}
	return err
}

// watch waits for the session to end; an end yagent did not ask for is
// reported, and the next call restarts the server (once).
func (r *remote) watch(sess *sdk.ClientSession) {
	err := r.secrets.Error(sess.Wait())
	r.mu.Lock()
	if r.sess != sess || r.closing {
		r.mu.Unlock()
		return
	}
	if err == nil {
		err = errors.New("it closed the connection")
	}
	r.sess, r.stopped = nil, err
	r.mu.Unlock()
	r.notify(fmt.Sprintf("mcp server %s stopped: %v", r.name, err))
}

func (r *remote) notify(msg string) {
	if r.opts.Notify != nil {
		r.opts.Notify(msg)
	}
}

// session returns the live session, restarting a server that stopped if
// it has restarts left. restarted says the call brought it back.
func (r *remote) session(ctx context.Context) (sess *sdk.ClientSession, restarted bool, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.sess != nil:
		return r.sess, false, nil
	case r.closing:
		return nil, false, fmt.Errorf("mcp server %s is shut down", r.name)
	case r.stopped == nil && r.startErr != nil:
		return nil, false, r.startErr
	case r.restarts >= maxRestarts:
		return nil, false, fmt.Errorf("mcp server %s stopped (%v) and was already restarted %s; its tools are unavailable until yagent starts again", r.name, r.stopped, agents.Count(r.restarts, "time", "times"))
	}
	r.restarts++
	why := r.stopped
	if err := r.connectLocked(ctx); err != nil {
		r.startErr = err
		return nil, false, fmt.Errorf("mcp server %s stopped (%v) and could not be restarted: %w", r.name, why, err)
	}
	r.notify(fmt.Sprintf("mcp server %s restarted", r.name))
	return r.sess, true, nil
}

func (r *remote) close() error {
	r.mu.Lock()
	r.closing = true
	sess := r.sess
	r.sess = nil
	r.mu.Unlock()
	if sess == nil {
		return nil
	}
	err := sess.Close()
	if errors.Is(err, sdk.ErrConnectionClosed) {
		return nil
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return nil // a server killed at shutdown is not a failure of ours
	}
	return r.secrets.Error(err)
}

func (r *remote) target() string {
	if r.cfg.URL != "" {
		return r.cfg.URL
	}
	return shellJoin(append([]string{r.cfg.Command}, r.cfg.Args...))
}

// transport builds the stdio or streamable HTTP transport of the server.
func (r *remote) transport() (sdk.Transport, error) {
	if r.cfg.URL != "" {
		hc, err := r.httpClient()
		if err != nil {
			return nil, err
		}
		t := &sdk.StreamableClientTransport{Endpoint: r.cfg.URL, HTTPClient: hc, DisableStandaloneSSE: true}
		if r.oauth != nil {
			t.OAuthHandler = r.oauth
		}
		return t, nil
	}
	cmd := exec.Command(r.cfg.Command, r.cfg.Args...)
	cmd.Env = slices.Clone(r.opts.Environ)
	for _, k := range slices.Sorted(maps.Keys(r.cfg.Env)) {
		cmd.Env = append(cmd.Env, k+"="+r.cfg.Env[k])
	}
	cmd.Stderr = nil // a server's stderr is its own log, not yagent's output
	return &sdk.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil
}

// httpClient sends a url server's requests with its token_env bearer
// and its headers.
func (r *remote) httpClient() (*http.Client, error) {
	hc := &http.Client{Transport: http.DefaultTransport}
	if r.cfg.TokenEnv != "" {
		tok := r.opts.Getenv(r.cfg.TokenEnv)
		if tok == "" {
			return nil, fmt.Errorf("mcp server %s: its token variable %s is empty; export it or drop token_env", r.name, r.cfg.TokenEnv)
		}
		hc.Transport = bearer{token: tok, next: http.DefaultTransport}
	}
	if len(r.cfg.Headers) > 0 {
		hc.Transport = headers{h: r.cfg.Headers, next: hc.Transport}
	}
	return hc, nil
}

// hasAuthorization says the headers carry their own credential.
func hasAuthorization(h map[string]string) bool {
	for k := range h {
		if http.CanonicalHeaderKey(k) == "Authorization" {
			return true
		}
	}
	return false
}

// headers adds a .mcp.json server's headers to every request.
type headers struct {
	h    map[string]string
	next http.RoundTripper
}

func (h headers) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, v := range h.h {
		req.Header.Set(k, v)
	}
	return h.next.RoundTrip(req)
}

// bearer adds the server's bearer token to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(req)
}

// scrubbed is a tool's result with the bearer token taken out: a server
// may echo it in an error, or in what a tool returns, and the result goes
// to the model, the rollout and the screen.
func (r *remote) scrubbed(res agents.Result, err error) (agents.Result, error) {
	res.Content, res.Summary = r.secrets.String(res.Content), r.secrets.String(res.Summary)
	return res, r.secrets.Error(err)
}

func (r *remote) info() ServerInfo {
	r.mu.Lock()
	defer r.mu.Unlock()
	info := ServerInfo{Name: r.name, Target: r.target(), Enabled: r.cfg.Enabled, Transport: "stdio", Source: r.cfg.Source, Tools: []ToolInfo{}}
	if r.cfg.URL != "" {
		info.Transport = "http"
	}
	switch {
	case !r.cfg.Enabled:
		info.Status = "disabled"
	case r.sess != nil:
		info.Status = "running"
	case r.stopped != nil:
		info.Status, info.Error = "stopped", r.stopped.Error()
	case r.startErr != nil && errors.As(r.startErr, new(*NeedsLoginError)):
		info.Status, info.Error = "needs login", r.startErr.Error()
	case r.startErr != nil:
		info.Status, info.Error = "failed", r.startErr.Error()
	}
	for _, c := range r.converted() {
		info.Tools = append(info.Tools, c.info)
	}
	return info
}
