package main

import "github.com/spf13/cobra"

// Flag values that check themselves are internal/flagvalue's.

// required marks flags every use of cmd must give.
func required(cmd *cobra.Command, names ...string) {
	for _, n := range names {
		if err := cmd.MarkFlagRequired(n); err != nil {
			panic(err) // a flag that does not exist: a bug in this package
		}
	}
}
