package shellprefix

import (
	"strings"
	"testing"
)

// TestPrefix pins which prefixes may be approved for good: never one whose
// program runs a command or code given in its arguments (issue 25 item 6:
// find, xargs, env, shells, sudo, timeout, nice, watch, git -c,
// interpreters, awk, sed with e), and ordinary ones still may.
func TestPrefix(t *testing.T) {
	refused := []string{
		"find", "find .", "/usr/bin/find", "xargs", "env", "env go test", "sh", "bash", "/bin/zsh", "dash", "busybox",
		"sudo", "sudo make", "doas", "timeout", "timeout 10", "nice", "nice -n 5", "ionice", "watch", "nohup", "time",
		"strace", "taskset", "chrt", "setsid", "flock", "systemd-run", "docker", "docker run", "podman", "crontab", "at",
		"awk", "gawk", "mawk", "nawk", "busybox awk",
		"python", "python3", "python3.12", "python3 -c", "python3 -m", "perl", "perl -e", "ruby", "node", "node -e",
		"nodejs", "php", "php -r", "lua5.4", "Rscript", "deno", "deno eval", "bun", "bun x", "java", "tclsh",
		"vim", "ed", "emacs", "gdb", "sqlite3", "psql", "dc",
		"git", "git -c", "git -c core.pager=sh", "git --config-env=x=y", "git --exec-path=/tmp", "git -C sub status",
		"git --git-dir=x status", "git st", "git config", "git difftool", "git mergetool", "git help", "git maintenance",
		"git submodule foreach", "git bisect run", "git grep -O", "git rebase -x", "git rebase --exec",
		"git clone -u", "git clone --template=t", "git push --receive-pack=x", "git fetch --upload-pack=x",
		"sed -e s/x/y/e", "sed s/x/y/e", "sed 1e", "sed -f script.sed", "sed --file=s",
		"npx", "npm exec", "npm x", "pnpm dlx", "yarn dlx", "uv run", "poetry run", "bundle exec", "nix run", "direnv exec",
		"go test -exec", "go test -toolexec=x", "go vet -vettool=x", "go env -w",
		"tar --to-command=sh", "tar -I", "rsync -e", "rg --pre=x", "fd -x", "make --eval=x", "make SHELL=/bin/sh",
		"cmake -E", "cargo --config", "man -P", "less +!sh", "scp -S", "sort --compress-program=sh", "split --filter=sh",
		"zip -TT",
	}
	for _, p := range refused {
		if why := Prefix(strings.Fields(p)); why == "" {
			t.Errorf("Prefix(%q) = \"\"; want a reason: it would approve other commands", p)
		}
	}
	allowed := []string{
		"go test", "go vet", "go build", "git status", "git diff", "git log", "git --no-pager log", "git commit",
		"git grep", "git rebase", "git clone", "ls", "cat", "touch", "make", "make test", "npm test", "npm run",
		"cargo test", "python3 -m pytest", "python3 manage.py", "node script.js", "sed", "sed -n", "tar", "tar -xzf",
		"rg", "fd", "rsync -av", "less", "cmake --build",
	}
	for _, p := range allowed {
		if why := Prefix(strings.Fields(p)); why != "" {
			t.Errorf("Prefix(%q) = %q; want it allowed", p, why)
		}
	}
	if Prefix(nil) == "" {
		t.Error("Prefix(nil) allowed: an empty prefix matches everything")
	}
}

