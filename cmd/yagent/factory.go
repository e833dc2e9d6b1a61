package main

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/internal/statedb"
	"github.com/yagent/yagent/kb"
	"github.com/yagent/yagent/mcp"
	"github.com/yagent/yagent/memory"
)

// Factory builds the dependencies of commands lazily, so a command pays only
// for what it uses (`yagent --version` loads nothing).
type Factory struct {
	IO     *IOStreams
	Getenv func(string) string
	Now    func() time.Time
	// Dir is the working directory ("" = the process's).
	Dir string

	configOnce sync.Once
	cfg        *config.Config
	cfgErr     error

	dbOnce sync.Once
	db     *statedb.DB
	dbErr  error

	kbOnce sync.Once
	kb     *kb.Store
	kbErr  error

	mcpOnce sync.Once
	mcp     *mcp.Servers

	tel telemetryState

	intMu     sync.Mutex
	interrupt func() bool // what SIGINT does now; nil or false: cancel the command
}

// OnInterrupt sets what SIGINT does (nil restores the default: cancel the
// command; a handler returning false also cancels it) and returns the
// previous handler.
func (f *Factory) OnInterrupt(h func() bool) func() bool {
	f.intMu.Lock()
	defer f.intMu.Unlock()
	prev := f.interrupt
	f.interrupt = h
	return prev
}

// handleInterrupt runs the current SIGINT handler; it reports false when
// there is none (the caller cancels the command).
func (f *Factory) handleInterrupt() bool {
	f.intMu.Lock()
	h := f.interrupt
	f.intMu.Unlock()
	return h != nil && h()
}

// Sessions opens the state database once and returns the session store.
func (f *Factory) Sessions(ctx context.Context) (*memory.Store, error) {
	cfg, err := f.Config()
	if err != nil {
		return nil, err
	}
	f.dbOnce.Do(func() {
		f.db, f.dbErr = memory.OpenDB(ctx, cfg.Home)
	})
	if f.dbErr != nil {
		return nil, f.dbErr
	}
	st := memory.NewStore(f.db, cfg.Home)
	st.Now = f.Now
	return st, nil
}

// Close releases what the factory opened. What went wrong is reported on
// stderr: the command's work is done, but a database that did not close
// cleanly is worth knowing about.
func (f *Factory) Close() {
	warn := func(what string, err error) {
		if err != nil {
			fmt.Fprintf(f.IO.ErrOut, "yagent: warning: closing %s: %v\n", what, err)
		}
	}
	f.stopTelemetry()
	if f.db != nil {
		warn("the state database", f.db.Close())
	}
	if f.mcp != nil {
		warn("the MCP servers", f.mcp.Close())
	}
	if f.kb != nil {
		warn("the knowledge base", f.kb.Close())
	}
}

// NewFactory returns a factory over the process environment.
func NewFactory(io *IOStreams) *Factory {
	return &Factory{IO: io, Getenv: os.Getenv, Now: time.Now}
}

// Config loads the configuration once.
func (f *Factory) Config() (*config.Config, error) {
	f.configOnce.Do(f.reloadConfig)
	return f.cfg, f.cfgErr
}

// reloadConfig loads the configuration again (after the person trusted
// the workspace, before anything was built from it).
func (f *Factory) reloadConfig() {
	f.cfg, f.cfgErr = config.Load(config.Options{Getenv: f.Getenv, Dir: f.Dir})
}

// Board opens the notes root (blackboard.NotesRootDir), switched off by
// YAGENT_BLACKBOARD=0 — both read from f.Getenv here, once; a board it
// starts belongs to kb.project (mcp serve shows it only to tokens reaching
// it).
func (f *Factory) Board() (*blackboard.Store, error) {
	cfg, err := f.Config()
	if err != nil {
		return nil, err
	}
	return blackboard.OpenEnv(f.Getenv).WithProject(cfg.KB.Project).WithMaxNoteBytes(cfg.Blackboard.MaxNoteBytes), nil
}

// NotesRoot is where boards live: $YAGENT_NOTES_ROOT, else the notes of
// yagent's home.
func (f *Factory) NotesRoot() string { return blackboard.NotesRootDir(f.Getenv) }
