package shellprefix

import (
	"fmt"
	"slices"
	"strings"
)

// git runs code in more ways than one: configuration given on the command
// line (-c, --config-env), another git dir or program directory whose
// configuration or programs it then uses (-C, --git-dir, --work-tree,
// --bare, --exec-path), aliases (which may be shell commands: "!sh …"),
// subcommands that run a command by design (difftool, bisect run,
// submodule foreach…) and options that name one (grep -O, rebase -x,
// clone -u/--template/-c, push --receive-pack…).

// gitHarmless are the global options a prefix may hold before the
// subcommand.
var gitHarmless = []string{"-P", "--no-pager", "-p", "--paginate", "--no-replace-objects", "--literal-pathspecs",
	"--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs", "--no-optional-locks", "--no-advice"}

// gitSafe are git's own commands a prefix may name: a name that is not
// one of git's commands may be an alias, and an alias may be a shell
// command. (git never lets an alias shadow one of its commands.) Their
// options are still checked (gitCommand).
var gitSafe = []string{"add", "am", "annotate", "apply", "archive", "bisect", "blame", "branch", "bundle", "cat-file",
	"check-attr", "check-ignore", "check-mailmap", "check-ref-format", "checkout", "cherry", "cherry-pick", "clean",
	"clone", "commit", "count-objects", "describe", "diff", "diff-files", "diff-index", "diff-tree", "fetch",
	"for-each-ref", "format-patch", "fsck", "gc", "grep", "hash-object", "init", "log", "ls-files", "ls-remote",
	"ls-tree", "merge", "merge-base", "mv", "name-rev", "notes", "pull", "push", "range-diff", "rebase", "reflog",
	"remote", "reset", "restore", "rev-list", "rev-parse", "revert", "rm", "shortlog", "show", "show-branch",
	"show-ref", "stash", "status", "submodule", "switch", "tag", "version", "whatchanged", "worktree"}

// gitRuns are subcommands that run a command, or set what git runs later,
// whatever their options.
var gitRuns = map[string]string{
	"config":            "sets what git runs later (aliases, core.pager, core.fsmonitor, hooks)",
	"difftool":          "runs the diff tool given with -x/--extcmd or configured",
	"mergetool":         "runs the merge tool",
	"filter-branch":     "runs the shell commands given as filters",
	"filter-repo":       "runs the Python callbacks given in its arguments",
	"instaweb":          "starts a web server",
	"send-email":        "runs the programs given with --sendmail-cmd or --smtp-server",
	"hook":              "runs hooks",
	"for-each-repo":     "runs a git command in every repository a setting names",
	"gui":               "starts a GUI",
	"citool":            "starts a GUI",
	"credential":        "runs credential helpers and prints stored credentials",
	"help":              "runs a pager, man or a web browser",
	"maintenance":       "registers scheduled jobs (cron, systemd) that run outside this session",
	"daemon":            "starts a server",
	"shell":             "runs commands",
	"web--browse":       "starts a web browser",
	"submodule--helper": "runs submodule commands",
}

// gitCommand finds what in a git command runs a command given in its
// arguments.
func gitCommand(opts []string) string {
	i := 0
	for ; i < len(opts) && strings.HasPrefix(opts[i], "-"); i++ {
		w := opts[i]
		switch {
		case strings.HasPrefix(w, "-c") || strings.HasPrefix(w, "--config-env"):
			return "git -c and --config-env set configuration that can run a command (core.fsmonitor, core.pager, alias.*)"
		case strings.HasPrefix(w, "-C") || strings.HasPrefix(w, "--git-dir") || strings.HasPrefix(w, "--work-tree") || w == "--bare":
			return fmt.Sprintf("git %s uses another repository, whose configuration can run a command", w)
		case strings.HasPrefix(w, "--exec-path"):
			return "git --exec-path runs git's programs from another directory"
		case w == "--namespace" || w == "--super-prefix" || w == "--attr-source":
			i++ // its value
		}
	}
	if i >= len(opts) {
		return ""
	}
	sub, args := opts[i], opts[i+1:]
	if why, ok := gitRuns[sub]; ok {
		return "git " + sub + " " + why
	}
	has := func(letters string, names ...string) bool {
		return slices.ContainsFunc(args, func(w string) bool { return letters != "" && short(w, letters) || long(w, names...) })
	}
	var bad bool
	switch sub {
	case "bisect":
		bad = slices.Contains(args, "run")
	case "submodule":
		bad = slices.Contains(args, "foreach")
	case "rebase":
		bad = has("x", "exec")
	case "grep":
		bad = has("O", "open-files-in-pager")
	case "clone":
		bad = has("uc", "upload-pack", "template", "config")
	case "ls-remote":
		bad = has("u", "upload-pack")
	case "fetch", "pull":
		bad = has("", "upload-pack")
	case "push":
		bad = has("", "receive-pack", "exec")
	case "archive":
		bad = has("", "exec")
	case "init":
		bad = has("", "template")
	}
	if bad {
		return fmt.Sprintf("git %s runs the command given in its arguments (%s)", sub, strings.Join(args, " "))
	}
	return ""
}

// gitPrefix: a prefix names one of git's own commands, after harmless
// global options only.
func gitPrefix(args []string) string {
	i := 0
	for i < len(args) && slices.Contains(gitHarmless, args[i]) {
		i++
	}
	switch {
	case i == len(args):
		return `git runs configuration given with -c and aliases that may be shell commands: name a subcommand, e.g. "git status"`
	case strings.HasPrefix(args[i], "-"):
		return fmt.Sprintf("git %s: a prefix holds only the subcommand and harmless options (%s) before it", args[i], strings.Join(gitHarmless, ", "))
	case !slices.Contains(gitSafe, args[i]):
		return fmt.Sprintf("git %s is not one of git's own commands: an alias may be a shell command; list what it stands for", args[i])
	}
	return ""
}
