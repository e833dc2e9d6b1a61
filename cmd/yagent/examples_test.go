package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/yagent/yagent/internal/iostreams"
)

// TestHelpHasExamples walks the command tree: every command's --help has
// an Examples section, its examples run this command (or one under it),
// and every yagent command line in them names commands and flags that
// exist — so an example cannot rot when a flag is renamed.
func TestHelpHasExamples(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		path := c.CommandPath()
		if c.Example == "" {
			t.Errorf("%s has no Example: add one (two-space indented command lines, # comments)", path)
		} else {
			var help bytes.Buffer
			c.SetOut(&help)
			if err := c.Help(); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(help.String(), "\nExamples:\n") {
				t.Errorf("%s --help has no Examples section:\n%s", path, help.String())
			}
			runsIt := false
			for _, args := range exampleCommands(c.Example) {
				if strings.HasPrefix(strings.Join(args, " ")+" ", path+" ") {
					runsIt = true
				}
				checkExample(t, path, args)
			}
			if !runsIt {
				t.Errorf("%s: no example runs %s", path, path)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(NewCmdRoot(NewFactory(iostreams.System())))
}

// checkExample parses one example command line against a fresh tree: the
// command it names must exist and take the flags it gives.
func checkExample(t *testing.T, owner string, args []string) {
	t.Helper()
	root := NewCmdRoot(NewFactory(iostreams.System()))
	c, rest, err := root.Find(args[1:])
	if err != nil {
		t.Errorf("%s example %q: %v", owner, strings.Join(args, " "), err)
		return
	}
	if len(rest) > 0 && c.HasSubCommands() && c.RunE == nil && !strings.HasPrefix(rest[0], "-") {
		t.Errorf("%s example %q: %s has no command %q", owner, strings.Join(args, " "), c.CommandPath(), rest[0])
		return
	}
	// Values are not checked (a --replay file, a --cd directory need not
	// exist here); names are.
	if err := c.ParseFlags(rest); err != nil {
		var ne *pflag.NotExistError
		if errors.As(err, &ne) {
			t.Errorf("%s example %q: %v", owner, strings.Join(args, " "), err)
		}
	}
}

// exampleCommands returns the yagent command lines of an Example, split
// into words (quotes respected), each cut at a pipe or redirection.
func exampleCommands(example string) [][]string {
	var out [][]string
	for _, line := range strings.Split(example, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "#") {
			continue
		}
		words := shellWords(line)
		for i, w := range words {
			if w != "yagent" {
				continue
			}
			cmd := []string{"yagent"}
			for _, w := range words[i+1:] {
				if w == "|" || w == ">" || w == "<" || w == "&&" || w == ";" || strings.HasPrefix(w, ")") {
					break
				}
				cmd = append(cmd, strings.TrimSuffix(w, ")\""))
			}
			out = append(out, cmd)
			break
		}
	}
	return out
}

// shellWords splits a line into words, keeping quoted text together.
func shellWords(line string) []string {
	var words []string
	var cur strings.Builder
	var quote rune
	inWord := false
	for _, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '"' || r == '\'':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}
