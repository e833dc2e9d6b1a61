package agents

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestCommandWords(t *testing.T) {
	tests := []struct {
		command string
		want    []string // nil = not simple
	}{
		{"go test ./...", []string{"go", "test", "./..."}},
		{"  git   status\t--short ", []string{"git", "status", "--short"}},
		{"go test -run 'TestA|TestB' ./agents", []string{"go", "test", "-run", "TestA|TestB", "./agents"}},
		{`git commit -m "fix: a; b"`, []string{"git", "commit", "-m", "fix: a; b"}},
		{`echo '' x`, []string{"echo", "", "x"}},
		{"go test ./...; rm -rf ~", nil},
		{"go test && curl x", nil},
		{"go test | tee log", nil},
		{"go test > /tmp/x", nil},
		{"go test < in", nil},
		{"go test $(whoami)", nil},
		{"go test `whoami`", nil},
		{`go test "$HOME"`, nil},
		{`go test "a\"b"`, nil},
		{"go test ${X}", nil},
		{"go test & sleep 1", nil},
		{"go test\nrm x", nil},
		{"go test # comment", nil},
		{"go test *.go", nil},
		{"go test 'unterminated", nil},
		{"(go test)", nil},
		{"LD_PRELOAD=/tmp/x.so go test", nil},
		{"go\x00 test", nil},
		{"", nil},
		{"   ", nil},
	}
	for _, tt := range tests {
		got, ok := CommandWords(tt.command)
		if ok != (tt.want != nil) || !slices.Equal(got, tt.want) {
			t.Errorf("CommandWords(%q) = %q, %v; want %q", tt.command, got, ok, tt.want)
		}
	}
}

func TestAlwaysPrefix(t *testing.T) {
	tests := []struct {
		command string
		want    string // "" = no "always"
	}{
		{"go test ./...", "go test"},
		{"git status", "git status"},
		{"npm run build", "npm run"},
		{"ls -la", "ls"},
		{"touch a.txt", "touch"},
		{"make", "make"},
		{"git -C sub status", ""},
		{"cat README", "cat"},
		{"sh -c 'rm -rf /'", ""},
		{"/bin/bash x.sh", ""},
		{"env go test", ""},
		{"sudo make install", ""},
		{"xargs rm", ""},
		{"find . -name x", ""},
		{"awk '{print $1}' f", ""},
		{"python3 -m pytest", ""},
		{"timeout 10 go test", ""},
		{"nice make", ""},
		{"watch ls", ""},
		{"git -c core.pager=less log", ""},
		{"git st", ""},
		{"sed -n p f", "sed"},
		{"sed 's/x/y/e' f", ""},
		{"go test -exec 'sh -c id' ./...", ""},
	}
	for _, tt := range tests {
		words, _ := CommandWords(tt.command)
		p, ok := AlwaysPrefix(words)
		if got := strings.Join(p, " "); got != tt.want || ok != (tt.want != "") {
			t.Errorf("AlwaysPrefix(%q) = %q, %v; want %q", tt.command, got, ok, tt.want)
		}
	}
}

