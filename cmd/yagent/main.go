// Command yagent is a multi-agent orchestrator for the command line.
//
// This package is thin: it parses flags, builds dependencies through a
// Factory, calls the packages that do the work and prints. Exit codes: 0 ok,
// 1 failure, 2 usage or bad input, 130 cancelled.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	// A confined shell command re-executes this binary as the sandbox's
	// helper, which takes the process over in its init, before main and
	// before the packages it does not need are initialised.
	"github.com/yagent/yagent/internal/iostreams"
	_ "github.com/yagent/yagent/sandbox/helper"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

// run executes one command line and returns the exit code. SIGINT and
// SIGTERM cancel the root context.
func run(args []string) int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := NewFactory(iostreams.System())
	defer f.Close()
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	go func() {
		for sig := range sigs {
			// Interactive mode handles Ctrl-C itself (cancel the step,
			// a second one exits); everything else is cancelled.
			if sig == os.Interrupt && f.handleInterrupt() {
				continue
			}
			cancel()
		}
	}()
	return execute(ctx, f, args)
}
