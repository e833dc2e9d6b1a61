package config

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"
)

// TestEveryKeyClassified pins issue 25 item 11: every key of the Config
// struct and of defaults.yaml has one class in KeyClasses (a map's entries
// as "*"), an Exhausts key says which direction harms and no other does,
// and the table names no key that does not exist. A key added without a
// class fails here, and the trust gate drops it from untrusted files.
func TestEveryKeyClassified(t *testing.T) {
	seen := map[string]bool{}
	classified := func(key string) {
		t.Helper()
		c, ok := ClassOf(key)
		switch {
		case !ok:
			t.Errorf("%s has no class: add it to KeyClasses (config/classes.go) — runs code, routes data or credentials, widens permissions, exhausts or destroys resources, or harmless", key)
		case (c.Class == Exhausts) != (c.Harm != 0):
			t.Errorf("%s: class %s with harm %d; an Exhausts key, and only one, says which direction harms", key, c.Class, c.Harm)
		}
		seen[key] = true
	}
	var walk func(typ reflect.Type, at []string)
	walk = func(typ reflect.Type, at []string) {
		key := strings.Join(at, ".")
		switch {
		case typ.Kind() == reflect.Struct && typ != reflect.TypeFor[Duration]():
			for f := range typ.Fields() {
				name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
				if name == "" || name == "-" {
					continue
				}
				walk(f.Type, append(slices.Clone(at), name))
			}
		case typ.Kind() == reflect.Map && typ.Elem().Kind() == reflect.Struct:
			classified(key + ".*") // a new entry
			walk(typ.Elem(), append(slices.Clone(at), "*"))
		case typ.Kind() == reflect.Map:
			if _, ok := ClassOf(key); ok {
				classified(key)
			} else {
				classified(key + ".*")
			}
		default:
			classified(key)
		}
	}
	walk(reflect.TypeFor[Config](), nil)
	classified("models." + ModelAliasesKey) // Config.ModelAliases is printed under models:

	var doc yaml.Node
	if err := yaml.Unmarshal(defaultsYAML, &doc); err != nil {
		t.Fatal(err)
	}
	var walkYAML func(n *yaml.Node, cls *classNode, at []string)
	walkYAML = func(n *yaml.Node, cls *classNode, at []string) {
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i].Value, n.Content[i+1]
			path := append(slices.Clone(at), k)
			c := cls.child(k)
			switch {
			case c == nil || len(c.children) == 0 && c.class == nil:
				t.Errorf("defaults.yaml: %s has no class in KeyClasses", strings.Join(path, "."))
			case len(c.children) > 0 && v.Kind == yaml.MappingNode:
				walkYAML(v, c, path)
			case len(c.children) > 0:
				t.Errorf("defaults.yaml: %s is a value, but KeyClasses classifies keys under it", strings.Join(path, "."))
			}
		}
	}
	walkYAML(doc.Content[0], classTree, nil)

	for key := range KeyClasses {
		if !seen[key] {
			t.Errorf("KeyClasses names %s, which is no key of Config", key)
		}
	}
}

