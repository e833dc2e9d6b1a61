// Package flagvalue holds command-line flag values that check
// themselves: cobra reports a bad one as a flag error (exit code 2, naming
// the flag and the value) before the command runs, so no command checks
// them again. Each is a pflag.Value.
package flagvalue

import (
	"fmt"
	"os"
	"strconv"

	"github.com/spf13/pflag"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/budget"
	"github.com/yagent/yagent/demo"
	"github.com/yagent/yagent/llm/llmtest"
	"github.com/yagent/yagent/sandbox"
)

// Count is a count: 0 (the default) or more.
type Count int

func (c *Count) String() string { return strconv.Itoa(int(*c)) }
func (c *Count) Type() string   { return "int" }
func (c *Count) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("want a whole number")
	}
	if n < 0 {
		return fmt.Errorf("want 0 or more")
	}
	*c = Count(n)
	return nil
}

// Approval is a shell approval policy.
type Approval string

func (a *Approval) String() string { return string(*a) }
func (a *Approval) Type() string   { return "policy" }
func (a *Approval) Set(s string) error {
	p, err := agents.ParseApproval(s)
	*a = Approval(p)
	return err
}

// Sandbox is an OS sandbox mode for shell commands.
type Sandbox string

func (m *Sandbox) String() string { return string(*m) }
func (m *Sandbox) Type() string   { return "mode" }
func (m *Sandbox) Set(s string) error {
	p, err := sandbox.ParseMode(s)
	*m = Sandbox(p)
	return err
}

// Dir is an existing directory.
type Dir string

func (d *Dir) String() string { return string(*d) }
func (d *Dir) Type() string   { return "dir" }
func (d *Dir) Set(s string) error {
	fi, err := os.Stat(s)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", s)
	}
	*d = Dir(s)
	return nil
}

// Scenario is a scripted scenario, loaded and checked when the flag
// is parsed; "demo" is the one bundled in the binary (cmd/yagent's demo.go), a path to
// a file named demo is ./demo.
type Scenario struct {
	Path     string // as given; demo.Label for the bundled one
	Scenario *llmtest.Scenario
}

func (r *Scenario) String() string { return r.Path }
func (r *Scenario) Type() string   { return "file" }
func (r *Scenario) Set(s string) error {
	if s == demo.Replay { // the bundled scenario, wherever yagent runs
		sc, err := demo.Scenario()
		if err != nil {
			return err
		}
		r.Path, r.Scenario = demo.Label, sc
		return nil
	}
	sc, err := llmtest.Load(s)
	if err != nil {
		return err
	}
	r.Path, r.Scenario = s, sc
	return nil
}

// Status is a handoff status.
type Status blackboard.Status

func (s *Status) String() string { return string(*s) }
func (s *Status) Type() string   { return "status" }
func (s *Status) Set(v string) error {
	if !blackboard.Status(v).Valid() {
		return fmt.Errorf("want ok, partial, error or degraded")
	}
	*s = Status(v)
	return nil
}

var (
	_ pflag.Value = (*Count)(nil)
	_ pflag.Value = (*Approval)(nil)
	_ pflag.Value = (*Dir)(nil)
	_ pflag.Value = (*Sandbox)(nil)
	_ pflag.Value = (*Scenario)(nil)
	_ pflag.Value = (*Status)(nil)
)

// Cost is --max-cost: US dollars of 0 or more ("0.50" or "$0.50").
type Cost float64

func (c *Cost) String() string { return strconv.FormatFloat(float64(*c), 'f', -1, 64) }
func (c *Cost) Type() string   { return "usd" }
func (c *Cost) Set(s string) error {
	v, err := budget.ParseCost(s)
	*c = Cost(v)
	return err
}

// Tokens is --max-tokens: a count of tokens of 0 or more.
type Tokens int64

func (t *Tokens) String() string { return strconv.FormatInt(int64(*t), 10) }
func (t *Tokens) Type() string   { return "tokens" }
func (t *Tokens) Set(s string) error {
	v, err := budget.ParseTokens(s)
	*t = Tokens(v)
	return err
}

// Budget is --max-cost and --max-tokens (run, chat, resume, batch).
type Budget struct {
	MaxCost   Cost
	MaxTokens Tokens
}

// Register registers both flags on fl.
func (b *Budget) Register(fl *pflag.FlagSet) {
	fl.Var(&b.MaxCost, "max-cost", "stop starting model calls once the run spent this many US dollars at models.<name>.price (default budget.max_cost)")
	fl.Var(&b.MaxTokens, "max-tokens", "stop starting model calls once the run spent this many tokens (default budget.max_tokens)")
}

// Limits are the flags' caps (zero: not given).
func (b *Budget) Limits() budget.Limits {
	return budget.Limits{MaxCost: float64(b.MaxCost), MaxTokens: int64(b.MaxTokens)}
}
