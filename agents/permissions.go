package agents

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/yagent/yagent/hooks"
	"github.com/yagent/yagent/internal/shellprefix"
	"github.com/yagent/yagent/internal/shellquote"
)

// Rules are the person's Claude Code permission rules (hooks.LoadPermissions)
// as yagent applies them to each tool call, deny before ask before allow:
//   - deny refuses the call before it runs, with the rule and its file in
//     the result the model reads, whatever the approval policy (never too);
//   - ask makes the call's own gate ask the person whatever the approval
//     policy, agents.shell_allow or an "always" answer say (the shell, the
//     file writers, external MCP tools); a reading tool, which has no gate,
//     is asked about here; nobody to ask refuses it, as any question;
//   - allow is the person's yes given in advance, as a PreToolUse hook's
//     "allow" (hooks.go): a protected path is still asked of the person and
//     the sandbox is the same. A Bash allow rule lets a command through only
//     when it is simple (CommandWords: no operator, substitution or
//     expansion) and its words match the rule's word by word, and never a
//     command that runs another given in its arguments (shellprefix), as
//     agents.shell_allow; rules that could not be held to that (Bash alone,
//     a * before the end) are skipped, with why.
//
// A deny or ask rule on commands errs towards matching: a command that is
// not simple is cut at its operators and substitutions, and each part, a
// wrapper (sudo, env, timeout…) or a `sh -c` script unwrapped, is matched
// too. It is no sandbox: a command can still spell a program the rule does
// not see (a variable, an alias, a script).
type Rules struct {
	rules []compiledRule
	home  string
}

type compiledRule struct {
	hooks.Rule
	words   []string // a Bash Exact or Prefix rule's words (nil: not a simple command)
	partial bool     // an allow rule `fixed… part*`: the last of words is a prefix of the command's word
}

// Why Bash allow rules are skipped.
const (
	whyAllowEvery    = "allows every command, compound ones included: yagent lets commands run unasked by prefix (Bash(go test:*), agents.shell_allow) or with --approval never"
	whyAllowWildcard = "a * before the end of an allow rule matches any words there (git -c among them): allow by prefix, e.g. Bash(git log:*)"
	whyAllowCompound = "allow rules name a simple command (no operators, quotes left open, $ or globs): yagent never lets a compound command through unasked"
)

// NewRules compiles p for tool calls; home is the person's home directory
// (~/ path rules; "" skips them). What cannot be applied safely is
// returned as skipped, with why.
func NewRules(p *hooks.Permissions, home string) (*Rules, []hooks.Skipped) {
	rs := &Rules{home: home}
	var skipped []hooks.Skipped
	skip := func(r hooks.Rule, why string) {
		skipped = append(skipped, hooks.Skipped{Source: r.Source, Event: "permissions", What: string(r.Decision) + " " + r.Text, Why: why})
	}
	if p == nil {
		return rs, nil
	}
	for _, r := range p.Rules {
		c := compiledRule{Rule: r}
		if r.Path != nil && r.Path.Base == hooks.FromHome && home == "" {
			skip(r, "no home directory is known for ~/")
			continue
		}
		if cmd := r.Command; cmd != nil && cmd.Kind != hooks.Wildcard {
			c.words, _ = CommandWords(cmd.Text)
		}
		if r.Decision == hooks.Allow && r.Tool == "Bash" {
			if why := c.allowable(); why != "" {
				skip(r, why)
				continue
			}
		}
		rs.rules = append(rs.rules, c)
	}
	return rs, skipped
}

// allowable says why a Bash allow rule cannot be held to simple commands
// matched word by word ("" = it can), and prepares a partial one.
func (c *compiledRule) allowable() string {
	cmd := c.Command
	switch {
	case cmd == nil:
		return whyAllowEvery
	case cmd.Kind == hooks.Wildcard:
		body, ok := strings.CutSuffix(strings.TrimSpace(cmd.Text), "*")
		words, simple := CommandWords(body)
		if !ok || strings.Contains(body, "*") || strings.HasSuffix(body, " ") || !simple || len(words) < 2 {
			return whyAllowWildcard
		}
		c.words, c.partial = words, true
		return shellprefix.Prefix(words)
	case c.words == nil:
		return whyAllowCompound
	case cmd.Kind == hooks.Exact:
		return shellprefix.Command(c.words)
	}
	return shellprefix.Prefix(c.words)
}