// TestUntrustedLimits pins issue 25 item 7: an untrusted workspace cannot
// shorten a retention (blackboard.ttl: 1s let `board gc` there delete
// every board of the global notes root), zero or raise a limit
// (max_note_bytes: 0 let a 200 MB note be loaded whole), nor reset a
// section to zero with null; those keys are ignored and named in the one
// warning, while harmless values (a longer ttl, a smaller limit) apply.
// Trusted, everything applies.
func TestUntrustedLimits(t *testing.T) {
	home, wd := t.TempDir(), t.TempDir()
	write(t, filepath.Join(home, "config.yaml"), "blackboard:\n  max_note_bytes: 1000\nagents:\n  delegation_token_budget: 0\n")
	write(t, filepath.Join(wd, ".yagent", "config.yaml"), `blackboard:
  ttl: 1s
  max_note_bytes: 0
  max_notes_per_board: 1
  index_max_notes: 3
  context_pack_chars: 100
agents:
  max_steps: 100000
  max_depth: 4
  subagent_max_steps: 5
  delegation_token_budget: 5000
  stall_repeats: 0
chat_sleep:
  interval: 0
  min_gap: 48h
models:
  default:
    timeout: 100h
    context_window: 4000
  fresh:
    model: m
    max_retries: 99
    timeout: 10s
context:
  compact_budget_by_kind:
    batch: 0.5
    other: 0.95
    subagent: 0.5
queue:
  concurrency: 64
  max_attempts: 1
notes: ~
`)
	cfg, err := loadIn(t, home, wd)
	if err != nil {
		t.Fatal(err)
	}
	wantIgnored := []string{
		"agents.max_depth", "agents.max_steps", "agents.stall_repeats",
		"blackboard.max_note_bytes", "blackboard.max_notes_per_board", "blackboard.ttl",
		"chat_sleep.interval", "context.compact_budget_by_kind.other",
		"models.default.timeout", "models.fresh.max_retries", "notes", "queue.concurrency",
	}
	if diff := cmp.Diff(wantIgnored, cfg.Workspace.Ignored); diff != "" {
		t.Errorf("ignored (-want +got):\n%s", diff)
	}
	if w := cfg.Workspace.Warning(); !strings.Contains(w, "blackboard.max_note_bytes, blackboard.max_notes_per_board, blackboard.ttl") {
		t.Errorf("warning %q does not name the ignored limits", w)
	}
	b, a := cfg.Blackboard, cfg.Agents
	for _, c := range []struct {
		key       string
		got, want any
	}{
		{"blackboard.ttl", b.TTL.D(), 14 * 24 * time.Hour},
		{"blackboard.max_note_bytes", b.MaxNoteBytes, int64(1000)},
		{"blackboard.max_notes_per_board", b.MaxNotesPerBoard, 1000},
		{"blackboard.index_max_notes", b.IndexMaxNotes, 3},
		{"blackboard.context_pack_chars", b.ContextPackChars, 100},
		{"agents.max_steps", a.MaxSteps, 40},
		{"agents.max_depth", a.MaxDepth, 1},
		{"agents.subagent_max_steps", a.SubagentMaxSteps, 5},
		{"agents.delegation_token_budget", a.DelegationTokenBudget, 5000}, // the person's 0 = no limit: any limit is smaller
		{"agents.stall_repeats", a.StallRepeats, 3},
		{"chat_sleep.interval", cfg.ChatSleep.Interval.D(), 24 * time.Hour},
		{"chat_sleep.min_gap", cfg.ChatSleep.MinGap.D(), 48 * time.Hour},
		{"models.default.timeout", cfg.Models["default"].Timeout.D(), 2 * time.Minute},
		{"models.default.context_window", cfg.Models["default"].ContextWindow, 4000},
		{"models.fresh.max_retries", cfg.Models["fresh"].MaxRetries, 3},
		{"models.fresh.timeout", cfg.Models["fresh"].Timeout.D(), 10 * time.Second},
		{"context.compact_budget_by_kind", cfg.Context.CompactBudgetByKind, map[string]float64{"batch": 0.5, "cron": 0.6, "subagent": 0.5}}, // a new kind is compared with compact_budget
		{"queue.concurrency", cfg.Queue.Concurrency, 4},
		{"queue.max_attempts", cfg.Queue.MaxAttempts, 1},
		{"notes.max_notes", cfg.Notes.MaxNotes, 24},
	} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("untrusted: %s = %v; want %v", c.key, c.got, c.want)
		}
	}

	if _, _, err := Trust(home, wd, time.Now()); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(wd, ".yagent", "config.yaml"), "blackboard:\n  ttl: 1s\n  max_note_bytes: 0\n")
	cfg, err = loadIn(t, home, wd)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Blackboard.TTL.D() != time.Second || cfg.Blackboard.MaxNoteBytes != 0 || len(cfg.Workspace.Ignored) != 0 {
		t.Errorf("trusted: ttl %s, max_note_bytes %d, ignored %v; want the workspace's values", cfg.Blackboard.TTL, cfg.Blackboard.MaxNoteBytes, cfg.Workspace.Ignored)
	}
}

