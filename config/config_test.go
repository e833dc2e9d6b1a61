package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// env builds a getenv over a map, with YAGENT_HOME set to home.
func env(home string, kv ...string) func(string) string {
	m := map[string]string{"YAGENT_HOME": home}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func load(t *testing.T, user, workspace string, kv ...string) (*Config, error) {
	t.Helper()
	home, wd := t.TempDir(), t.TempDir()
	if user != "" {
		write(t, filepath.Join(home, "config.yaml"), user)
	}
	if workspace != "" {
		write(t, filepath.Join(wd, ".yagent", "config.yaml"), workspace)
		// These tests are about layering: the workspace is trusted
		// (trust_test.go is about trust).
		if _, _, err := Trust(home, wd, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	return Load(Options{Getenv: env(home, kv...), Dir: wd})
}

// TestValvesByKeyPresence pins SPEC §5 constraint 2: an absent key means
// the default, a present 0 means off/unlimited.
func TestValvesByKeyPresence(t *testing.T) {
	tests := []struct {
		name                string
		user                string
		maxNotes, lineChars int
		ttl                 time.Duration
	}{
		{"absent section", "", 12, 160, 14 * 24 * time.Hour},
		{"empty section", "blackboard: {}\n", 12, 160, 14 * 24 * time.Hour},
		{"explicit zeros", "blackboard:\n  index_max_notes: 0\n  index_line_chars: 0\n  ttl: \"0\"\n", 0, 0, 0},
		{"ttl zero unquoted", "blackboard:\n  ttl: 0\n", 12, 160, 0},
		{"values", "blackboard:\n  index_max_notes: 3\n  ttl: 36h\n", 3, 160, 36 * time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := load(t, tt.user, "")
			if err != nil {
				t.Fatal(err)
			}
			b := cfg.Blackboard
			if b.IndexMaxNotes != tt.maxNotes || b.IndexLineChars != tt.lineChars || b.TTL.D() != tt.ttl {
				t.Errorf("blackboard = %+v; want max_notes %d, line_chars %d, ttl %v", b, tt.maxNotes, tt.lineChars, tt.ttl)
			}
		})
	}
}

func TestLayersAndEnv(t *testing.T) {
	cfg, err := load(t,
		"models:\n  default:\n    base_url: http://user\n    model: m-user\n  fast:\n    model: small\n    max_retries: 0\nblackboard:\n  index_max_notes: 5\n",
		"models:\n  default:\n    model: m-workspace\nblackboard:\n  index_line_chars: 80\n",
		"YAGENT_MODEL", "m-env")
	if err != nil {
		t.Fatal(err)
	}
	def := cfg.Models["default"]
	if def.BaseURL != "http://user" || def.Model != "m-env" || def.ContextWindow != 128000 {
		t.Errorf("default model = %+v; want user base_url, env model, default window", def)
	}
	fast := cfg.Models["fast"]
	if fast.Model != "small" || fast.ContextWindow != 128000 || fast.Timeout.D() != 2*time.Minute || fast.MaxRetries != 0 || fast.APIKeyEnv != "OPENAI_API_KEY" {
		t.Errorf("fast model = %+v; want defaults seeded and max_retries 0 kept", fast)
	}
	if cfg.Blackboard.IndexMaxNotes != 5 || cfg.Blackboard.IndexLineChars != 80 {
		t.Errorf("blackboard = %+v; want 5 from user, 80 from workspace", cfg.Blackboard)
	}
	if len(cfg.Sources) != 2 {
		t.Errorf("sources = %v; want both files", cfg.Sources)
	}
}

func TestEnvBaseURL(t *testing.T) {
	cfg, err := load(t, "", "", "OPENAI_BASE_URL", "http://env/v1")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Models["default"].BaseURL != "http://env/v1" {
		t.Errorf("base_url %q", cfg.Models["default"].BaseURL)
	}
}

// TestErrorsNameFileLineKey pins that unknown keys and wrong types are
// errors naming the file, the line and the key — all of them at once.
func TestErrorsNameFileLineKey(t *testing.T) {
	tests := []struct {
		name, user string
		want       []string
	}{
		{"unknown top-level", "blackbord:\n  ttl: 1d\n", []string{"config.yaml:1: blackbord: unknown key"}},
		{"unknown nested", "blackboard:\n  index_max_notes: 3\n  index_max: 4\n", []string{"config.yaml:3: blackboard.index_max: unknown key"}},
		{"wrong type", "blackboard:\n  index_max_notes: lots\n", []string{`config.yaml:2: blackboard.index_max_notes: want an integer, got the string "lots"`}},
		{"bad duration", "blackboard:\n  ttl: fortnight\n", []string{`config.yaml:2: blackboard.ttl: bad duration "fortnight"`}},
		{"two problems", "blackboard:\n  index_max_notes: x\nnotes:\n  enabled: maybe\n  color: red\n",
			[]string{"config.yaml:2: blackboard.index_max_notes", "config.yaml:4: notes.enabled: want true or false", "config.yaml:5: notes.color: unknown key"}},
		{"model unknown key", "models:\n  fast:\n    modle: x\n", []string{"config.yaml:3: models.fast.modle: unknown key"}},
		{"syntax", "blackboard:\n  ttl: [\n", []string{"config.yaml:", "YAML syntax"}},
		{"not a mapping", "- a\n- b\n", []string{"config.yaml:1: the top level must be a mapping"}},
		// yaml.v3 alone would truncate these to 2 and 128000.
		{"float for an integer", "agents:\n  max_steps: 2.5\n", []string{"config.yaml:2: agents.max_steps: want an integer, got the number 2.5"}},
		{"floats in a map and a flow mapping", "models:\n  fast: {model: x, context_window: 1.28e5}\nblackboard: {max_note_bytes: 1.0, ttl: 1d}\n",
			[]string{"config.yaml:2: models.fast.context_window: want an integer, got the number 1.28e5", "config.yaml:3: blackboard.max_note_bytes: want an integer, got the number 1.0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load(t, tt.user, "")
			if err == nil {
				t.Fatal("Load succeeded; want an error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\ndoes not contain %q", err, w)
				}
			}
			var ce *Error
			var ces Errors
			if !errors.As(err, &ce) && !errors.As(err, &ces) {
				t.Errorf("error %T is not a config error", err)
			}
		})
	}
}

func TestEmptyFilesAreFine(t *testing.T) {
	for _, content := range []string{"", "# only a comment\n", "~\n"} {
		if _, err := load(t, content, content); err != nil {
			t.Errorf("Load with file %q: %v", content, err)
		}
	}
}

func TestParseDuration(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		err  bool
	}{
		{"0", 0, false}, {"14d", 14 * 24 * time.Hour, false}, {"1.5d", 36 * time.Hour, false},
		{"90s", 90 * time.Second, false}, {"-1h", 0, true}, {"soon", 0, true}, {"d", 0, true},
	}
	for _, tt := range tests {
		got, err := ParseDuration(tt.in)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v, err %v", tt.in, got, err, tt.want, tt.err)
		}
	}
	if s := Duration(14 * 24 * time.Hour).String(); s != "14d" {
		t.Errorf("String() = %q; want 14d", s)
	}
}

