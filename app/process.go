package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"sync"
	"time"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/internal/buildinfo"
	"github.com/yagent/yagent/kb"
	"github.com/yagent/yagent/mcp"
	"github.com/yagent/yagent/telemetry"
)

// Process is what one yagent process opens at most once, on first use,
// and releases at its end: the configuration, the knowledge base, the
// external MCP servers and the trace exporter. Nothing is built before it
// is asked for, so a command pays only for what it uses (`yagent
// --version` loads nothing). The session store is not here: it belongs to
// memory, above this package (cmd/yagent's Factory opens it).
//
// Getenv, Now and Dir may be replaced before the first use (a test, the
// offline demo's throwaway home).
type Process struct {
	Getenv func(string) string
	Now    func() time.Time
	// Dir is the working directory ("" = the process's).
	Dir string
	// Stderr receives the MCP servers' messages and the exporter's
	// errors.
	Stderr io.Writer
	// NoLoginFlow keeps the MCP servers' OAuth browser flow off even at
	// a terminal: a command that only lists them (yagent mcp ls) shows
	// a server that needs authorization as "needs login" instead.
	NoLoginFlow bool

	configOnce sync.Once
	cfg        *config.Config
	cfgErr     error

	kbOnce sync.Once
	kb     *kb.Store
	kbErr  error

	mcpOnce sync.Once
	mcp     *mcp.Servers
	// editorMCP are the servers of sessions an editor passed MCP servers
	// to (MCPServersWith), by what it passed.
	editorMu  sync.Mutex
	editorMCP map[string]*mcp.Servers

	telOnce sync.Once
	tel     *telemetry.Telemetry
	telErr  error
}

// NewProcess returns a process over the environment of this one.
func NewProcess(stderr io.Writer) *Process {
	return &Process{Getenv: os.Getenv, Now: time.Now, Stderr: stderr}
}

// Config loads the configuration once.
func (p *Process) Config() (*config.Config, error) {
	p.configOnce.Do(p.ReloadConfig)
	return p.cfg, p.cfgErr
}

// ReloadConfig loads the configuration again (after the person trusted
// the workspace, before anything was built from it).
func (p *Process) ReloadConfig() {
	p.cfg, p.cfgErr = config.Load(config.Options{Getenv: p.Getenv, Dir: p.Dir})
}

// Board opens the notes root (blackboard.NotesRootDir), switched off by
// YAGENT_BLACKBOARD=0 — both read from Getenv here, once; a board it
// starts belongs to kb.project (mcp serve shows it only to tokens reaching
// it).
func (p *Process) Board() (*blackboard.Store, error) {
	cfg, err := p.Config()
	if err != nil {
		return nil, err
	}
	return blackboard.OpenEnv(p.Getenv).WithProject(cfg.KB.Project).WithMaxNoteBytes(cfg.Blackboard.MaxNoteBytes), nil
}

// NotesRoot is where boards live: $YAGENT_NOTES_ROOT, else the notes of
// yagent's home.
func (p *Process) NotesRoot() string { return blackboard.NotesRootDir(p.Getenv) }

// KB opens the knowledge base of the configuration once (kb.dsn's
// PostgreSQL database when set, else the SQLite file kb.path, default
// $YAGENT_HOME/kb.db), with the embedder of kb.embeddings when one is
// configured.
func (p *Process) KB(ctx context.Context) (*kb.Store, error) {
	cfg, err := p.Config()
	if err != nil {
		return nil, err
	}
	p.kbOnce.Do(func() {
		var emb kb.Embedder
		if emb, p.kbErr = KBEmbedder(cfg, p.Getenv); p.kbErr != nil {
			return
		}
		p.kb, p.kbErr = OpenKB(ctx, cfg, kb.Options{Embedder: emb, Now: p.Now, SharedUserMemory: cfg.KB.UserMemory == "shared"})
	})
	return p.kb, p.kbErr
}

// KBPerson is the local person at the keyboard (KBPerson over store).
func (p *Process) KBPerson(ctx context.Context, store *kb.Store) (kb.Caller, error) {
	cfg, err := p.Config()
	if err != nil {
		return kb.Caller{}, err
	}
	return KBPerson(ctx, cfg, p.Getenv, store)
}

// KBAsPerson opens the knowledge base and the local person, for a
// person's command (`yagent kb …`) and the agents' tools (a KBOpener).
func (p *Process) KBAsPerson(ctx context.Context) (*kb.Store, kb.Caller, error) {
	store, err := p.KB(ctx)
	if err != nil {
		return nil, kb.Caller{}, fmt.Errorf("knowledge base: %w", err)
	}
	person, err := p.KBPerson(ctx, store)
	if err != nil {
		return nil, kb.Caller{}, fmt.Errorf("knowledge base: %w", err)
	}
	return store, person, nil
}

// KBTools are the KB tools of a session's agents (KBTools): the
// knowledge base is opened, once per process, at the first call of one of
// them. It is RunOptions.KBTools.
func (p *Process) KBTools(sessionID func() string, warn func(error)) ([]*agents.Tool, error) {
	cfg, err := p.Config()
	if err != nil {
		return nil, err
	}
	return KBTools(cfg, p.Getenv, p.KBAsPerson, sessionID, warn)
}

// MCPServers returns the process's external MCP servers (config
// mcp_servers, and a trusted workspace's .mcp.json: MCPServersOf), none
// started yet; the first session that asks for tools
// starts them, once per process.
func (p *Process) MCPServers() (*mcp.Servers, error) {
	cfg, err := p.Config()
	if err != nil {
		return nil, err
	}
	p.mcpOnce.Do(func() { p.mcp = p.newMCPServers(cfg, nil) })
	return p.mcp, nil
}

