package agents

import (
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/yagent/yagent/internal/shellprefix"
)

// Command prefixes: what agents.shell_allow lists and what an "always"
// answer remembers for the rest of a session.
//
// A command has words only when it is simple: a program and its arguments
// with nothing the shell would act on. Outside quotes that rules out
// ; & | < > ( ) { } $ ` \ # * ? [ ] ~ ! and newlines (operators,
// redirections, expansions, substitutions, globs, comments); inside double
// quotes $ ` and \; single quotes are literal; an unterminated quote, a
// control character or a leading VAR=value (which changes what the program
// does: LD_PRELOAD, GIT_DIR…) makes it not simple. A command that is not
// simple matches no prefix and is always asked about. argv (no shell) is
// simple as it is, unless it holds a control character.
//
// A command matches a prefix when its words begin with the prefix's words,
// compared exactly ("go test" matches `go test ./...` and
// `go test -run 'A|B'`, not `go vet`, `gotest` or `go  test; rm x`).
// The prefix "always" remembers is the program and, when the second word
// looks like a subcommand (lower-case letters, digits, - and _), that word
// too: `go test ./...` → "go test", `ls -la` → "ls". A prefix approves
// whatever the program does with its other arguments (the OS sandbox still
// confines it), so programs that run a command or code given in their
// arguments (shells, env, sudo, xargs, find, awk, interpreters, git
// without a subcommand…) get no "always", and a command that an approved
// prefix matches is still asked about when its arguments run something
// (`git -c …`, `sed 's/x/y/e'`, `go test -exec …`): internal/shellprefix
// holds that one list, which config also applies to agents.shell_allow.

// metaOutside are the characters that make a command not simple outside
// quotes; metaDouble inside double quotes.
const (
	metaOutside = ";&|<>(){}$`\\#*?[]~!"
	metaDouble  = "$`\\"
)

// CommandWords returns the words of a simple command (see above), or false.
func CommandWords(command string) ([]string, bool) {
	var (
		words []string
		cur   strings.Builder
		in    bool // a word has started (possibly empty: '')
		quote rune
	)
	for _, r := range command {
		if unicode.IsControl(r) && r != '\t' {
			return nil, false
		}
		switch {
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case quote == '"':
			switch {
			case r == '"':
				quote = 0
			case strings.ContainsRune(metaDouble, r):
				return nil, false
			default:
				cur.WriteRune(r)
			}
		case r == ' ' || r == '\t':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		case r == '\'' || r == '"':
			quote, in = r, true
		case strings.ContainsRune(metaOutside, r):
			return nil, false
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if quote != 0 {
		return nil, false
	}
	if in {
		words = append(words, cur.String())
	}
	if len(words) == 0 || strings.Contains(words[0], "=") {
		return nil, false
	}
	return words, true
}

// argvWords returns the words of an argv command, or false.
func argvWords(argv []string) ([]string, bool) {
	if len(argv) == 0 {
		return nil, false
	}
	for _, a := range argv {
		if strings.ContainsFunc(a, unicode.IsControl) {
			return nil, false
		}
	}
	return argv, true
}

var subcommand = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9_-]*$`) })

// AlwaysPrefix returns the prefix an "always" answer approves for a simple
// command's words, or false when none is offered: the command runs
// something given in its arguments, or the prefix would approve commands
// that do (shellprefix).
func AlwaysPrefix(words []string) ([]string, bool) {
	if len(words) == 0 || shellprefix.Command(words) != "" {
		return nil, false
	}
	prefix := words[:1:1]
	if len(words) > 1 && subcommand().MatchString(words[1]) {
		prefix = words[:2:2]
	}
	if shellprefix.Prefix(prefix) != "" {
		return nil, false
	}
	return prefix, true
}

// hasPrefix reports whether words begin with prefix (not empty).
func hasPrefix(words, prefix []string) bool {
	return len(prefix) > 0 && len(words) >= len(prefix) && slices.Equal(words[:len(prefix)], prefix)
}

// allowedByRule reports whether words match one of the rules (each a
// space-separated prefix, agents.shell_allow) and run nothing given in
// their arguments (config refuses rules shellprefix.Prefix refuses; this
// holds for rules that come from elsewhere too).
func allowedByRule(rules []string, words []string) bool {
	return shellprefix.Command(words) == "" && matchesRule(rules, words)
}

// matchesRule reports whether words begin with one of the rules that
// shellprefix.Prefix accepts, whatever their arguments run.
func matchesRule(rules []string, words []string) bool {
	for _, r := range rules {
		if p := strings.Fields(r); hasPrefix(words, p) && shellprefix.Prefix(p) == "" {
			return true
		}
	}
	return false
}

// Approvals are the command prefixes (and the MCP servers' tools) a person
// answered "always" for, kept for one session (the director and its sub-agents share them).
type Approvals struct {
	mu       sync.Mutex
	prefixes [][]string
	tools    map[string]bool // MCP servers' tools (tools_external.go)
}

// NewApprovals returns an empty set.
func NewApprovals() *Approvals { return &Approvals{} }

func (a *Approvals) add(prefix []string) {
	if a == nil || shellprefix.Prefix(prefix) != "" {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.prefixes = append(a.prefixes, slices.Clone(prefix))
}

func (a *Approvals) match(words []string) bool {
	if a == nil || shellprefix.Command(words) != "" {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.ContainsFunc(a.prefixes, func(p []string) bool { return hasPrefix(words, p) })
}