// TestShellAllowRunsNothingElse pins item 6 of issue 25 at load: a
// shell_allow prefix whose commands may run another command (find -exec,
// awk's system(), a shell, a wrapper, an interpreter, git -c, sed's e) is
// an error naming file, line, key and why.
func TestShellAllowRunsNothingElse(t *testing.T) {
	for _, tt := range []struct{ prefix, why string }{
		{"find", "find runs the commands given to -exec"},
		{"find .", "find runs the commands given to -exec"},
		{"awk", "awk runs commands from its program"},
		{"gawk", "gawk runs commands"},
		{"xargs", "xargs runs the command named in its arguments"},
		{"env", "env runs the command"},
		{"bash", "bash is a shell"},
		{"sudo", "sudo runs the command"},
		{"timeout 60", "timeout runs the command"},
		{"nice", "nice runs the command"},
		{"watch", "watch runs the command"},
		{"python3", "python3 runs code given with -c or -e"},
		{"perl -e", "perl runs code given with options"},
		{"git", "git runs configuration given with -c"},
		{"git -c", "git -c and --config-env set configuration"},
		{"git config", "git config sets what git runs later"},
		{"sed -e s/x/y/e", "sed runs shell commands with its e command"},
	} {
		user := "agents:\n  shell_allow:\n    - go test\n    - " + tt.prefix + "\n"
		_, err := load(t, user, "")
		want := fmt.Sprintf(`config.yaml:3: agents.shell_allow: entry 2, %q: may not be approved for good: %s`, tt.prefix, tt.why)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("shell_allow %q: Load = %v; want %q", tt.prefix, err, want)
		}
	}
	if _, err := load(t, "agents:\n  shell_allow: [go test, git status, python3 -m pytest, sed -n, make test]\n", ""); err != nil {
		t.Errorf("ordinary prefixes refused: %v", err)
	}
}

// TestValuesThatCannotWork: values that decode but cannot work are errors
// naming the file, line and key that set them.
func TestValuesThatCannotWork(t *testing.T) {
	tests := []struct{ user, want string }{
		{"agents:\n  tail_role: assistant\n", `config.yaml:2: agents.tail_role: want user or system, got "assistant"`},
		{"agents:\n  on_background_done: ask\n", `config.yaml:2: agents.on_background_done: want report or wait, got "ask"`},
		{"agents:\n  approval: sometimes\n", `config.yaml:2: agents.approval: want untrusted, on-request or never`},
		{"context:\n  compact_budget: 1.5\n", "config.yaml:2: context.compact_budget: want a share of the window"},
		{"agents:\n  max_depth: 0\n", "config.yaml:2: agents.max_depth: want 1 or more, got 0"},
		{"notes:\n  index_leave_chars: 99999\n", "config.yaml:2: notes.index_leave_chars: must not be above notes.index_enter_chars"},
		{"models:\n  fast:\n    context_window: -5\n", "config.yaml:3: models.fast.context_window"},
		{"agents:\n  shell_allow: [go test, \"git status; rm -rf ~\"]\n", `config.yaml:2: agents.shell_allow: entry 2, "git status; rm -rf ~": want a command prefix of plain words`},
		{"agents:\n  shell_allow: [\"\"]\n", `agents.shell_allow: entry 1, "": want a command prefix`},
	}
	for _, tt := range tests {
		_, err := load(t, tt.user, "")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Load(%q) = %v; want %q", tt.user, err, tt.want)
		}
	}
}