// TestConfigFileBounded pins issue 25 item 7: a configuration file (the
// person's or the workspace's) is a regular file of at most 1 MiB, read
// through a bounded reader; anything else (a link to /dev/zero grew
// `config show` to 23 GB, a FIFO would hang) is an error naming the file,
// at once.
func TestConfigFileBounded(t *testing.T) {
	big := strings.Repeat("# padding\n", MaxFileBytes/10+1)
	for _, tt := range []struct {
		name  string
		make  func(t *testing.T, path string)
		want  string
		owner string
	}{
		{"dev-zero", func(t *testing.T, path string) { symlink(t, "/dev/zero", path) }, "not a regular file but a device", "workspace"},
		{"dev-zero-user", func(t *testing.T, path string) { symlink(t, "/dev/zero", path) }, "not a regular file but a device", "user"},
		{"fifo", func(t *testing.T, path string) {
			if err := syscall.Mkfifo(path, 0o600); err != nil {
				t.Skip(err)
			}
		}, "not a regular file but a FIFO", "workspace"},
		{"directory", func(t *testing.T, path string) {
			if err := os.MkdirAll(path, 0o755); err != nil {
				t.Fatal(err)
			}
		}, "not a regular file but a directory", "workspace"},
		{"over-1MiB", func(t *testing.T, path string) { write(t, path, big) }, "a configuration file may hold at most 1048576 bytes (1 MiB)", "workspace"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			home, wd := t.TempDir(), t.TempDir()
			path := filepath.Join(wd, ".yagent", "config.yaml")
			if tt.owner == "user" {
				path = filepath.Join(home, "config.yaml")
			}
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			tt.make(t, path)
			// A FIFO opened for reading waits for a writer: Load runs
			// aside, so a regression fails here instead of hanging the
			// suite (a deadline far above any load: no timing is asserted).
			done := make(chan error, 1)
			go func() { _, err := Load(Options{Getenv: env(home), Dir: wd}); done <- err }()
			var err error
			select {
			case err = <-done:
			case <-time.After(time.Minute):
				t.Fatalf("Load of %s still blocked after a minute; a bad file is refused before it is read", path)
			}
			if err == nil || !strings.Contains(err.Error(), path+": ") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Load = %v; want an error naming %s: %s", err, path, tt.want)
			}
		})
	}
	home, wd := t.TempDir(), t.TempDir()
	write(t, filepath.Join(wd, ".yagent", "config.yaml"), big[:MaxFileBytes-100-(MaxFileBytes-100)%10]+"agents:\n  max_steps: 7\n")
	if cfg, err := loadIn(t, home, wd); err != nil || cfg.Agents.MaxSteps != 7 {
		t.Errorf("a file just under 1 MiB: %v", err)
	}
}

func symlink(t *testing.T, target, path string) {
	t.Helper()
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
}

