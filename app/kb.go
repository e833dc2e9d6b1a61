package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/internal/atomicfile"
	"github.com/yagent/yagent/kb"
	"github.com/yagent/yagent/mcp"
)

// The knowledge base of the configuration, for yagent's commands and its
// agents: the store (kb.dsn or kb.path, with the embedder of
// kb.embeddings), the local person, and the agents' caller and tools.

// KBOpener opens the knowledge base and the local person, once per
// process (cmd/yagent's factory).
type KBOpener func(ctx context.Context) (*kb.Store, kb.Caller, error)

// badInputf is a kb.* setting that cannot work: the person's to fix.
func badInputf(format string, args ...any) error {
	return &BadInputError{fmt.Errorf(format, args...)}
}

// OpenKB opens the configured backend: kb.dsn, else kb.path. A
// database kb.dsn cannot reach is bad input naming kb.dsn (password
// masked).
func OpenKB(ctx context.Context, cfg *config.Config, opts kb.Options) (*kb.Store, error) {
	if dsn := cfg.KB.DSN; dsn != "" {
		s, err := kb.OpenPostgres(ctx, dsn, opts)
		if errors.Is(err, kb.ErrUnreachable) {
			return nil, badInputf("kb.dsn: %v; check the address and credentials, start PostgreSQL, or unset kb.dsn to use the SQLite file", err)
		}
		return s, err
	}
	path := cfg.KB.DBPath(cfg.Home)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	return kb.Open(ctx, path, opts)
}

// KBEmbedder builds the embedder of kb.embeddings: the model id, served by
// the base URL and key of a model under models:. No model: nil (search
// runs on full text and says mode "fts").
func KBEmbedder(cfg *config.Config, getenv func(string) string) (kb.Embedder, error) {
	e := cfg.KB.Embeddings
	if e.Model == "" {
		return nil, nil
	}
	name := e.Endpoint
	if name == "" {
		name = "default"
	}
	m, ok := cfg.Models[name]
	if !ok {
		return nil, badInputf("kb.embeddings.endpoint %q is not a model under models: (the configured ones are %s)", name, strings.Join(slices.Sorted(maps.Keys(cfg.Models)), ", "))
	}
	if m.BaseURL == "" {
		return nil, badInputf("kb.embeddings: models.%s.base_url is empty; set it (or OPENAI_BASE_URL for the default model), or set kb.embeddings.model to \"\" for full-text search only", name)
	}
	return kb.NewOpenAIEmbedder(m.BaseURL, m.APIKey(getenv), e.Model), nil
}

// KBPerson is the local person at the keyboard as a kb caller: the
// principal named by kb.person, else $USER, created on first use.
func KBPerson(ctx context.Context, cfg *config.Config, getenv func(string) string, store *kb.Store) (kb.Caller, error) {
	name := personName(cfg, getenv)
	for attempt := 0; ; attempt++ {
		ps, err := store.Principals(ctx)
		if err != nil {
			return kb.Caller{}, err
		}
		for _, p := range ps {
			if p.Name == name {
				return kb.PersonCaller(p.ID, "yagent-cli"), nil
			}
		}
		p, err := store.CreatePrincipal(ctx, name)
		if err == nil {
			return kb.PersonCaller(p.ID, "yagent-cli"), nil
		}
		if attempt > 0 {
			return kb.Caller{}, err
		}
		// Another yagent process may have created it meanwhile: look again.
	}
}

func personName(cfg *config.Config, getenv func(string) string) string {
	for _, n := range []string{cfg.KB.Person, getenv("USER"), getenv("USERNAME")} {
		if n = strings.TrimSpace(n); n != "" {
			return n
		}
	}
	return "me"
}

// AgentToken names the token yagent's own agents use for one scope: read
// or write, one project or every project of the person.
func AgentToken(write bool, project string) kb.TokenSpec {
	spec := kb.TokenSpec{Name: "yagent-agents-read", Write: write}
	if write {
		spec.Name = "yagent-agents-write"
	}
	if project != "" {
		spec.Name += "@" + project
		spec.Projects = []string{project}
	}
	return spec
}

