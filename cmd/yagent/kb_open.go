package main

import (
	"context"
	"fmt"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/app"
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
		if emb, f.kbErr = app.KBEmbedder(cfg, f.Getenv); f.kbErr != nil {
			return
		}
		f.kb, f.kbErr = app.OpenKB(ctx, cfg, kb.Options{Embedder: emb, Now: f.Now, SharedUserMemory: cfg.KB.UserMemory == "shared"})
	})
	return f.kb, f.kbErr
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

// kbPerson is the local person at the keyboard (app.KBPerson).
func kbPerson(ctx context.Context, f *Factory, store *kb.Store) (kb.Caller, error) {
	cfg, err := f.Config()
	if err != nil {
		return kb.Caller{}, err
	}
	return app.KBPerson(ctx, cfg, f.Getenv, store)
}

// sessionKBTools are the KB tools of a session's agents
// (app.KBTools): the knowledge base is opened, through the factory, at
// the first call of one of them.
func sessionKBTools(f *Factory, sessionID func() string, warn func(error)) ([]*agents.Tool, error) {
	cfg, err := f.Config()
	if err != nil {
		return nil, err
	}
	open := func(ctx context.Context) (*kb.Store, kb.Caller, error) { return kbOpen(ctx, f) }
	return app.KBTools(cfg, f.Getenv, open, sessionID, warn)
}
