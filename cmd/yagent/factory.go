package main

import (
	"context"
	"fmt"
	"sync"

	"github.com/yagent/yagent/app"
	"github.com/yagent/yagent/internal/iostreams"
	"github.com/yagent/yagent/internal/statedb"
	"github.com/yagent/yagent/memory"
)

// Factory builds the dependencies of commands lazily, so a command pays only
// for what it uses (`yagent --version` loads nothing): the process's
// configuration, knowledge base, MCP servers and traces (app.Process),
// and the session store.
type Factory struct {
	*app.Process
	IO *iostreams.IOStreams

	dbOnce sync.Once
	db     *statedb.DB
	dbErr  error

	intMu     sync.Mutex
	interrupt func() bool // what SIGINT does now; nil or false: cancel the command
}

// NewFactory returns a factory over the process environment.
func NewFactory(io *iostreams.IOStreams) *Factory {
	return &Factory{Process: app.NewProcess(io.ErrOut), IO: io}
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
	f.StopTelemetry()
	if f.db != nil {
		warn("the state database", f.db.Close())
	}
	f.Process.Close(warn)
}
