package setup

import (
	"context"
	"os"

	"golang.org/x/term"

	"github.com/yagent/yagent/config"
)

// TerminalSecret reads a line of the terminal in without echo. The
// terminal is restored when ctx ends first (Ctrl-C), not left silent.
func TerminalSecret(in *os.File) func(context.Context) (string, error) {
	return func(ctx context.Context) (string, error) {
		fd := int(in.Fd())
		state, err := term.GetState(fd)
		if err != nil {
			return "", err
		}
		type read struct {
			b   []byte
			err error
		}
		ch := make(chan read, 1)
		go func() {
			b, err := term.ReadPassword(fd)
			ch <- read{b, err}
		}()
		select {
		case r := <-ch:
			return string(r.b), r.err
		case <-ctx.Done():
			term.Restore(fd, state)
			return "", ctx.Err()
		}
	}
}

// Needed reports whether a run has no model to talk to: no --replay, and
// neither the default model nor the one --model names has a base URL.
func Needed(cfg *config.Config, model string, replay bool) bool {
	if replay || cfg.Models["default"].BaseURL != "" {
		return false
	}
	return model == "" || cfg.Models[model].BaseURL == ""
}