// TestShellAllowAndAlways pins item 5 of issue 14: agents.shell_allow
// prefixes run without asking (headless too) and only as simple commands;
// an "always" answer approves later commands of that prefix in the session
// and nothing else; wrappers are never offered "always".
func TestShellAllowAndAlways(t *testing.T) {
	w := demoWorkspace(t)
	ran := func(name string) bool {
		_, err := os.Stat(filepath.Join(w.Dir(), "docs", name))
		return err == nil
	}
	run := func(p ShellPolicy, command string) Result {
		t.Helper()
		return call(t, []*Tool{ShellTool(w, p)}, "shell", map[string]any{"command": command, "cwd": "docs"})
	}

	headless := ShellPolicy{Approval: ApproveOnRequest, ShellAllow: []string{"touch allowed", "git status"}}
	for _, tt := range []struct {
		command, file string
		want          bool
	}{
		{"touch allowed1", "allowed1", false}, // "touch allowed" is two words: allowed1 is another word
		{"touch allowed", "allowed", true},    // the prefix whole is a command of it
		{"touch allowed x1", "x1", true},
		{"touch allowed x2; touch pwned1", "pwned1", false},
		{"touch allowed x3 && touch pwned2", "pwned2", false},
		{"touch  allowed  'x4'", "x4", true},
		{"touch pwned3", "pwned3", false},
	} {
		r := run(headless, tt.command)
		if ran(tt.file) != tt.want {
			t.Errorf("shell_allow, headless: %q ran = %v; want %v (%q)", tt.command, ran(tt.file), tt.want, r.Content)
		}
		if !tt.want && !strings.Contains(r.Content, "agents.shell_allow") {
			t.Errorf("refusal %q does not name agents.shell_allow", r.Content)
		}
	}

	// argv (no shell) matches as it is, unless a word holds a control
	// character (what the question would show is not what runs).
	for _, tt := range []struct {
		argv []string
		file string
		want bool
	}{
		{[]string{"touch", "allowed", "v1"}, "v1", true},
		{[]string{"touch", "allowed", "v2\x1b[2K"}, "v2\x1b[2K", false},
		{[]string{"touch", "allowed", "v3\r"}, "v3\r", false},
	} {
		r := call(t, []*Tool{ShellTool(w, headless)}, "shell", map[string]any{"argv": tt.argv, "cwd": "docs"})
		if ran(tt.file) != tt.want {
			t.Errorf("shell_allow, headless: argv %q ran = %v; want %v (%q)", tt.argv, ran(tt.file), tt.want, r.Content)
		}
	}

	// An empty rule is no prefix of everything.
	if r := run(ShellPolicy{Approval: ApproveOnRequest, ShellAllow: []string{"", "  "}}, "touch empty1"); ran("empty1") {
		t.Errorf("an empty shell_allow rule let %q run: %q", "touch empty1", r.Content)
	}

	var asked []Question
	answer := Deny
	ask := askFunc(func(q Question) Answer { asked = append(asked, q); return answer })
	session := ShellPolicy{Approval: ApproveUntrusted, Ask: ask, Session: NewApprovals(), ShellAllow: []string{"touch allowed"}}
	if run(session, "touch allowed u1"); !ran("u1") || len(asked) != 0 {
		t.Errorf("shell_allow under untrusted: ran %v, asked %d", ran("u1"), len(asked))
	}
	answer = AllowPrefix
	run(session, "touch a1.txt")
	if len(asked) != 1 || asked[0].Prefix != "touch" || !ran("a1.txt") {
		t.Fatalf("first touch: asked %+v, ran %v; want one question offering `touch`", asked, ran("a1.txt"))
	}
	answer = Deny
	for _, c := range []string{"touch a2.txt", "touch   -c a3.txt"} {
		if run(session, c); len(asked) != 1 {
			t.Errorf("%q asked again after always: %+v", c, asked[1:])
		}
	}
	if !ran("a2.txt") {
		t.Error("touch a2.txt did not run after always")
	}
	for _, c := range []string{"mkdir d1", "touch a4.txt; touch pwned4", "touchy a5.txt", "sh -c 'touch a6.txt'"} {
		n := len(asked)
		run(session, c)
		if len(asked) != n+1 {
			t.Errorf("%q was not asked about after always for `touch`", c)
		}
	}
	if ran("d1") || ran("pwned4") || ran("a4.txt") {
		t.Error("a command that was declined ran")
	}
	if q := asked[len(asked)-1]; q.Prefix != "" {
		t.Errorf("sh -c offered always for %q", q.Prefix)
	}
	// Another session does not inherit the answer.
	other := session
	other.Session = NewApprovals()
	n := len(asked)
	if run(other, "touch a7.txt"); len(asked) != n+1 {
		t.Error("a new session inherited an always answer")
	}
}

