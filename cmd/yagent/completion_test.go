package main

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/yagent/yagent/complete"
	"github.com/yagent/yagent/internal/iostreams"
)

// TestCompletions drives cobra's hidden __complete command (what the
// shell scripts of `yagent completion` call) against a home holding a
// session, a board and the built-in agents: session ids, board ids, agent
// names and enum values complete; completing creates nothing.
func TestCompletions(t *testing.T) {
	fx := newExitFixture(t)
	complete := func(home string, args ...string) (values []string, directive string) {
		t.Helper()
		code, stdout, stderr := fx.exec(t, exitCase{args: append([]string{"__complete"}, args...)}, home)
		if code != 0 {
			t.Fatalf("yagent __complete %s exited %d:\n%s", strings.Join(args, " "), code, stderr)
		}
		for _, l := range strings.Split(strings.TrimSpace(stdout), "\n") {
			if strings.HasPrefix(l, ":") {
				directive = l
				continue
			}
			v, _, _ := strings.Cut(l, "\t")
			values = append(values, v)
		}
		return values, directive
	}
	noFiles := ":" + strconv.Itoa(int(cobra.ShellCompDirectiveNoFileComp))
	for _, tc := range []struct {
		name      string
		args      []string
		want      []string // all of these are offered
		exactly   bool     // and nothing else
		directive string
	}{
		{"resume ID", []string{"resume", ""}, []string{fx.session}, true, noFiles},
		{"resume ID, a prefix", []string{"resume", fx.session[:4]}, []string{fx.session}, true, noFiles},
		{"resume ID, no match", []string{"resume", "zz"}, nil, true, noFiles},
		{"resume PROMPT", []string{"resume", fx.session, ""}, nil, true, noFiles},
		{"sessions show", []string{"sessions", "show", ""}, []string{fx.session}, true, noFiles},
		{"--session", []string{"notes", "ls", "--session", ""}, []string{fx.session}, true, noFiles},
		{"--board", []string{"board", "ls", "--board", ""}, []string{"fx"}, true, noFiles},
		{"--board, a prefix", []string{"board", "index", "--board", "f"}, []string{"fx"}, true, noFiles},
		{"--agent", []string{"board", "put", "--agent", ""}, []string{"explorer", "reviewer"}, false, noFiles},
		{"--agent, a prefix", []string{"board", "ls", "--agent", "expl"}, []string{"explorer"}, true, noFiles},
		{"--approval", []string{"run", "--approval", ""}, []string{"untrusted", "on-request", "never"}, true, noFiles},
		{"--sandbox", []string{"chat", "--sandbox", "r"}, []string{"read-only"}, true, noFiles},
		{"--status", []string{"board", "put", "--status", ""}, []string{"ok", "partial", "error", "degraded"}, true, noFiles},
		{"--model", []string{"run", "--model", ""}, []string{"default"}, false, noFiles},
		{"--replay", []string{"run", "--replay", ""}, []string{"demo"}, true, ":" + strconv.Itoa(int(cobra.ShellCompDirectiveDefault))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, directive := complete(fx.home, tc.args...)
			for _, w := range tc.want {
				if !slices.Contains(got, w) {
					t.Errorf("__complete %q = %q; want %q among them", tc.args, got, w)
				}
			}
			if tc.exactly && len(got) != len(tc.want) {
				t.Errorf("__complete %q = %q; want exactly %q", tc.args, got, tc.want)
			}
			if directive != tc.directive {
				t.Errorf("__complete %q: directive %s; want %s", tc.args, directive, tc.directive)
			}
		})
	}
	t.Run("no state database", func(t *testing.T) {
		home := t.TempDir()
		if got, _ := complete(home, "resume", ""); len(got) != 0 {
			t.Errorf("__complete resume in an empty home = %q; want nothing", got)
		}
		if got, _ := complete(home, "run", "--session", ""); len(got) != 0 {
			t.Errorf("__complete run --session in an empty home = %q; want nothing", got)
		}
		if _, err := os.Stat(filepath.Join(home, "state.db")); err == nil {
			t.Errorf("completing created %s", filepath.Join(home, "state.db"))
		}
	})
}

// TestCompletionTables checks the completion tables against the tree: a
// flag or command they name exists, every fixed value is one the flag
// accepts, and every flag of those names completes.
func TestCompletionTables(t *testing.T) {
	root := NewCmdRoot(NewFactory(iostreams.System()))
	seenFlags, seenPaths := map[string]bool{}, map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		path := strings.TrimSpace(strings.TrimPrefix(c.CommandPath(), "yagent"))
		seenPaths[path] = true
		if _, ok := complete.Args[path]; ok && c.ValidArgsFunction == nil {
			t.Errorf("yagent %s: no argument completion registered", path)
		}
		c.Flags().VisitAll(func(fl *pflag.Flag) {
			fn, ok := complete.Flags[fl.Name]
			if !ok || fl.Value.Type() == "bool" {
				return
			}
			seenFlags[fl.Name] = true
			if _, ok := c.GetFlagCompletionFunc(fl.Name); !ok {
				t.Errorf("yagent %s --%s: no completion registered", path, fl.Name)
			}
			if fl.Name == "approval" || fl.Name == "sandbox" || fl.Name == "status" {
				for _, cand := range fn(t.Context(), complete.Sources{}, "") {
					v, _, _ := strings.Cut(cand, "\t")
					if err := fl.Value.Set(v); err != nil {
						t.Errorf("yagent %s --%s completes %q, which the flag refuses: %v", path, fl.Name, v, err)
					}
				}
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	for _, name := range slices.Sorted(maps.Keys(complete.Flags)) {
		if !seenFlags[name] {
			t.Errorf("complete.Flags names --%s, which no command has", name)
		}
	}
	for _, path := range slices.Sorted(maps.Keys(complete.Args)) {
		if !seenPaths[path] {
			t.Errorf("complete.Args names %q, which is not a command", path)
		}
	}
}
