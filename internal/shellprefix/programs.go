package shellprefix

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// runsAny are programs every command of which may run a command or code
// given in its arguments; the value says why (%s is the program). Built on
// first use: every yagent process links this package, few judge a command.
func runsAny() map[string]string {
	runsAnyOnce.Do(func() { runsAnyMap = buildRunsAny() })
	return runsAnyMap
}

var (
	runsAnyOnce sync.Once
	runsAnyMap  map[string]string
)

func buildRunsAny() map[string]string {
	m := map[string]string{}
	add := func(why string, names ...string) {
		for _, n := range names {
			m[n] = why
		}
	}
	add("%s is a shell: it runs any command given to it",
		"sh", "bash", "zsh", "dash", "ksh", "mksh", "pdksh", "yash", "fish", "csh", "tcsh", "rc", "es", "nu", "elvish",
		"xonsh", "pwsh", "powershell", "busybox", "toybox")
	add("%s runs the command named in its arguments",
		"env", "sudo", "doas", "su", "runuser", "pkexec", "sg", "newgrp", "setpriv", "capsh",
		"xargs", "parallel", "nohup", "timeout", "nice", "ionice", "renice", "taskset", "chrt", "prlimit", "numactl", "cgexec",
		"exec", "eval", "command", "builtin", "time", "watch", "hyperfine", "entr", "watchexec", "nodemon",
		"strace", "ltrace", "valgrind", "perf", "catchsegv", "chroot", "unshare", "nsenter", "setsid", "stdbuf", "unbuffer",
		"flock", "script", "expect", "tmux", "screen", "dtach", "abduco", "systemd-run", "systemd-inhibit", "dbus-run-session",
		"dbus-launch", "ssh-agent", "xvfb-run", "firejail", "bwrap", "proot", "fakeroot", "fakechroot", "torsocks",
		"proxychains", "proxychains4", "sshpass", "ssh", "socat", "nc", "ncat", "netcat",
		"npx", "pnpx", "bunx", "uvx", "pipx", "nix-shell", "docker", "podman", "nerdctl", "flatpak", "flatpak-spawn")
	add("%s schedules commands to run later, outside this session", "at", "batch", "crontab")
	add("%s runs the commands given to -exec, -execdir, -ok and -okdir", "find", "gfind", "bfs")
	add("%s runs commands from its program (system(), pipes to and from commands)",
		"awk", "gawk", "mawk", "nawk", "original-awk", "bawk", "goawk", "frawk")
	add("%s runs shell commands given in its arguments (! and similar commands)",
		"vi", "vim", "nvim", "view", "vimdiff", "ex", "ed", "red", "emacs", "emacsclient", "dc",
		"gdb", "lldb", "sqlite3", "psql", "mysql", "mariadb")
	return m
}

// subWrappers run the command named after one of their subcommands.
var subWrappers = map[string][]string{
	"npm":        {"exec", "x", "explore"},
	"pnpm":       {"exec", "dlx", "x"},
	"yarn":       {"exec", "dlx"},
	"uv":         {"run", "tool"},
	"poetry":     {"run", "shell"},
	"pipenv":     {"run", "shell"},
	"pdm":        {"run"},
	"rye":        {"run"},
	"hatch":      {"run", "shell"},
	"pixi":       {"run", "exec", "shell"},
	"conda":      {"run"},
	"mamba":      {"run"},
	"micromamba": {"run"},
	"bundle":     {"exec"},
	"bundler":    {"exec"},
	"direnv":     {"exec"},
	"nix":        {"run", "develop", "shell"},
	"mise":       {"exec", "x"},
	"asdf":       {"exec"},
}

