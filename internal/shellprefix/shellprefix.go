// Package shellprefix says which command prefixes may be approved for good
// — listed in agents.shell_allow, or remembered for a session by the
// approval prompt's "always" — and which commands must be asked about
// although an approved prefix matches them.
//
// A prefix approves whatever its program does with the arguments that
// follow. That is acceptable for a program that runs only itself and the
// project it is pointed at (go test, make, npm test: the OS sandbox still
// confines them), never for one that runs a command or code spelled in its
// arguments: a shell, a wrapper (env, sudo, timeout, nice, xargs, watch…),
// find (-exec), awk (system()), an interpreter given -c or -e, git with -c
// or one of its subcommands that runs a command (grep -O, rebase -x…), sed
// with its e command. Prefix refuses such prefixes; Command finds such a
// command among those a harmless prefix matches (`go test -exec sh`,
// `sed 's/x/y/e'`). agents (the prompt and the match) and config
// (agents.shell_allow at load) read this one table.
//
// Words are a simple command's words (agents.CommandWords): no shell
// operators, quotes already removed. The checks err towards asking: an
// option they cannot read, or an abbreviation of a dangerous long option
// (GNU getopt and git accept unique prefixes), counts as dangerous.
package shellprefix

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Prefix says why words may not be approved for good as a command prefix
// ("" = they may): every command it would match could run another
// command, or words name a subcommand or option that does.
func Prefix(words []string) string {
	if len(words) == 0 {
		return "an empty prefix would match every command"
	}
	if why := Command(words); why != "" {
		return why
	}
	name := Name(words[0])
	switch {
	case interpreter(name):
		return interpreterPrefix(name, words[1:])
	case name == "git":
		return gitPrefix(words[1:])
	}
	return ""
}

// Command says why a command must be asked about although an approved
// prefix matches it: it runs a command or code given in its arguments
// ("" = it does not).
func Command(words []string) string {
	if len(words) == 0 {
		return ""
	}
	name := Name(words[0])
	args := words[1:]
	if why, ok := runsAny()[name]; ok {
		return fmt.Sprintf(why, name)
	}
	if interpreter(name) {
		return interpreterCommand(name, args)
	}
	if sub, ok := subWrappers[name]; ok {
		if s := firstOperand(args); slices.Contains(sub, s) {
			return fmt.Sprintf("%s %s runs the command named in its arguments", name, s)
		}
	}
	if check, ok := checks[name]; ok {
		return check(name, args)
	}
	return ""
}

// Name is the program a command's first word runs: its base name.
func Name(word string) string {
	return path.Base(word)
}

// options are the words before "--": after it come operands only.
func options(args []string) []string {
	if i := slices.Index(args, "--"); i >= 0 {
		return args[:i]
	}
	return args
}

// firstOperand is the first word that is not an option ("" = none).
func firstOperand(args []string) string {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			return a
		}
	}
	return ""
}

// long reports whether w is one of the long options names (--name,
// --name=value) or an abbreviation of one.
func long(w string, names ...string) bool {
	rest, ok := strings.CutPrefix(w, "--")
	if !ok {
		return false
	}
	rest, _, _ = strings.Cut(rest, "=")
	if rest == "" {
		return false
	}
	return slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, rest) })
}

// short reports whether w is a cluster of short options (-abc, -xVALUE)
// holding one of letters; a letter inside an attached value counts too.
func short(w, letters string) bool {
	return len(w) > 1 && w[0] == '-' && w[1] != '-' && strings.ContainsAny(w[1:], letters)
}

// goFlag reports whether w is one of the Go-style flags names (-name,
// --name, -name=value; never abbreviated).
func goFlag(w string, names ...string) bool {
	rest, ok := strings.CutPrefix(w, "-")
	if !ok {
		return false
	}
	rest = strings.TrimPrefix(rest, "-")
	rest, _, _ = strings.Cut(rest, "=")
	return slices.Contains(names, rest)
}

// interpreters run code given with -c/-e (or read from a file named first).
// interpreterRe is compiled on first use (see runsAny).
var interpreterRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(python|python[23]|pypy|pypy3|perl|ruby|irb|node|nodejs|deno|bun|php|php-cgi|lua|luajit|tclsh|wish|Rscript|R|julia|osascript|guile|racket|sbcl|clisp|runghc|runhaskell|ghci|elixir|iex|erl|escript|scala|groovy|jshell|java|raku|rakudo)([0-9][0-9.]*)?$`)
})

func interpreter(name string) bool { return interpreterRe().MatchString(name) }

// codeWords are first arguments of an interpreter that run code given in
// the command line, though they do not look like options.
var codeWords = map[string][]string{
	"deno": {"eval", "repl", "x"},
	"bun":  {"x", "exec", "repl"},
}

// interpreterCommand: an option before the script (python -c, perl -e,
// node --eval, java -XX:OnError=…) may run code given in the command line;
// once the script or module is named, the rest are its arguments.
func interpreterCommand(name string, args []string) string {
	base := interpreterRe().FindStringSubmatch(name)[1]
	if len(args) == 0 {
		return ""
	}
	first := args[0]
	switch {
	case slices.Contains(codeWords[base], first):
		return fmt.Sprintf("%s %s runs code given in its arguments", name, first)
	case strings.HasPrefix(base, "python") && first == "-m":
		return ""
	case strings.HasPrefix(first, "-"):
		return fmt.Sprintf("%s runs code given with options such as -c or -e (%s)", name, first)
	}
	return ""
}

// interpreterPrefix: a prefix must name the script or module, or it
// approves `python3 -c …`.
func interpreterPrefix(name string, args []string) string {
	base := interpreterRe().FindStringSubmatch(name)[1]
	if len(args) == 0 || strings.HasPrefix(base, "python") && args[0] == "-m" && len(args) < 2 {
		ex := name + " script.py"
		if strings.HasPrefix(base, "python") {
			ex = name + " -m pytest"
		}
		return fmt.Sprintf("%s runs code given with -c or -e: name the script or module too, e.g. %q", name, ex)
	}
	return ""
}
