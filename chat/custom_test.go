package chat

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/yagent/yagent/config"
)

func TestParseCustom(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, data string
		want       CustomCommand
		err        string
	}{
		{name: "review", data: "---\ndescription: Review a directory\nargument-hint: DIR\nallowed-tools: Bash(git diff:*), Read\nmodel: haiku\n---\nReview $ARGUMENTS for bugs.\n",
			want: CustomCommand{Name: "/review", Description: "Review a directory", ArgumentHint: "DIR", AllowedTools: "Bash(git diff:*), Read", Model: "haiku", Body: "Review $ARGUMENTS for bugs."}},
		{name: "plain", data: "Explain the build.\nIn detail.", want: CustomCommand{Name: "/plain", Description: "Explain the build.", Body: "Explain the build.\nIn detail."}},
		{name: "list", data: "---\nallowed-tools: [Read, Grep]\n---\nx", want: CustomCommand{Name: "/list", Description: "x", AllowedTools: "Read, Grep", Body: "x"}},
		{name: "empty", data: "---\ndescription: d\n---\n", err: "body"},
		{name: "bad", data: "---\ndescription: a: b\n---\nx", err: "front matter"},
		{name: "map", data: "---\nallowed-tools: {a: b}\n---\nx", err: "allowed-tools"},
		{name: "binary", data: "\xff", err: "UTF-8"},
	} {
		got, err := ParseCustom(tt.name, []byte(tt.data))
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseCustom(%q) error = %v; want %q", tt.data, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseCustom(%q) = %+v, %v; want %+v", tt.data, got, err, tt.want)
		}
	}
}

func TestExpandCustom(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ body, args, want string }{
		{"Review $ARGUMENTS for bugs.", " src ", "Review src for bugs."},
		{"Fix issue #$1 with priority $2 ($3).", "123 high", "Fix issue #123 with priority high ()."},
		{"Compare $1 and $ARGUMENTS", "a b", "Compare a and a b"},
		{"No placeholders.", "extra words", "No placeholders.\n\nARGUMENTS: extra words"},
		{"No placeholders.", "", "No placeholders."},
	} {
		if got := (CustomCommand{Body: tt.body}).Expand(tt.args); got != tt.want {
			t.Errorf("Expand(%q, %q) = %q; want %q", tt.body, tt.args, got, tt.want)
		}
	}
}

// FuzzParseCustom: any file is judged without a panic; what is accepted
// has a body and a one-line description, and expands to valid UTF-8.
func FuzzParseCustom(f *testing.F) {
	f.Add([]byte("---\ndescription: d\n---\nReview $ARGUMENTS and $1"), "a b")
	f.Add([]byte("plain"), "")
	f.Fuzz(func(t *testing.T, data []byte, args string) {
		c, err := ParseCustom("x", data)
		if err != nil {
			return
		}
		if c.Body == "" || strings.Contains(c.Description, "\n") {
			t.Fatalf("ParseCustom(%q) = %+v", data, c)
		}
		if out := c.Expand(args); utf8.ValidString(args) && !utf8.ValidString(out) {
			t.Fatalf("Expand(%q) = %q: not UTF-8", args, out)
		}
	})
}

// TestLoadCustom: the person's commands always, a workspace's only once
// it is trusted (said until then); a project's wins over the person's of
// the same name; a built-in's name and a broken file are warnings.
func TestLoadCustom(t *testing.T) {
	home, user, ws := t.TempDir(), t.TempDir(), t.TempDir()
	files := map[string]string{
		filepath.Join(user, ".claude/commands/review.md"): "Person's review of $ARGUMENTS",
		filepath.Join(home, "commands/deploy.md"):         "Deploy.",
		filepath.Join(home, "commands/help.md"):           "Shadowing /help.",
		filepath.Join(home, "commands/broken.md"):         "---\ndescription: d\n---\n",
		filepath.Join(ws, ".claude/commands/review.md"):   "---\ndescription: Project review\n---\nProject review of $ARGUMENTS",
	}
	for p, text := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := &config.Config{Home: home, UserHome: user}
	names := func(cmds []CustomCommand) string {
		var out []string
		for _, c := range cmds {
			out = append(out, c.Name+"="+c.Scope)
		}
		return strings.Join(out, " ")
	}
	cmds, warn := LoadCustom(cfg, ws)
	w := strings.Join(warn, "\n")
	if got := names(cmds); got != "/deploy=user /review=user" || !strings.Contains(w, "not reading the commands of "+filepath.Join(ws, ".claude", "commands")) ||
		!strings.Contains(w, "help.md skipped: /help is yagent's own") || !strings.Contains(w, "broken.md skipped: the body") {
		t.Errorf("untrusted: %s\n%s", got, w)
	}
	if _, _, err := config.Trust(home, ws, time.Now()); err != nil {
		t.Fatal(err)
	}
	cmds, warn = LoadCustom(cfg, ws)
	if got := names(cmds); got != "/deploy=user /review=project" || strings.Contains(strings.Join(warn, "\n"), "not trusted") {
		t.Errorf("trusted: %s\n%s", got, warn)
	}
	if h := customHelp(cmds); !strings.Contains(h, "/review") || !strings.Contains(h, "Project review (project)") {
		t.Errorf("help:\n%s", h)
	}
}