// MCPServersWith is MCPServers with the MCP servers an editor passed to a
// session (yagent acp): the configured ones and those, a configured name
// winning. Sessions passing the same servers share them for the process's
// life. None passed: MCPServers.
func (p *Process) MCPServersWith(extra map[string]config.MCPServer) (*mcp.Servers, error) {
	if len(extra) == 0 {
		return p.MCPServers()
	}
	cfg, err := p.Config()
	if err != nil {
		return nil, err
	}
	key := fmt.Sprint(extra) // fmt sorts map keys: the same servers, the same key
	p.editorMu.Lock()
	defer p.editorMu.Unlock()
	if s, ok := p.editorMCP[key]; ok {
		return s, nil
	}
	s := p.newMCPServers(cfg, extra)
	if p.editorMCP == nil {
		p.editorMCP = map[string]*mcp.Servers{}
	}
	p.editorMCP[key] = s
	return s, nil
}

// newMCPServers are the configured servers (and a trusted workspace's
// .mcp.json: MCPServersOf) plus extra ones, none started yet.
func (p *Process) newMCPServers(cfg *config.Config, extra map[string]config.MCPServer) *mcp.Servers {
	servers := maps.Clone(cfg.MCPServers)
	if dir, err := WorkspaceDir(p.Dir); err == nil {
		var warnings []string
		servers, warnings = MCPServersOf(cfg, dir, p.Getenv)
		for _, w := range warnings {
			fmt.Fprintf(p.Stderr, "yagent: %s\n", w)
		}
	}
	for name, s := range extra {
		if _, ok := servers[name]; ok {
			fmt.Fprintf(p.Stderr, "yagent: warning: %s's MCP server %s is also configured: yours applies\n", s.Source, name)
			continue
		}
		if servers == nil {
			servers = map[string]config.MCPServer{}
		}
		servers[name] = s
	}
	return mcp.NewServers(servers, mcp.ServersOptions{
		Getenv: p.Getenv, Version: buildinfo.Version(),
		Notify: func(msg string) { fmt.Fprintf(p.Stderr, "yagent: %s\n", msg) },
		OAuth:  p.mcpOAuth(), Elicit: p.atTerminal(),
	})
}

// StartTelemetry starts exporting traces, once, when telemetry is
// configured (telemetry: or OTEL_EXPORTER_OTLP_*); off, it initialises
// nothing. A malformed endpoint or header variable is a
// *telemetry.ConfigError (exit 2).
func (p *Process) StartTelemetry(ctx context.Context) error {
	p.telOnce.Do(func() {
		cfg, err := p.Config()
		if err != nil {
			p.telErr = err
			return
		}
		opts, err := telemetry.Resolve(cfg.Telemetry, p.Getenv)
		if err != nil {
			p.telErr = err
			return
		}
		opts.Version, opts.Stderr = buildinfo.Version(), p.Stderr
		p.tel, p.telErr = telemetry.Setup(ctx, opts)
	})
	return p.telErr
}

// StopTelemetry flushes what is queued, bounded by
// telemetry.shutdown_timeout.
func (p *Process) StopTelemetry() {
	p.tel.Shutdown(context.Background())
}

// Close releases the MCP servers and the knowledge base, if they were
// opened, telling warn what did not close cleanly.
func (p *Process) Close(warn func(what string, err error)) {
	if p.mcp != nil {
		warn("the MCP servers", p.mcp.Close())
	}
	p.editorMu.Lock()
	for _, s := range p.editorMCP {
		warn("the editor's MCP servers", s.Close())
	}
	p.editorMu.Unlock()
	if p.kb != nil {
		warn("the knowledge base", p.kb.Close())
	}
}

// MigrateKB copies the SQLite knowledge base (kb.path) into the empty
// PostgreSQL database to names, in one transaction, then checks every
// table's row count against the file (kb.Store.CopyTo); progress gets
// each table as it is copied. It returns the file it read and where it
// wrote (the URL, password masked). What the person can fix — to is no
// PostgreSQL URL, there is no file, the database is unreachable or holds
// a knowledge base already — is a *BadInputError.
func (p *Process) MigrateKB(ctx context.Context, to string, progress func(table string, rows int64)) (from, dest string, rep kb.CopyReport, err error) {
	if !kb.IsPostgres(to) {
		return "", "", rep, badInputf("--to %q is not a PostgreSQL URL; pass postgres://USER@HOST:PORT/DB", config.MaskDSN(to))
	}
	cfg, err := p.Config()
	if err != nil {
		return "", "", rep, err
	}
	from = cfg.KB.DBPath(cfg.Home)
	if _, err := os.Stat(from); err != nil {
		return "", "", rep, badInputf("kb migrate: no knowledge base file at %s (kb.path) to copy: %v", from, err)
	}
	src, err := kb.Open(ctx, from, kb.Options{})
	if err != nil {
		return "", "", rep, err
	}
	defer src.Close()
	dst, err := kb.OpenPostgres(ctx, to, kb.Options{})
	if errors.Is(err, kb.ErrUnreachable) {
		return "", "", rep, badInputf("--to: %v; check the address and credentials", err)
	}
	if err != nil {
		return "", "", rep, err
	}
	defer dst.Close()
	rep, err = src.CopyTo(ctx, dst, progress)
	if errors.Is(err, kb.ErrNotEmpty) {
		return "", "", rep, badInputf("%v", err)
	}
	return from, dst.Path(), rep, err
}
