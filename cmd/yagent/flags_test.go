package main

import "flag"

// update is -update: rewrite golden files and testscript archives in
// place. teatest's golden package (the TUI tests) registers the same flag
// first; both read this one.
var update = func() flag.Value {
	if f := flag.Lookup("update"); f != nil {
		return f.Value
	}
	flag.Bool("update", false, "rewrite golden files and testscript archives in place")
	return flag.Lookup("update").Value
}()

func updating() bool { return update.String() == "true" }