// Empty reports whether no rule would ever apply.
func (rs *Rules) Empty() bool { return rs == nil || len(rs.rules) == 0 }

// Wrap returns t behind the rules, run first on every call of it; t itself
// when no rule is about it. policy asks the person about a reading tool an
// ask rule names; w is the workspace relative path rules are read from
// (the run's own, WithWorkspace, when the call has one).
func (rs *Rules) Wrap(t *Tool, policy ShellPolicy, w *Workspace) *Tool {
	if rs.Empty() || !slices.ContainsFunc(rs.rules, func(r compiledRule) bool { return r.AppliesTo(t.Name) }) {
		return t
	}
	c := *t
	run := t.run
	gated := t.Name == "shell" || t.Name == "write_file" || t.Name == "edit_file" || strings.HasPrefix(t.Family, "mcp_")
	c.run = func(ctx context.Context, call *Call) (Result, error) {
		dir := w.in(ctx).Dir()
		d, r := rs.Decide(call.Name, call.Args, dir)
		hook := hooks.Decision(hookPermission(ctx))
		if !d.Stronger(hook) {
			return run(ctx, call)
		}
		switch {
		case d == hooks.Deny:
			return ErrorResult("refused by the %s: do not retry it; take another way, or ask the person to change the rule", r), nil
		case d == hooks.Ask && !gated:
			if policy.Ask == nil {
				return ErrorResult("the %s asks the person first, and %s", r, refuseNoAsker), nil
			}
			ans, instead, err := askPerson(ctx, policy.Ask, Question{Action: fmt.Sprintf("call %s with these arguments:", call.Name), Args: PrettyArgs(call.Args), Why: "the " + r.String()})
			if err != nil {
				return Result{}, err
			}
			if ans == Deny {
				return ErrorResult("%s", declined(instead)), nil
			}
			return run(ctx, call)
		}
		return run(context.WithValue(ctx, hookPermissionKey{}, string(d)), call)
	}
	if t.Name == "grep" || t.Name == "glob" {
		judged := c.run
		c.run = func(ctx context.Context, call *Call) (Result, error) {
			res, err := judged(ctx, call)
			if err != nil || res.IsError {
				return res, err
			}
			return rs.hideDenied(t.Name, res, w.in(ctx).Dir()), nil
		}
	}
	return &c
}

// grepLine is a line of grep's result: path:line: text.
var grepLine = regexp.MustCompile(`^(.+?):[0-9]+: `)

// hideDenied takes out of a grep or glob result the lines of files a deny
// rule on reading matches (a search rooted above them finds them),
// saying how many were left out.
func (rs *Rules) hideDenied(tool string, res Result, dir string) Result {
	var kept []string
	hidden := 0
	for _, line := range strings.SplitAfter(res.Content, "\n") {
		p := strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "/")
		if tool == "grep" {
			m := grepLine.FindStringSubmatch(line)
			if m == nil {
				kept = append(kept, line)
				continue
			}
			p = m[1]
		}
		if p == "" || strings.HasPrefix(p, "… ") || !rs.denies(tool, filepath.Join(dir, filepath.FromSlash(p)), dir) {
			kept = append(kept, line)
			continue
		}
		hidden++
	}
	if hidden > 0 {
		res.Content = strings.Join(kept, "") + fmt.Sprintf("[%d lines of files a deny rule keeps from reading were left out]\n", hidden)
	}
	return res
}

// denies reports whether a deny rule on paths matches the file p (as
// given or resolved).
func (rs *Rules) denies(tool, p, dir string) bool {
	paths := []string{p}
	if real := resolved(p); real != p {
		paths = append(paths, real)
	}
	for i := range rs.rules {
		r := &rs.rules[i]
		if r.Decision == hooks.Deny && r.Path != nil && r.AppliesTo(tool) && rs.matches(r, nil, paths, nil, dir) {
			return true
		}
	}
	return false
}