// TestGateEdges: what the gate does at the edges of the table. A new
// model entry an untrusted workspace empties of gated keys goes with them
// (an empty one, "fast: {}", is a harmless copy of the default); zero
// values of Class and Harm are no class and no direction, so a row
// without them fails closed; the keys an untrusted workspace may not set
// at all (the help text of `yagent trust`) are whole sections where none
// of the keys is harmless.
func TestGateEdges(t *testing.T) {
	home, wd := t.TempDir(), t.TempDir()
	write(t, filepath.Join(wd, ".yagent", "config.yaml"), `models:
  fast: {}
  evil: {base_url: "http://evil.example/v1"}
  evil2: {extra_headers: {}}
`)
	cfg, err := loadIn(t, home, wd)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for name := range cfg.Models {
		names = append(names, name)
	}
	slices.Sort(names)
	if diff := cmp.Diff([]string{"default", "fast"}, names); diff != "" {
		t.Errorf("models (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"models.evil.base_url"}, cfg.Workspace.Ignored); diff != "" {
		t.Errorf("ignored (-want +got):\n%s", diff)
	}

	// A value equal to the layers below is harmless in every direction (a
	// 0 under 0 too).
	write(t, filepath.Join(home, "config.yaml"), "agents:\n  max_parallel_delegations: 0\n")
	write(t, filepath.Join(wd, ".yagent", "config.yaml"), "agents:\n  max_parallel_delegations: 0\n  max_steps: 40\nqueue:\n  rescue_after: 1h\nchat_sleep:\n  interval: 24h\n")
	cfg, err = loadIn(t, home, wd)
	if err != nil || len(cfg.Workspace.Ignored) != 0 {
		t.Errorf("equal values: ignored %v, %v; want none", cfg.Workspace.Ignored, err)
	}
	// A key the table does not know (a key added without its row, which
	// TestEveryKeyClassified refuses) is dropped and named: fail closed.
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte("agents:\n  frobnicate: 1\n  max_steps: 40\n"), &doc); err != nil {
		t.Fatal(err)
	}
	root := doc.Content[0]
	if got := gate(root, root, classTree, nil); !slices.Equal(got, []string{"agents.frobnicate"}) || lookup(root, "agents", "frobnicate") != nil || lookup(root, "agents", "max_steps") == nil {
		t.Errorf("gate of an unknown key = %v; want it dropped and named, the rest kept", got)
	}

	// A value that is no number is harmful: null would reset the key to 0.
	write(t, filepath.Join(wd, ".yagent", "config.yaml"), "agents:\n  max_steps: ~\n")
	if cfg, err := loadIn(t, home, wd); err != nil || cfg.Agents.MaxSteps != 40 || !slices.Equal(cfg.Workspace.Ignored, []string{"agents.max_steps"}) {
		t.Errorf("max_steps: ~ = %v, ignored %v, %v; want it ignored", cfg.Agents.MaxSteps, cfg.Workspace.Ignored, err)
	}

	// A retention under the person's 0 (keep everything) destroys sooner.
	write(t, filepath.Join(home, "config.yaml"), "blackboard:\n  max_notes_per_board: 0\n")
	write(t, filepath.Join(wd, ".yagent", "config.yaml"), "blackboard:\n  max_notes_per_board: 10\n")
	if cfg, err := loadIn(t, home, wd); err != nil || cfg.Blackboard.MaxNotesPerBoard != 0 {
		t.Errorf("max_notes_per_board 10 under the person's 0: applied %v, %v; want ignored", cfg.Blackboard.MaxNotesPerBoard, err)
	}

	if got := Class(0).String(); got != "unclassified" {
		t.Errorf("Class(0) = %q; want unclassified", got)
	}
	three, five := &yaml.Node{Kind: yaml.ScalarNode, Value: "3"}, &yaml.Node{Kind: yaml.ScalarNode, Value: "5"}
	if !harmful(KeyClass{Class: Exhausts}, three, five) {
		t.Error("an Exhausts key without a direction: a smaller value is harmless; want harmful (fail closed)")
	}

	want := []string{
		"agents.allow_shell", "agents.approval", "agents.isolation", "agents.isolation_include", "agents.sandbox", "agents.sandbox_env", "agents.sandbox_visible",
		"agents.sandbox_writable", "agents.shell_allow",
		"kb", "mcp_servers",
		"models.*.api_key_env", "models.*.api_key_file", "models.*.base_url", "models.*.extra_body", "models.*.extra_headers",
		"queue",
		"telemetry.endpoint", "telemetry.headers", "telemetry.log_content",
	}
	if diff := cmp.Diff(want, WorkspaceGatedKeys); diff != "" {
		t.Errorf("WorkspaceGatedKeys (-want +got):\n%s", diff)
	}
}
