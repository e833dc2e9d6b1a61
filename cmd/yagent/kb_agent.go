package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/internal/atomicfile"
	"github.com/yagent/yagent/kb"
	"github.com/yagent/yagent/mcp"
)

// agentToken names the token yagent's own agents use for one scope: read
// or write, one project or every project of the person.
func agentToken(write bool, project string) kb.TokenSpec {
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

// agentCaller is the caller of yagent's own agents: an agent of the local
// person through a token scoped by config (kb.project; write when an
// agent tool writes). The token is created on first use and its plaintext
// kept in $YAGENT_HOME/kb-agents/ (mode 0600), so `yagent kb token ls`
// shows it and revoking it switches the agents' KB tools off.
func agentCaller(ctx context.Context, store *kb.Store, person kb.Caller, home string, spec kb.TokenSpec) (kb.Caller, error) {
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

// sessionKBTools are the KB tools of a session's agents (kb.agent_tools),
// run in-process under the agents' caller, their calls recorded under the
// session sessionID names at the first call. The knowledge base is opened at
// the first call of one of them, not here: a session whose agents never
// use it never opens kb.db. A configuration mistake fails the session now;
// any other problem (no database, an unknown kb.project, a revoked token)
// shows up at that first call: it goes to warn, and the tools answer that
// the knowledge base is not available for the rest of the session.
func sessionKBTools(f *Factory, sessionID func() string, warn func(error)) ([]*agents.Tool, error) {
	cfg, err := f.Config()
	if err != nil {
		return nil, err
	}
	k := cfg.KB
	if !k.Enabled || len(k.AgentTools) == 0 {
		return nil, nil
	}
	if _, err := kbEmbedder(cfg, f.Getenv); err != nil {
		return nil, err // kb.embeddings names no usable model
	}
	write := false
	for _, t := range kb.Tools() {
		if slices.Contains(k.AgentTools, t.Name) && !t.ReadOnly {
			write = true
		}
	}
	open := func(ctx context.Context) (mcp.KBBackend, kb.Caller, error) {
		store, c, err := agentKB(ctx, f, agentToken(write, k.Project))
		if err != nil {
			if ctx.Err() == nil {
				warn(fmt.Errorf("%w; the knowledge-base tools are off for this session", err))
			}
			return nil, kb.Caller{}, err
		}
		c.Client, c.Session = "yagent", sessionID()
		return store, c, nil
	}
	return mcp.KBTools(open, mcp.KBToolsOptions{Names: k.AgentTools, Project: k.Project})
}

// agentKB opens the knowledge base of the configuration and the agents'
// caller of spec's scope.
func agentKB(ctx context.Context, f *Factory, spec kb.TokenSpec) (*kb.Store, kb.Caller, error) {
	cfg, err := f.Config()
	if err != nil {
		return nil, kb.Caller{}, err
	}
	// The factory keeps the store it opened, or why it could not, for the
	// process: a call cancelled meanwhile must not leave a cancellation
	// there.
	store, person, err := kbOpen(context.WithoutCancel(ctx), f)
	if err != nil {
		return nil, kb.Caller{}, err
	}
	c, err := agentCaller(ctx, store, person, cfg.Home, spec)
	if err != nil {
		if project := cfg.KB.Project; kb.ErrorCode(err) == kb.CodeNotFound && project != "" {
			return nil, kb.Caller{}, fmt.Errorf("kb.project %q is not one of your projects: create it with `yagent kb projects create %s` or fix kb.project", project, project)
		}
		return nil, kb.Caller{}, fmt.Errorf("knowledge base: %w", err)
	}
	return store, c, nil
}