// AgentCaller is the caller of yagent's own agents: an agent of the local
// person through a token scoped by config (kb.project; write when an
// agent tool writes). The token is created on first use and its plaintext
// kept in $YAGENT_HOME/kb-agents/ (mode 0600), so `yagent kb token ls`
// shows it and revoking it switches the agents' KB tools off.
func AgentCaller(ctx context.Context, store *kb.Store, person kb.Caller, home string, spec kb.TokenSpec) (kb.Caller, error) {
	sum := sha256.Sum256([]byte(store.Path() + "\x00" + spec.Name))
	file := filepath.Join(home, "kb-agents", hex.EncodeToString(sum[:8])+".token")
	for attempt := 0; ; attempt++ {
		data, err := os.ReadFile(file)
		if err == nil {
			c, err := store.Authenticate(ctx, strings.TrimSpace(string(data)))
			if err == nil {
				return c, nil
			}
			if !errors.Is(err, kb.ErrUnauthenticated) {
				return kb.Caller{}, err
			}
			// Revoked by the person: respect it. Unknown (another
			// database): issue a new one below.
			revoked, err := revokedToken(ctx, store, person, spec.Name)
			if err != nil {
				return kb.Caller{}, err
			}
			if revoked {
				return kb.Caller{}, fmt.Errorf("the agents' token %q was revoked; to issue a new one, remove %s", spec.Name, file)
			}
		}
		plain, _, err := store.CreateToken(ctx, person, spec)
		if kb.ErrorCode(err) == kb.CodeConflict && attempt < 20 {
			// Another yagent process is creating it; its file appears next.
			time.Sleep(50 * time.Millisecond)
			continue
		}
		if err != nil {
			return kb.Caller{}, err
		}
		if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
			return kb.Caller{}, err
		}
		if err := atomicfile.WriteFile(file, []byte(plain+"\n"), 0o600); err != nil {
			return kb.Caller{}, fmt.Errorf("keep the agents' token: %w", err)
		}
		return store.Authenticate(ctx, plain)
	}
}

// revokedToken reports whether the person's token of that name was
// revoked and none of that name is live.
func revokedToken(ctx context.Context, store *kb.Store, person kb.Caller, name string) (bool, error) {
	tokens, err := store.ListTokens(ctx, person)
	if err != nil {
		return false, err
	}
	revoked := false
	for _, t := range tokens {
		if t.Name != name {
			continue
		}
		if t.RevokedAt == nil {
			return false, nil
		}
		revoked = true
	}
	return revoked, nil
}

// KBTools are the KB tools of a session's agents (kb.agent_tools),
// run in-process under the agents' caller, their calls recorded under the
// session sessionID names at the first call. The knowledge base is opened at
// the first call of one of them, not here: a session whose agents never
// use it never opens kb.db. A configuration mistake fails the session now;
// any other problem (no database, an unknown kb.project, a revoked token)
// shows up at that first call: it goes to warn, and the tools answer that
// the knowledge base is not available for the rest of the session.
//
// open opens the store and the local person (KBPerson) once per process;
// it is called at that first call, never when the tools are built.
func KBTools(cfg *config.Config, getenv func(string) string, open KBOpener, sessionID func() string, warn func(error)) ([]*agents.Tool, error) {
	k := cfg.KB
	if !k.Enabled || len(k.AgentTools) == 0 {
		return nil, nil
	}
	if _, err := KBEmbedder(cfg, getenv); err != nil {
		return nil, err // kb.embeddings names no usable model
	}
	write := false
	for _, t := range kb.Tools() {
		if slices.Contains(k.AgentTools, t.Name) && !t.ReadOnly {
			write = true
		}
	}
	agentOpen := func(ctx context.Context) (mcp.KBBackend, kb.Caller, error) {
		store, c, err := agentKB(ctx, cfg, open, AgentToken(write, k.Project))
		if err != nil {
			if ctx.Err() == nil {
				warn(fmt.Errorf("%w; the knowledge-base tools are off for this session", err))
			}
			return nil, kb.Caller{}, err
		}
		c.Client, c.Session = "yagent", sessionID()
		return store, c, nil
	}
	return mcp.KBTools(agentOpen, mcp.KBToolsOptions{Names: k.AgentTools, Project: k.Project})
}

// agentKB opens the knowledge base of the configuration and the agents'
// caller of spec's scope.
func agentKB(ctx context.Context, cfg *config.Config, open KBOpener, spec kb.TokenSpec) (*kb.Store, kb.Caller, error) {
	// The opener keeps the store it opened, or why it could not, for the
	// process: a call cancelled meanwhile must not leave a cancellation
	// there.
	store, person, err := open(context.WithoutCancel(ctx))
	if err != nil {
		return nil, kb.Caller{}, err
	}
	c, err := AgentCaller(ctx, store, person, cfg.Home, spec)
	if err != nil {
		if project := cfg.KB.Project; kb.ErrorCode(err) == kb.CodeNotFound && project != "" {
			return nil, kb.Caller{}, fmt.Errorf("kb.project %q is not one of your projects: create it with `yagent kb projects create %s` or fix kb.project", project, project)
		}
		return nil, kb.Caller{}, fmt.Errorf("knowledge base: %w", err)
	}
	return store, c, nil
}
