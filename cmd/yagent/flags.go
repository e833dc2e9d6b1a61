package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/demo"
	"github.com/yagent/yagent/llm/llmtest"
	"github.com/yagent/yagent/sandbox"
)

// Flag values that check themselves: cobra reports a bad one as a flag
// error (exit code 2, naming the flag and the value) before the command
// runs, so no command checks them again.

// countFlag is a count: 0 (the default) or more.
type countFlag int

func (c *countFlag) String() string { return strconv.Itoa(int(*c)) }
func (c *countFlag) Type() string   { return "int" }
func (c *countFlag) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("want a whole number")
	}
	if n < 0 {
		return fmt.Errorf("want 0 or more")
	}
	*c = countFlag(n)
	return nil
}

// approvalFlag is a shell approval policy.
type approvalFlag string

func (a *approvalFlag) String() string { return string(*a) }
func (a *approvalFlag) Type() string   { return "policy" }
func (a *approvalFlag) Set(s string) error {
	p, err := agents.ParseApproval(s)
	*a = approvalFlag(p)
	return err
}

// sandboxFlag is an OS sandbox mode for shell commands.
type sandboxFlag string

func (m *sandboxFlag) String() string { return string(*m) }
func (m *sandboxFlag) Type() string   { return "mode" }
func (m *sandboxFlag) Set(s string) error {
	p, err := sandbox.ParseMode(s)
	*m = sandboxFlag(p)
	return err
}

// dirFlag is an existing directory.
type dirFlag string

func (d *dirFlag) String() string { return string(*d) }
func (d *dirFlag) Type() string   { return "dir" }
func (d *dirFlag) Set(s string) error {
	fi, err := os.Stat(s)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", s)
	}
	*d = dirFlag(s)
	return nil
}

// scenarioFlag is a scripted scenario, loaded and checked when the flag
// is parsed; "demo" is the one bundled in the binary (demo.go), a path to
// a file named demo is ./demo.
type scenarioFlag struct {
	path string
	sc   *llmtest.Scenario
}

func (r *scenarioFlag) String() string { return r.path }
func (r *scenarioFlag) Type() string   { return "file" }
func (r *scenarioFlag) Set(s string) error {
	if s == demo.Replay { // the bundled scenario, wherever yagent runs
		sc, err := demo.Scenario()
		if err != nil {
			return err
		}
		r.path, r.sc = demo.Label, sc
		return nil
	}
	sc, err := llmtest.Load(s)
	if err != nil {
		return err
	}
	r.path, r.sc = s, sc
	return nil
}

// statusFlag is a handoff status.
type statusFlag blackboard.Status

func (s *statusFlag) String() string { return string(*s) }
func (s *statusFlag) Type() string   { return "status" }
func (s *statusFlag) Set(v string) error {
	if !blackboard.Status(v).Valid() {
		return fmt.Errorf("want ok, partial, error or degraded")
	}
	*s = statusFlag(v)
	return nil
}

// required marks flags every use of cmd must give.
func required(cmd *cobra.Command, names ...string) {
	for _, n := range names {
		if err := cmd.MarkFlagRequired(n); err != nil {
			panic(err) // a flag that does not exist: a bug in this package
		}
	}
}

var (
	_ pflag.Value = (*countFlag)(nil)
	_ pflag.Value = (*approvalFlag)(nil)
	_ pflag.Value = (*dirFlag)(nil)
	_ pflag.Value = (*sandboxFlag)(nil)
	_ pflag.Value = (*scenarioFlag)(nil)
	_ pflag.Value = (*statusFlag)(nil)
)
