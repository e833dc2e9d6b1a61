package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/yagent/yagent/internal/suggest"
)

// Suggestions for a mistyped command or flag ("did you mean"): cobra's
// for commands, internal/suggest's for flags.

// unknownCommand is the error for an unknown subcommand of c, with the
// commands it may have meant.
func unknownCommand(c *cobra.Command, name string) error {
	msg := fmt.Sprintf("unknown command %q for %q", name, c.CommandPath())
	if c.SuggestionsMinimumDistance <= 0 {
		c.SuggestionsMinimumDistance = suggest.Distance
	}
	if s := c.SuggestionsFor(name); len(s) > 0 {
		msg += "; did you mean " + suggest.OrList(s, "") + "?"
	}
	return &usageError{err: errors.New(msg), cmd: c}
}

// flagError is the flag error of c: an unknown flag gets the flags it may
// have meant (-json is --json typed with one dash).
func flagError(c *cobra.Command, err error) error {
	var ne *pflag.NotExistError
	if !errors.As(err, &ne) {
		return &usageError{err: err, cmd: c}
	}
	typed := ne.GetSpecifiedName()
	if short := ne.GetSpecifiedShortnames(); short != "" {
		typed = short // -json: the whole word after the dash
	}
	var names []string
	c.Flags().VisitAll(func(fl *pflag.Flag) {
		if !fl.Hidden {
			names = append(names, fl.Name)
		}
	})
	if s := suggest.For(typed, names); len(s) > 0 {
		err = fmt.Errorf("%w; did you mean %s?", err, suggest.OrList(s, "--"))
	}
	return &usageError{err: err, cmd: c}
}
