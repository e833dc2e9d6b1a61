package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/kb"
)

// KB opens the knowledge base of the configuration once per process
// (kb.dsn's PostgreSQL database when set, else the SQLite file kb.path,
// default $YAGENT_HOME/kb.db), with the embedder of kb.embeddings when one
// is configured.
func (f *Factory) KB(ctx context.Context) (*kb.Store, error) {
	cfg, err := f.Config()
	if err != nil {
		return nil, err
	}
	f.kbOnce.Do(func() {
		var emb kb.Embedder
		if emb, f.kbErr = kbEmbedder(cfg, f.Getenv); f.kbErr != nil {
			return
		}
		f.kb, f.kbErr = openKBStore(ctx, cfg, kb.Options{Embedder: emb, Now: f.Now, SharedUserMemory: cfg.KB.UserMemory == "shared"})
	})
	return f.kb, f.kbErr
}

// openKBStore opens the configured backend: kb.dsn, else kb.path. A
// database kb.dsn cannot reach is bad input naming kb.dsn (password
// masked).
func openKBStore(ctx context.Context, cfg *config.Config, opts kb.Options) (*kb.Store, error) {
	if dsn := cfg.KB.DSN; dsn != "" {
		s, err := kb.OpenPostgres(ctx, dsn, opts)
		if errors.Is(err, kb.ErrUnreachable) {
			return nil, usagef("kb.dsn: %v; check the address and credentials, start PostgreSQL, or unset kb.dsn to use the SQLite file", err)
		}
		return s, err
	}
	path := cfg.KB.DBPath(cfg.Home)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	return kb.Open(ctx, path, opts)
}

// kbEmbedder builds the embedder of kb.embeddings: the model id, served by
// the base URL and key of a model under models:. No model: nil (search
// runs on full text and says mode "fts").
func kbEmbedder(cfg *config.Config, getenv func(string) string) (kb.Embedder, error) {
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
		return nil, usagef("kb.embeddings.endpoint %q is not a model under models: (the configured ones are %s)", name, strings.Join(slices.Sorted(maps.Keys(cfg.Models)), ", "))
	}
	if m.BaseURL == "" {
		return nil, usagef("kb.embeddings: models.%s.base_url is empty; set it (or OPENAI_BASE_URL for the default model), or set kb.embeddings.model to \"\" for full-text search only", name)
	}
	return kb.NewOpenAIEmbedder(m.BaseURL, m.APIKey(getenv), e.Model), nil
}

// kbPerson is the local person at the keyboard as a kb caller: the
// principal named by kb.person, else $USER, created on first use.
func kbPerson(ctx context.Context, f *Factory, store *kb.Store) (kb.Caller, error) {
	cfg, err := f.Config()
	if err != nil {
		return kb.Caller{}, err
	}
	name := personName(cfg, f.Getenv)
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

// kbOpen opens the store and the person for a `yagent kb` command.
func kbOpen(ctx context.Context, f *Factory) (*kb.Store, kb.Caller, error) {
	store, err := f.KB(ctx)
	if err != nil {
		return nil, kb.Caller{}, fmt.Errorf("knowledge base: %w", err)
	}
	person, err := kbPerson(ctx, f, store)
	if err != nil {
		return nil, kb.Caller{}, fmt.Errorf("knowledge base: %w", err)
	}
	return store, person, nil
}