// TestAlwaysOnlyForCommandsThatRunNothingElse pins item 6 of issue 25:
// "always" is never offered for a program that runs a command given in
// its arguments (find -exec, awk's system()), and a prefix approved for
// good (in the session or agents.shell_allow) does not let through a
// command whose arguments run one.
func TestAlwaysOnlyForCommandsThatRunNothingElse(t *testing.T) {
	w := demoWorkspace(t)
	ran := func(name string) bool {
		_, err := os.Stat(filepath.Join(w.Dir(), "docs", name))
		return err == nil
	}
	var asked []Question
	answer := AllowPrefix
	ask := askFunc(func(q Question) Answer { asked = append(asked, q); return answer })
	session := ShellPolicy{Approval: ApproveOnRequest, Ask: ask, Session: NewApprovals()}
	run := func(p ShellPolicy, command string) Result {
		t.Helper()
		return call(t, []*Tool{ShellTool(w, p)}, "shell", map[string]any{"command": command, "cwd": "docs"})
	}
	for _, tt := range []struct{ first, prefix, then, file string }{
		{"find . -name x", "", "find . -maxdepth 0 -exec touch pwned-find ';'", "pwned-find"},
		{"awk 'BEGIN{print 1}'", "", `awk 'BEGIN{system("touch pwned-awk")}'`, "pwned-awk"},
		// sed may be approved for good; its e command is still asked about.
		{"sed -n 1p README.md", "sed", "sed -n '1e touch pwned-sed' README.md", "pwned-sed"},
	} {
		asked, answer = nil, AllowPrefix
		run(session, tt.first)
		if len(asked) != 1 || asked[0].Prefix != tt.prefix {
			t.Errorf("%q: asked %+v; want one question offering \"always\" for %q (\"\" = none)", tt.first, asked, tt.prefix)
		}
		answer = Deny
		run(session, tt.then)
		if len(asked) != 2 || ran(tt.file) {
			t.Errorf("%q after \"always\" for %q: asked %d times, ran = %v; want it asked and declined", tt.then, tt.first, len(asked), ran(tt.file))
		}
	}

	// A harmless prefix approved for good does not cover a command whose
	// arguments run another one.
	a := NewApprovals()
	a.add([]string{"find"}) // refused: never remembered
	a.mu.Lock()
	a.prefixes = append(a.prefixes, []string{"find"}, []string{"sed"}) // as if an older rule had let them in
	a.mu.Unlock()
	for _, tt := range []struct {
		words []string
		want  bool
	}{
		{[]string{"find", ".", "-exec", "sh", "-c", "id", ";"}, false},
		{[]string{"sed", "s/x/y/e", "f"}, false},
		{[]string{"sed", "-n", "p", "f"}, true},
	} {
		if got := a.match(tt.words); got != tt.want {
			t.Errorf("Approvals.match(%q) = %v; want %v", tt.words, got, tt.want)
		}
	}
	if len(a.prefixes) != 2 {
		t.Errorf("Approvals.add kept a prefix of find: %q", a.prefixes)
	}

	headless := ShellPolicy{Approval: ApproveOnRequest, ShellAllow: []string{"go test", "find", "git status"}}
	for _, c := range []string{"go test -exec 'touch pwned-go' ./...", "find . -exec touch pwned-find2 ';'", "git -c core.fsmonitor='touch pwned-git' status"} {
		r := run(headless, c)
		if !r.IsError || ran("pwned-go") || ran("pwned-find2") || ran("pwned-git") {
			t.Errorf("headless %q with shell_allow %q: %q; want it refused", c, headless.ShellAllow, r.Content)
		}
	}
	if r := run(headless, "go test -exec 'touch pwned-go' ./..."); !strings.Contains(r.Content, "-exec") || !strings.Contains(r.Content, "agents.shell_allow does not cover it") {
		t.Errorf("refusal %q does not say why shell_allow does not cover the command", r.Content)
	}
	// A rule that may not be approved for good (config refuses it; one
	// from elsewhere is ignored here): git without one of its own
	// subcommands would let an alias run `!sh`.
	wide := ShellPolicy{Approval: ApproveOnRequest, ShellAllow: []string{"git", "sh"}}
	for _, c := range []string{"git st", "sh -c 'touch pwned-sh'"} {
		if r := run(wide, c); !strings.Contains(r.Content, "shell is not allowed") || ran("pwned-sh") {
			t.Errorf("headless %q with shell_allow %q: %q; want it refused", c, wide.ShellAllow, r.Content)
		}
	}
}

// FuzzCommandWords: never panics; a simple command's words survive being
// quoted and parsed again, the first never assigns a variable, and no
// control character gets through.
func FuzzCommandWords(f *testing.F) {
	for _, s := range []string{"go test ./...", `git commit -m "a b"`, "a 'b c' d", "x; y", `"$(x)"`, "a\tb", "'", `""`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, command string) {
		words, ok := CommandWords(command)
		if !ok {
			return
		}
		if len(words) == 0 || strings.Contains(words[0], "=") {
			t.Fatalf("CommandWords(%q) = %q", command, words)
		}
		quoted := make([]string, len(words))
		for i, w := range words {
			if strings.ContainsFunc(w, func(r rune) bool { return r < 0x20 && r != '\t' || r == 0x7f }) {
				t.Fatalf("CommandWords(%q): word %q holds a control character", command, w)
			}
			quoted[i] = "'" + strings.ReplaceAll(w, "'", `'"'"'`) + "'"
		}
		again, ok := CommandWords(strings.Join(quoted, " "))
		if !ok || !slices.Equal(again, words) {
			t.Fatalf("CommandWords(%q) = %q; quoted and parsed again: %q, %v", command, words, again, ok)
		}
	})
}

// TestEmptyPrefixMatchesNothing: an empty prefix is no prefix of every
// command, wherever it comes from — an empty shell_allow rule (config
// and matchesRule refuse it too) or an empty prefix in a session's set
// (add refuses it too): the match itself refuses it.
func TestEmptyPrefixMatchesNothing(t *testing.T) {
	a := NewApprovals()
	a.mu.Lock()
	a.prefixes = append(a.prefixes, []string{}, nil) // as if something had let them in
	a.mu.Unlock()
	for _, words := range [][]string{{"touch", "x"}, {"ls"}} {
		if a.match(words) {
			t.Errorf("an empty session prefix matches %q", words)
		}
		for _, prefix := range [][]string{nil, {}} {
			if hasPrefix(words, prefix) {
				t.Errorf("hasPrefix(%q, %q) = true; want false", words, prefix)
			}
		}
	}
}