// Decide is what the rules say about a call of tool with args in the
// workspace dir: the strongest decision of the rules that match ("" =
// none) and the first rule that made it.
func (rs *Rules) Decide(tool string, args json.RawMessage, dir string) (hooks.Decision, *hooks.Rule) {
	if rs == nil {
		return "", nil
	}
	var in struct {
		Command string   `json:"command"`
		Argv    []string `json:"argv"`
		Path    string   `json:"path"`
	}
	_ = json.Unmarshal(args, &in) // the tool refuses arguments that do not decode
	var (
		cmd    *shellCall
		paths  []string // the path as given and as resolved
		inside []string // a directory searched or listed: any name in it
	)
	if tool == "shell" {
		cmd = newShellCall(in.Command, in.Argv)
	}
	switch tool {
	case "read_file", "write_file", "edit_file", "list_dir", "grep":
		p := in.Path
		if p == "" {
			p = "."
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		p = filepath.Clean(p)
		paths = []string{p}
		if real := resolved(p); real != p {
			paths = append(paths, real)
		}
		if tool == "grep" || tool == "list_dir" {
			for _, p := range paths {
				inside = append(inside, filepath.Join(p, anyName))
			}
		}
	}
	for _, want := range []hooks.Decision{hooks.Deny, hooks.Ask, hooks.Allow} {
		for i := range rs.rules {
			r := &rs.rules[i]
			if r.Decision == want && r.AppliesTo(tool) && rs.matches(r, cmd, paths, inside, dir) {
				return want, &r.Rule
			}
		}
	}
	return "", nil
}

// anyName stands for any name in a directory a tool reads whole (grep,
// list_dir): a deny or ask rule matching it matches every file there.
const anyName = "\x00"

// matches reports whether r matches the call: its command, or its paths
// (an allow rule all of them, a deny or ask rule any, or any name inside
// a directory read whole).
func (rs *Rules) matches(r *compiledRule, cmd *shellCall, paths, inside []string, dir string) bool {
	switch {
	case r.Command != nil:
		if cmd == nil {
			return false
		}
		if r.Decision == hooks.Allow {
			return cmd.allowedBy(r)
		}
		return cmd.hits(r)
	case r.Path != nil:
		if len(paths) == 0 {
			return false // glob: only rules without a path are about it
		}
		n := 0
		for _, p := range paths {
			if rs.pathMatches(r.Path, p, dir) {
				n++
			}
		}
		if r.Decision == hooks.Allow {
			return n == len(paths)
		}
		for _, p := range inside {
			if rs.pathMatches(r.Path, p, dir) {
				n++
			}
		}
		return n > 0
	}
	return true // the tool alone: every call
}

// pathMatches reports whether the absolute path p matches pat, read from
// its base (the workspace dir, the home, the root).
func (rs *Rules) pathMatches(pat *hooks.PathPattern, p, dir string) bool {
	base := dir
	switch pat.Base {
	case hooks.FromHome:
		base = rs.home
	case hooks.FromRoot:
		base = "/"
	}
	if base == "" {
		return false
	}
	rel, err := filepath.Rel(base, p)
	if err != nil {
		return false
	}
	return pat.Match(filepath.ToSlash(rel))
}

// resolved is p with the links of its longest existing part resolved.
func resolved(p string) string {
	for d := p; ; d = filepath.Dir(d) {
		if real, err := filepath.EvalSymlinks(d); err == nil {
			rest, _ := filepath.Rel(d, p)
			return filepath.Join(real, rest)
		}
		if d == filepath.Dir(d) {
			return p
		}
	}
}

// shellCall is a shell call as rules see it: its words when it is simple,
// and every part a deny or ask rule is matched against.
type shellCall struct {
	text   string     // as a shell reads it
	words  []string   // a simple command's (nil: not simple)
	simple bool       // words are the whole command
	parts  [][]string // the simple commands it holds, unwrapped
}

func newShellCall(command string, argv []string) *shellCall {
	c := &shellCall{text: command}
	if command == "" {
		c.text = shellquote.Join(argv...)
		c.words, c.simple = argvWords(argv)
		if !c.simple {
			c.parts = unwrapAll(argv, 0)
			return c
		}
	} else {
		c.words, c.simple = CommandWords(command)
	}
	if c.simple {
		c.parts = unwrapAll(c.words, 0)
	} else {
		c.parts = looseParts(command, 0)
	}
	return c
}

// allowedBy reports whether an allow rule lets the command through: a
// simple command whose words match the rule's, running nothing given in
// its arguments.
func (c *shellCall) allowedBy(r *compiledRule) bool {
	if !c.simple || shellprefix.Command(c.words) != "" || len(r.words) == 0 {
		return false
	}
	switch {
	case r.partial:
		n := len(r.words) - 1
		return len(c.words) > n && hasPrefix(c.words, r.words[:n]) && strings.HasPrefix(c.words[n], r.words[n])
	case r.Command.Kind == hooks.Exact:
		return slices.Equal(c.words, r.words)
	}
	return hasPrefix(c.words, r.words)
}

// hits reports whether a deny or ask rule matches the command, or any
// simple command in it.
func (c *shellCall) hits(r *compiledRule) bool {
	if r.Command.MatchText(c.text) {
		return true
	}
	for _, p := range c.parts {
		if r.Command.MatchText(strings.Join(p, " ")) {
			return true
		}
		if r.words != nil && (r.Command.Kind == hooks.Exact && slices.Equal(p, r.words) || r.Command.Kind == hooks.Prefix && hasPrefix(p, r.words)) {
			return true
		}
	}
	return false
}

// looseParts cuts a command that is not simple at every character a shell
// might start another command at — operators, redirections, groups,
// substitutions, inside quotes too — with the quotes taken out, so a
// deny rule sees `rm` in `x; rm`, `$(rm …)`, "`rm …`" and `"$(rm …)"`. It
// errs towards finding commands that are not there (a quoted `;` in a
// message): a deny or ask rule may then refuse or ask once too often.
func looseParts(command string, depth int) [][]string {
	var parts [][]string
	cut := func(r rune) bool { return strings.ContainsRune(";&|<>(){}`\n", r) }
	for _, seg := range strings.FieldsFunc(command, cut) {
		seg = strings.NewReplacer(`'`, "", `"`, "", `\`, "").Replace(seg)
		if words := strings.Fields(seg); len(words) > 0 {
			parts = append(parts, unwrapAll(words, depth)...)
		}
	}
	return parts
}

// wrappers are programs that run the command after their options (and,
// for some, one operand).
var wrappers = map[string]int{
	"sudo": 0, "doas": 0, "env": 0, "nohup": 0, "nice": 0, "time": 0, "exec": 0, "command": 0, "builtin": 0,
	"stdbuf": 0, "xargs": 0, "timeout": 1, "chroot": 1, "ionice": 0, "setsid": 0, "unbuffer": 0,
}

// unwrapAll is words and the commands it runs: leading VAR=value taken
// off, a wrapper's command, a shell's -c script cut into parts.
func unwrapAll(words []string, depth int) [][]string {
	out := [][]string{words}
	for depth < 4 {
		depth++
		i := 0
		for i < len(words) && strings.Contains(words[i], "=") && !strings.HasPrefix(words[i], "-") {
			i++
		}
		if i == len(words) {
			break
		}
		name := shellprefix.Name(words[i])
		if operands, ok := wrappers[name]; ok {
			i++
			for i < len(words) && (strings.HasPrefix(words[i], "-") || strings.Contains(words[i], "=")) {
				i++
			}
			i += operands
		} else if isShell(name) {
			if k := slices.IndexFunc(words, scriptFlag); k > i && k+1 < len(words) {
				return append(out, looseParts(words[k+1], depth)...)
			}
			break
		}
		if i == 0 || i >= len(words) {
			break
		}
		words = words[i:]
		out = append(out, words)
	}
	return out
}

// scriptFlag reports whether a shell's option is -c, alone or among
// others (-lc, -ec).
func scriptFlag(w string) bool {
	return strings.HasPrefix(w, "-") && !strings.HasPrefix(w, "--") && strings.ContainsRune(w, 'c')
}

func isShell(name string) bool {
	switch name {
	case "sh", "bash", "dash", "zsh", "ksh", "fish", "ash", "busybox":
		return true
	}
	return false
}
