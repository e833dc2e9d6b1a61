package main

import (
	"os"
	"sync"
	"time"

	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/config"
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
}

// NewFactory returns a factory over the process environment.
func NewFactory(io *IOStreams) *Factory {
	return &Factory{IO: io, Getenv: os.Getenv, Now: time.Now}
}

// Config loads the configuration once.
func (f *Factory) Config() (*config.Config, error) {
	f.configOnce.Do(func() {
		f.cfg, f.cfgErr = config.Load(config.Options{Getenv: f.Getenv, Dir: f.Dir})
	})
	return f.cfg, f.cfgErr
}

// Board opens the notes root of the configuration.
func (f *Factory) Board() (*blackboard.Store, error) {
	cfg, err := f.Config()
	if err != nil {
		return nil, err
	}
	return blackboard.Open(cfg.NotesRoot), nil
}