// TestCommand pins what a harmless prefix lets through: a command it
// matches that runs a command given in its arguments is asked about.
func TestCommand(t *testing.T) {
	tests := []struct {
		words []string
		runs  bool
	}{
		{[]string{"find", ".", "-name", "x"}, true},
		{[]string{"find", ".", "-exec", "sh", "-c", "id", ";"}, true},
		{[]string{"awk", "BEGIN{system(\"id\")}"}, true},
		{[]string{"go", "test", "./..."}, false},
		{[]string{"go", "test", "-exec", "sh -c id"}, true},
		{[]string{"go", "test", "--toolexec=x", "./..."}, true},
		{[]string{"go", "test", "-run", "TestExec"}, false},
		{[]string{"go", "test", "./...", "--", "-exec"}, false},
		{[]string{"git", "status", "--short"}, false},
		{[]string{"git", "-c", "core.fsmonitor=id", "status"}, true},
		{[]string{"git", "-ccore.pager=id", "log"}, true},
		{[]string{"git", "grep", "-n", "TODO"}, false},
		{[]string{"git", "grep", "-Ovim", "TODO"}, true},
		{[]string{"git", "grep", "--open=vim", "TODO"}, true},
		{[]string{"git", "grep", "TODO", "--", "-O"}, false},
		{[]string{"cmake", "--", "-E"}, false},      // "--" first: everything after it is an operand
		{[]string{"rsync", "-", "-", "dst"}, false}, // a lone "-" is an operand, not options
		{[]string{"git", "rebase", "-i", "main"}, false},
		{[]string{"git", "rebase", "-ix", "id", "main"}, true},
		{[]string{"git", "bisect", "run", "sh", "-c", "id"}, true},
		{[]string{"git", "clone", "--upload-pack=id", "x"}, true},
		{[]string{"git", "archive", "--remote=x", "--exec=id"}, true},
		{[]string{"sed", "-n", "s/a/b/p", "f"}, false},
		{[]string{"sed", "s/x/y/e", "f"}, true},
		{[]string{"sed", "-e", "s/x/y/", "-e", "1e id", "f"}, true},
		{[]string{"sed", "-nes/x/y/e", "f"}, true},
		{[]string{"sed", "--expression=s/x/y/ge", "f"}, true},
		{[]string{"sed", "--", "s/x/y/e", "f"}, true},
		{[]string{"sed", "-i", "s/e/E/g", "f"}, false},
		{[]string{"sed", "-ie", "s/x/y/e"}, true}, // -i with suffix "e": the script is the operand
		{[]string{"sed", "s/e/e/;/e/d;y/e/E/", "f"}, false},
		{[]string{"sed", "/x/e id"}, true},
		{[]string{"sed", "$!{N;e id\n}"}, true},
		{[]string{"sed", "a\\\ne id"}, false}, // appended text, not a command
		{[]string{"sed", "-f", "x.sed"}, true},
		{[]string{"tar", "xzf", "a.tgz"}, false},
		{[]string{"tar", "-xf", "a.tar", "--to-command=sh"}, true},
		{[]string{"tar", "xIf", "sh", "a.tar"}, true},
		{[]string{"make", "test", "V=1", "CC=clang"}, false},
		{[]string{"make", "CC=sh -c id"}, true},
		{[]string{"npm", "exec", "cowsay"}, true},
		{[]string{"npm", "test"}, false},
		{[]string{"python3", "-m", "pytest", "-c", "x.ini"}, false},
		{[]string{"python3", "-c", "import os"}, true},
		{[]string{"python3", "script.py", "-c", "x"}, false},
		{[]string{"ls", "-exec"}, false},
	}
	for _, tt := range tests {
		if got := Command(tt.words); (got != "") != tt.runs {
			t.Errorf("Command(%q) = %q; want runs = %v", tt.words, got, tt.runs)
		}
	}
}

// FuzzSedRuns: never panics on any script or sed command line; an s
// command with plain parts runs nothing unless its flags hold e, and then
// it always runs.
func FuzzSedRuns(f *testing.F) {
	for _, s := range []string{"s/x/y/g", "1e id", "s/x/y/e", "a\\\ntext", "$!{N;p}", "/a/,/b/d", "\\%x%p", "y/ab/cd/"} {
		f.Add(s, "a", "b", "g")
	}
	f.Fuzz(func(t *testing.T, script, pat, repl, flags string) {
		sedRuns(script)
		sedCommand("sed", []string{script, "-e", pat})
		plain := func(s string) bool { return !strings.ContainsAny(s, "/\\\n") }
		if !plain(pat) || !plain(repl) || strings.Trim(flags, "gpiImM0123456789") != "" {
			return
		}
		s := "s/" + pat + "/" + repl + "/" + flags
		if sedRuns(s) {
			t.Fatalf("sedRuns(%q) = true; an s command with flags %q runs nothing", s, flags)
		}
		if !sedRuns(s + "e") {
			t.Fatalf("sedRuns(%q) = false; the e flag runs the pattern space", s+"e")
		}
	})
}