// checks look at the arguments of programs that run a command only when
// one of their options says so.
var checks = map[string]func(name string, opts []string) string{
	"git":    func(_ string, args []string) string { return gitCommand(options(args)) },
	"sed":    sedCommand,
	"gsed":   sedCommand,
	"tar":    tarCommand,
	"gtar":   tarCommand,
	"bsdtar": tarCommand,
	"rsync":  optionCheck("%s runs the remote shell given with -e/--rsh or --rsync-path", "e", "rsh", "rsync-path"),
	"sort":   optionCheck("%s runs the program given with --compress-program", "", "compress-program"),
	"gsort":  optionCheck("%s runs the program given with --compress-program", "", "compress-program"),
	"split":  optionCheck("%s runs the command given with --filter", "", "filter"),
	"man":    optionCheck("%s runs the pager or browser given with -P/--pager or -H/--html", "PH", "pager", "html"),
	"scp":    optionCheck("%s runs the program given with -S, or ssh options (-o ProxyCommand=…, -F)", "SoF"),
	"sftp":   optionCheck("%s runs the program given with -S or -D, or ssh options (-o ProxyCommand=…, -F)", "SoFD"),
	"rg":     optionCheck("%s runs the preprocessor given with --pre", "", "pre"),
	"fd":     optionCheck("%s runs the command given with -x/--exec or -X/--exec-batch", "xX", "exec", "exec-batch"),
	"fdfind": optionCheck("%s runs the command given with -x/--exec or -X/--exec-batch", "xX", "exec", "exec-batch"),
	"cargo":  optionCheck("%s runs what --config sets (target.*.runner, build.rustc-wrapper…)", "", "config"),
	"go":     goCommand,
	"make":   makeCommand,
	"gmake":  makeCommand,
	"cmake": func(name string, args []string) string {
		if slices.Contains(options(args), "-E") {
			return name + " -E runs commands (env, time…) given in its arguments"
		}
		return ""
	},
	"zip": func(name string, args []string) string {
		if slices.ContainsFunc(options(args), func(w string) bool { return strings.HasPrefix(w, "-TT") || long(w, "unzip-command") }) {
			return name + " runs the command given with -TT/--unzip-command"
		}
		return ""
	},
	"less": plusCommand,
	"more": plusCommand,
}

// optionCheck flags the short option letters and long option names given.
func optionCheck(why, letters string, names ...string) func(string, []string) string {
	names = slices.DeleteFunc(names, func(n string) bool { return n == "" })
	return func(name string, args []string) string {
		for _, w := range options(args) {
			if letters != "" && short(w, letters) || len(names) > 0 && long(w, names...) {
				return fmt.Sprintf(why, name)
			}
		}
		return ""
	}
}

// tarCommand: --to-command, -I/--use-compress-program, --checkpoint-action
// (exec=), -F/--info-script and the remote shell run commands; old-style
// options (tar xIf …) count too.
func tarCommand(name string, args []string) string {
	for i, w := range options(args) {
		if short(w, "IF") || i == 0 && !strings.HasPrefix(w, "-") && strings.ContainsAny(w, "IF") ||
			long(w, "to-command", "use-compress-program", "checkpoint-action", "info-script", "new-volume-script", "rsh-command", "rmt-command") {
			return name + " runs the command given with --to-command, -I/--use-compress-program, --checkpoint-action, -F/--info-script or --rsh-command"
		}
	}
	return ""
}

// goCommand: -exec, -toolexec and -vettool run a program around each
// binary, compiler or vet; `go env -w` sets them (GOFLAGS) for later.
func goCommand(name string, args []string) string {
	opts := options(args)
	for _, w := range opts {
		if goFlag(w, "exec", "toolexec", "vettool") {
			return name + " runs the program given with -exec, -toolexec or -vettool"
		}
	}
	if firstOperand(opts) == "env" && slices.ContainsFunc(opts, func(w string) bool { return goFlag(w, "w", "u") }) {
		return name + " env -w changes Go's settings (GOFLAGS=-toolexec=…) for every later command"
	}
	return ""
}

// makeCommand: --eval adds rules, and a variable given on the command line
// (before or after "--") replaces the Makefile's (SHELL, CC…): one whose
// value is more than a plain word may hold a command.
func makeCommand(name string, args []string) string {
	for _, w := range args {
		if short(w, "E") || long(w, "eval") {
			return name + " runs the rules given with --eval"
		}
		if v, val, ok := strings.Cut(w, "="); ok && !strings.HasPrefix(w, "-") {
			if v == "SHELL" || v == ".SHELLFLAGS" || v == "MAKESHELL" || strings.ContainsAny(val, " \t$;&|<>()`'\"\\") {
				return fmt.Sprintf("%s runs what the variable %s given on its command line says", name, v)
			}
		}
	}
	return ""
}

// plusCommand: less and more run the commands given with +cmd (! runs a
// shell).
func plusCommand(name string, args []string) string {
	if slices.ContainsFunc(options(args), func(w string) bool { return strings.HasPrefix(w, "+") }) {
		return name + " runs the commands given with +…"
	}
	return ""
}
