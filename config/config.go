// Package config loads yagent's YAML configuration.
//
// Defaults live in defaults.yaml (embedded, printed by `yagent config
// show`). Each layer is decoded over the same value, so a key that is absent
// from a file keeps the value of the layer below, and a key that is present
// wins even when it is zero: valves are decided by key presence, not by zero
// values. Unknown keys and wrong types are errors naming file, line and key.
package config

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"

	"gopkg.in/yaml.v3"
)

//go:embed defaults.yaml
var defaultsYAML []byte

// Config is the effective configuration.
type Config struct {
	Models     map[string]Model     `yaml:"models" json:"models"`
	Blackboard Blackboard           `yaml:"blackboard" json:"blackboard"`
	Notes      Notes                `yaml:"notes" json:"notes"`
	Context    Context              `yaml:"context" json:"context"`
	ChatSleep  ChatSleep            `yaml:"chat_sleep" json:"chat_sleep"`
	Toolsets   map[string][]string  `yaml:"toolsets" json:"toolsets"`
	Agents     Agents               `yaml:"agents" json:"agents"`
	MCPServers map[string]MCPServer `yaml:"mcp_servers" json:"mcp_servers"`
	KB         KB                   `yaml:"kb" json:"kb"`
	Queue      Queue                `yaml:"queue" json:"queue"`
	Budget     Budget               `yaml:"budget" json:"budget"`
	Telemetry  Telemetry            `yaml:"telemetry" json:"telemetry"`

	// ModelAliases maps the model names agent files use (sonnet, opus,
	// haiku, full Claude ids…) to a name under models: or a raw model id;
	// it is models.aliases in the files (see MarshalYAML).
	ModelAliases map[string]string `yaml:"-" json:"-"`

	// Derived from the environment; never read from files. (Where boards
	// live is blackboard.NotesRootDir's to say.)
	Home    string   `yaml:"-" json:"-"`
	Sources []string `yaml:"-" json:"-"`
	// UserHome is $HOME ("" when unset): agent definitions are read from
	// its .claude/agents/ too.
	UserHome string `yaml:"-" json:"-"`
	// Notices are lines for the person about what was assumed: a model
	// whose context window neither a file nor the table of known models
	// says (WindowNotice).
	Notices []string `yaml:"-" json:"-"`
	// Workspace says whether the working directory's own file was trusted
	// and which of its keys were ignored (KeyClasses).
	Workspace Workspace `yaml:"-" json:"-"`
}

// Model is one named model endpoint.
type Model struct {
	BaseURL   string `yaml:"base_url" json:"base_url"`
	APIKeyEnv string `yaml:"api_key_env" json:"api_key_env"`
	// APIKeyFile names a file in $YAGENT_HOME/keys/ holding the key (a
	// key pasted into yagent setup), read when APIKeyEnv names no set
	// variable.
	APIKeyFile    string   `yaml:"api_key_file" json:"api_key_file"`
	Model         string   `yaml:"model" json:"model"`
	ContextWindow int      `yaml:"context_window" json:"context_window"`
	Timeout       Duration `yaml:"timeout" json:"timeout"`
	MaxRetries    int      `yaml:"max_retries" json:"max_retries"`
	// Provider names the provider profile (Providers); "" guesses it
	// from base_url.
	Provider string `yaml:"provider" json:"provider"`
	// API is chat (Chat Completions) or responses (the Responses API).
	API             string `yaml:"api" json:"api"`
	ReasoningEffort string `yaml:"reasoning_effort" json:"reasoning_effort"`
	// APIVersion is Azure's api-version query parameter ("" = none).
	APIVersion string `yaml:"api_version" json:"api_version"`
	// ExtraBody, ExtraHeaders and DropParams are the escape hatches: request
	// fields added or replaced, headers added (a value "${VAR}" is read
	// from the environment), request fields removed.
	ExtraBody    map[string]any    `yaml:"extra_body" json:"extra_body"`
	ExtraHeaders map[string]string `yaml:"extra_headers" json:"extra_headers"`
	DropParams   []string          `yaml:"drop_params" json:"drop_params"`
	// Price turns tokens into money on the interactive status line.
	Price Price `yaml:"price" json:"price"`

	// KeysDir is $YAGENT_HOME/keys, where APIKeyFile is read (set by Load).
	KeysDir string `yaml:"-" json:"-"`
}

// Price is a model's price in US dollars per million tokens; all zero =
// unknown (no cost is shown).
type Price struct {
	Input       float64 `yaml:"input" json:"input"`
	CachedInput float64 `yaml:"cached_input" json:"cached_input"`
	Output      float64 `yaml:"output" json:"output"`
}

// Providers are the values models.<name>.provider accepts ("" guesses
// from base_url); llm's profile table has one row for each
// (TestProvidersMatchProfiles in package llm keeps them in step).
var Providers = []string{"openai", "azure", "openrouter", "deepseek", "moonshot", "gemini", "mistral", "groq",
	"anthropic-compat", "ollama", "vllm", "llamacpp", "lmstudio", "generic"}

// APIs are the values models.<name>.api accepts.
var APIs = []string{"chat", "responses"}

// ModelAliasesKey is the key under models: that holds aliases, not a model.
const ModelAliasesKey = "aliases"

// Headers returns ExtraHeaders with "${VAR}" values read through getenv,
// so a secret header stays out of the files.
func (m Model) Headers(getenv func(string) string) map[string]string {
	if len(m.ExtraHeaders) == 0 {
		return nil
	}
	out := make(map[string]string, len(m.ExtraHeaders))
	for k, v := range m.ExtraHeaders {
		if name, ok := strings.CutPrefix(v, "${"); ok && strings.HasSuffix(name, "}") {
			v = getenv(strings.TrimSuffix(name, "}"))
		}
		out[k] = v
	}
	return out
}

// SecretHeaders returns the values of the ExtraHeaders read from the
// environment ("${VAR}"): credentials the model client scrubs from every
// error (llm.EndpointConfig.Secrets).
func (m Model) SecretHeaders(getenv func(string) string) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(m.ExtraHeaders)) {
		v := m.ExtraHeaders[k]
		if name, ok := strings.CutPrefix(v, "${"); ok && strings.HasSuffix(name, "}") {
			if s := getenv(strings.TrimSuffix(name, "}")); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

// MarshalYAML prints the model aliases under models:, where a file sets
// them, so `config show` stays a valid configuration file.
func (c Config) MarshalYAML() (any, error) {
	type plain Config
	var n yaml.Node
	if err := n.Encode(plain(c)); err != nil {
		return nil, err
	}
	if models := lookup(&n, "models"); models != nil && models.Kind == yaml.MappingNode {
		var a yaml.Node
		aliases := c.ModelAliases
		if aliases == nil {
			aliases = map[string]string{}
		}
		if err := a.Encode(aliases); err != nil {
			return nil, err
		}
		models.Content = append(models.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: ModelAliasesKey}, &a)
	}
	return &n, nil
}

// MarshalJSON puts the model aliases under "models" as MarshalYAML does.
func (c Config) MarshalJSON() ([]byte, error) {
	type plain Config
	models := make(map[string]any, len(c.Models)+1)
	for k, v := range c.Models {
		models[k] = v
	}
	aliases := c.ModelAliases
	if aliases == nil {
		aliases = map[string]string{}
	}
	models[ModelAliasesKey] = aliases
	return json.Marshal(struct {
		plain
		Models map[string]any `json:"models"`
	}{plain(c), models})
}

// APIKey reads the model's key from its environment variable.
func (m Model) APIKey(getenv func(string) string) string {
	if m.APIKeyEnv != "" {
		if v := getenv(m.APIKeyEnv); v != "" {
			return v
		}
	}
	if m.APIKeyFile == "" || m.KeysDir == "" || !keyFileName().MatchString(m.APIKeyFile) {
		return ""
	}
	b, err := os.ReadFile(filepath.Join(m.KeysDir, m.APIKeyFile))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// KeyDir is where api_key_file names a file: $YAGENT_HOME/keys.
func KeyDir(home string) string { return filepath.Join(home, "keys") }

// keyFileName is the shape of an api_key_file: a plain file name.
func keyFileName() *regexp.Regexp { return keyFileRE }

var keyFileRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// Blackboard configures the board (SPEC §5).
type Blackboard struct {
	IndexMaxNotes    int      `yaml:"index_max_notes" json:"index_max_notes"`
	IndexLineChars   int      `yaml:"index_line_chars" json:"index_line_chars"`
	TTL              Duration `yaml:"ttl" json:"ttl"`
	MaxNotesPerBoard int      `yaml:"max_notes_per_board" json:"max_notes_per_board"`
	ContextPackChars int      `yaml:"context_pack_chars" json:"context_pack_chars"`
	// MaxNoteBytes is the largest note loaded whole; larger ones are
	// listed as oversized and only read in pages (0 = no limit).
	MaxNoteBytes int64 `yaml:"max_note_bytes" json:"max_note_bytes"`
}

// Notes configures the lead's notebook (SPEC §7).
type Notes struct {
	Enabled            bool   `yaml:"enabled" json:"enabled"`
	Model              string `yaml:"model" json:"model"`
	MaxNoteChars       int    `yaml:"max_note_chars" json:"max_note_chars"`
	IndexEnterChars    int    `yaml:"index_enter_chars" json:"index_enter_chars"`
	IndexEnterNotes    int    `yaml:"index_enter_notes" json:"index_enter_notes"`
	IndexLeaveChars    int    `yaml:"index_leave_chars" json:"index_leave_chars"`
	IndexLeaveNotes    int    `yaml:"index_leave_notes" json:"index_leave_notes"`
	CompactChars       int    `yaml:"compact_chars" json:"compact_chars"`
	CompactNotes       int    `yaml:"compact_notes" json:"compact_notes"`
	CompactTargetChars int    `yaml:"compact_target_chars" json:"compact_target_chars"`
	MaxNotes           int    `yaml:"max_notes" json:"max_notes"`
	PinnedChars        int    `yaml:"pinned_chars" json:"pinned_chars"`
	PinnedMax          int    `yaml:"pinned_max" json:"pinned_max"`
}

// Context configures history, compaction and pressure (SPEC §6).
type Context struct {
	CompactBudget       float64            `yaml:"compact_budget" json:"compact_budget"`
	CompactBudgetByKind map[string]float64 `yaml:"compact_budget_by_kind" json:"compact_budget_by_kind"`
	SummaryModel        string             `yaml:"summary_model" json:"summary_model"`
	KeepRecentTurns     int                `yaml:"keep_recent_turns" json:"keep_recent_turns"`
	TurnSqueezePercent  int                `yaml:"turn_squeeze_percent" json:"turn_squeeze_percent"`
	WrapUpReserveTokens int                `yaml:"wrap_up_reserve_tokens" json:"wrap_up_reserve_tokens"`
	Pressure            PressureTexts      `yaml:"pressure" json:"pressure"`
}

// PressureTexts are the texts of the [window] line's stages.
type PressureTexts struct {
	Window    string `yaml:"window" json:"window"`
	WrapUp    string `yaml:"wrap_up" json:"wrap_up"`
	Compacted string `yaml:"compacted" json:"compacted"`
}

// CompactBudgetFor returns the compaction budget (share of the window) of a
// session kind; 0 means compaction is off.
func (c Context) CompactBudgetFor(kind string) float64 {
	if c.CompactBudget == 0 {
		return 0
	}
	if b, ok := c.CompactBudgetByKind[kind]; ok {
		return b
	}
	return c.CompactBudget
}

// ChatSleep configures tool curation (SPEC §8).
type ChatSleep struct {
	Enabled     bool           `yaml:"enabled" json:"enabled"`
	Interval    Duration       `yaml:"interval" json:"interval"`
	MinGap      Duration       `yaml:"min_gap" json:"min_gap"`
	RetryAfter  Duration       `yaml:"retry_after" json:"retry_after"`
	MaxParallel int            `yaml:"max_parallel" json:"max_parallel"`
	SkipKinds   []string       `yaml:"skip_kinds" json:"skip_kinds"`
	Tools       SleepToolsStep `yaml:"tools" json:"tools"`
}

// SleepToolsStep configures the tools stage of a sleep.
type SleepToolsStep struct {
	Model           string   `yaml:"model" json:"model"`
	BudgetPercent   float64  `yaml:"budget_percent" json:"budget_percent"`
	MinTurns        int      `yaml:"min_turns" json:"min_turns"`
	ThinTurns       int      `yaml:"thin_turns" json:"thin_turns"`
	Windows         []int    `yaml:"windows" json:"windows"`
	MaxHidePerNight int      `yaml:"max_hide_per_night" json:"max_hide_per_night"`
	Core            []string `yaml:"core" json:"core"`
}

// Agents configures the runtime and delegation (SPEC §3, §4).
type Agents struct {
	MaxSteps               int    `yaml:"max_steps" json:"max_steps"`
	SubagentMaxSteps       int    `yaml:"subagent_max_steps" json:"subagent_max_steps"`
	MaxParallelDelegations int    `yaml:"max_parallel_delegations" json:"max_parallel_delegations"`
	MaxDelegationsPerTurn  int    `yaml:"max_delegations_per_turn" json:"max_delegations_per_turn"`
	MaxDepth               int    `yaml:"max_depth" json:"max_depth"`
	DelegationTokenBudget  int    `yaml:"delegation_token_budget" json:"delegation_token_budget"`
	StallRepeats           int    `yaml:"stall_repeats" json:"stall_repeats"`
	ParallelTools          int    `yaml:"parallel_tools" json:"parallel_tools"`
	TailRole               string `yaml:"tail_role" json:"tail_role"`
	Approval               string `yaml:"approval" json:"approval"`
	AllowShell             bool   `yaml:"allow_shell" json:"allow_shell"`
	// Sandbox is the shell tool's OS sandbox: workspace-write, read-only
	// or off; SandboxWritable are extra roots commands may write under.
	Sandbox         string   `yaml:"sandbox" json:"sandbox"`
	SandboxWritable []string `yaml:"sandbox_writable" json:"sandbox_writable"`
	// SandboxVisible are paths the sandbox hides by default ($YAGENT_HOME,
	// ~/.ssh, $XDG_RUNTIME_DIR …) that commands may read after all.
	SandboxVisible []string `yaml:"sandbox_visible" json:"sandbox_visible"`
	// SandboxEnv are names of variables passed to commands beyond the
	// allow-list (PATH, HOME, LANG …); secrets only when named here.
	SandboxEnv []string `yaml:"sandbox_env" json:"sandbox_env"`
	// ShellAllow are command prefixes (words: "go test", "git status")
	// the shell tool runs without asking, still sandboxed.
	ShellAllow []string `yaml:"shell_allow" json:"shell_allow"`
	// Isolation is how delegations run (issue 28): auto (a worktree for
	// an agent that can write, none for the others), none or worktree.
	Isolation string `yaml:"isolation" json:"isolation"`
	// IsolationInclude are ignored paths (relative to the workspace)
	// copied into a delegation's worktree: node_modules, .env, caches.
	IsolationInclude []string `yaml:"isolation_include" json:"isolation_include"`
	// IsolationMaxBytes bounds the copy of a workspace that is no git
	// repository (a snapshot) and what one checkpoint reads of files new
	// to it; 0 = no bound.
	IsolationMaxBytes int64 `yaml:"isolation_max_bytes" json:"isolation_max_bytes"`
	// Checkpoints: the workspace's files are checkpointed before each turn
	// and each applied change, under $YAGENT_HOME/checkpoints (yagent
	// rewind, /rewind).
	Checkpoints bool `yaml:"checkpoints" json:"checkpoints"`
	// OnBackgroundDone is what an interactive session does when a
	// background delegation lands while the director is idle: report
	// (start a turn that reports it) or wait (the next board index shows
	// it).
	OnBackgroundDone string `yaml:"on_background_done" json:"on_background_done"`
}

// SandboxRoots is agents.sandbox_writable with a leading ~/ expanded to
// the person's home directory.
func (a Agents) SandboxRoots() ([]string, error) {
	return expandHome("agents.sandbox_writable", a.SandboxWritable)
}

// SandboxVisiblePaths is agents.sandbox_visible with a leading ~/
// expanded to the person's home directory.
func (a Agents) SandboxVisiblePaths() ([]string, error) {
	return expandHome("agents.sandbox_visible", a.SandboxVisible)
}

func expandHome(key string, paths []string) ([]string, error) {
	var out []string
	for _, r := range paths {
		if rest, ok := strings.CutPrefix(r, "~/"); ok || r == "~" {
			home, err := os.UserHomeDir()
			if err != nil {
				return nil, fmt.Errorf("%s %s: %w", key, r, err)
			}
			r = filepath.Join(home, rest)
		}
		out = append(out, r)
	}
	return out, nil
}

// MCPServer is an external MCP server whose tools join the registry as
// family mcp_<name>. It is either a command speaking MCP on stdio (Command,
// Args, Env) or a streamable HTTP endpoint (URL, with a bearer token read
// from the environment variable TokenEnv).
type MCPServer struct {
	Command  string            `yaml:"command" json:"command"`
	Args     []string          `yaml:"args" json:"args"`
	Env      map[string]string `yaml:"env" json:"env"`
	URL      string            `yaml:"url" json:"url"`
	TokenEnv string            `yaml:"token_env" json:"token_env"`
	// OAuthClientID is a client registered with the server's
	// authorization server ahead of time, for one that offers no dynamic
	// registration (GitHub's); OAuthClientSecretEnv names the variable
	// holding its secret, when it has one.
	OAuthClientID        string   `yaml:"oauth_client_id" json:"oauth_client_id,omitempty"`
	OAuthClientSecretEnv string   `yaml:"oauth_client_secret_env" json:"oauth_client_secret_env,omitempty"`
	Timeout              Duration `yaml:"timeout" json:"timeout"`
	Enabled              bool     `yaml:"enabled" json:"enabled"`
	// Allow are the server's tools that run without asking (tool names,
	// or "*" for all); the others are asked about like shell commands.
	Allow []string `yaml:"allow" json:"allow"`
	// Headers are sent with every request of a url server. Only a
	// trusted workspace's .mcp.json sets them (Claude Code's headers,
	// their variables expanded), never a YAML file; never printed.
	Headers map[string]string `yaml:"-" json:"-"`
	// Source is the file a server came from when it is not the YAML
	// configuration (a workspace's .mcp.json).
	Source string `yaml:"-" json:"source,omitempty"`
}

// MCPServerDefaults is the name of the mcp_servers entry that is not a
// server but the defaults of every server's absent keys.
const MCPServerDefaults = "*"

// Check reports a server that names neither or both of command and url.
func (s MCPServer) Check(name string) error {
	if p := s.problem(); p != "" {
		return fmt.Errorf("mcp_servers.%s: %s", name, p)
	}
	return nil
}

func (s MCPServer) problem() string {
	switch {
	case s.Command == "" && s.URL == "":
		return "set command (a stdio server) or url (a streamable HTTP server)"
	case s.Command != "" && s.URL != "":
		return "set command or url, not both"
	case s.URL == "" && s.TokenEnv != "":
		return "token_env is for url servers; pass a stdio server its token through env"
	case s.URL == "" && (s.OAuthClientID != "" || s.OAuthClientSecretEnv != ""):
		return "oauth_client_id and oauth_client_secret_env are for url servers"
	case s.OAuthClientSecretEnv != "" && s.OAuthClientID == "":
		return "oauth_client_secret_env needs oauth_client_id (the client the secret belongs to)"
	case s.TokenEnv != "" && s.OAuthClientID != "":
		return "set token_env (a fixed token) or oauth_client_id (OAuth), not both"
	}
	return ""
}

// KB configures the knowledge base (SPEC §9).
type KB struct {
	Enabled bool   `yaml:"enabled" json:"enabled"`
	Path    string `yaml:"path" json:"path"`
	// DSN, when set, puts the knowledge base in PostgreSQL instead of the
	// SQLite file of Path: postgres://user@host:port/database (the
	// password best left to PGPASSWORD or ~/.pgpass).
	DSN        string       `yaml:"dsn" json:"dsn"`
	Person     string       `yaml:"person" json:"person"`
	Project    string       `yaml:"project" json:"project"`
	AgentTools []string     `yaml:"agent_tools" json:"agent_tools"`
	Embeddings KBEmbeddings `yaml:"embeddings" json:"embeddings"`
	// UserMemory is isolated or shared: whether what remember_about_user
	// records through a token limited to one project is kept for that
	// project's tokens or shared with every token of the person.
	UserMemory string `yaml:"user_memory" json:"user_memory"`
}

// KBEmbeddings names the embeddings endpoint of hybrid search.
type KBEmbeddings struct {
	Model    string `yaml:"model" json:"model"`
	Endpoint string `yaml:"endpoint" json:"endpoint"`
}

// DBPath is kb.path, or kb.db under home when it is empty.
func (k KB) DBPath(home string) string {
	if k.Path == "" {
		return filepath.Join(home, "kb.db")
	}
	return k.Path
}

// Options locate the configuration files.
type Options struct {
	// Getenv reads the environment; nil means os.Getenv.
	Getenv func(string) string
	// Dir is the working directory whose .yagent/config.yaml is read;
	// empty means the current directory.
	Dir string
}

// Load reads the defaults, the user file and the workspace file, then
// applies environment overrides.
func Load(opts Options) (*Config, error) {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	home, err := HomeDir(getenv)
	if err != nil {
		return nil, err
	}
	wd := opts.Dir
	if wd == "" {
		if wd, err = os.Getwd(); err != nil {
			return nil, fmt.Errorf("config: %w", err)
		}
	}
	merged, err := parseDefaults()
	if err != nil {
		return nil, err
	}
	modelTemplate := lookup(merged, "models", "default")
	cfg := &Config{Home: home, UserHome: getenv("HOME")}
	var layers []layer
	userFile, wsFile := filepath.Join(home, "config.yaml"), filepath.Join(wd, ".yagent", "config.yaml")
	for i, p := range []string{userFile, wsFile} {
		data, err := readFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		var ws Workspace
		isWS := i == 1
		if isWS {
			var own bool
			if ws, own = workspaceLayer(home, wd, wsFile, userFile); own {
				continue // the person's own file, already read
			}
		}
		parsed, err := parseLayer(p, data)
		if err != nil {
			return nil, err
		}
		if isWS {
			if ws.Ignored, err = applyTrust(p, parsed, merged, ws.Trusted); err != nil {
				return nil, err
			}
			cfg.Workspace = ws
		}
		if parsed != nil {
			layers = append(layers, layer{file: p, root: deepCopy(parsed)})
			seedModels(merged, parsed, modelTemplate)
			mergeNodes(merged, parsed)
		}
		cfg.Sources = append(cfg.Sources, p)
	}
	seedServers(merged)
	if cfg.ModelAliases, err = takeAliases(merged); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	if err := merged.Decode(cfg); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	delete(cfg.MCPServers, MCPServerDefaults)
	cfg.applyEnv(getenv)
	cfg.resolveModelFacts(layers)
	for name, m := range cfg.Models {
		m.KeysDir = KeyDir(home)
		cfg.Models[name] = m
	}
	if err := cfg.validate(layers); err != nil {
		return nil, err
	}
	for name := range cfg.Models {
		if strings.TrimSpace(name) == "" {
			return nil, fmt.Errorf("config: models: a model has an empty name")
		}
	}
	return cfg, nil
}

// MaxFileBytes bounds a configuration file: a larger one, or anything but
// a regular file (/dev/zero, a FIFO), is refused before it is read whole.
const MaxFileBytes = 1 << 20

// readFile reads a configuration file through a reader bounded at
// MaxFileBytes, so a file that grows between the check and the read is
// still bounded; it is opened without blocking, so a FIFO does not hang
// the open.
func readFile(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		return nil, &Error{File: path, Msg: fmt.Sprintf("cannot read the configuration file: %v", errors.Unwrap(err))}
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, &Error{File: path, Msg: fmt.Sprintf("cannot read the configuration file: %v", err)}
	}
	if !fi.Mode().IsRegular() {
		return nil, &Error{File: path, Msg: fmt.Sprintf("not a regular file but %s: a configuration file is YAML text; replace it with one or remove it", fileKind(fi.Mode()))}
	}
	tooBig := func(n int64) error {
		return &Error{File: path, Msg: fmt.Sprintf("%d bytes or more: a configuration file may hold at most %d bytes (1 MiB); shorten it", n, MaxFileBytes)}
	}
	if fi.Size() > MaxFileBytes {
		return nil, tooBig(fi.Size())
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, &Error{File: path, Msg: fmt.Sprintf("cannot read the configuration file: %v", err)}
	}
	if len(data) > MaxFileBytes {
		return nil, tooBig(int64(len(data)))
	}
	return data, nil
}

func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeCharDevice != 0, m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "something else"
}

// seedServers gives every mcp_servers entry the keys it lacks from the
// "*" entry (the per-server defaults), after all layers are merged, so a
// key present in any file wins even when it is zero or false.
func seedServers(merged *yaml.Node) {
	servers := lookup(merged, "mcp_servers")
	template := lookup(servers, MCPServerDefaults)
	if template == nil || template.Kind != yaml.MappingNode || servers.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(servers.Content); i += 2 {
		name, srv := servers.Content[i].Value, servers.Content[i+1]
		if name == MCPServerDefaults || srv.Kind != yaml.MappingNode {
			continue
		}
		for j := 0; j+1 < len(template.Content); j += 2 {
			if lookup(srv, template.Content[j].Value) == nil {
				srv.Content = append(srv.Content, deepCopy(template.Content[j]), deepCopy(template.Content[j+1]))
			}
		}
	}
}

// HomeDir returns $YAGENT_HOME, else ~/.yagent.
func HomeDir(getenv func(string) string) (string, error) {
	if h := getenv("YAGENT_HOME"); h != "" {
		return h, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("cannot find the home directory (%v): set YAGENT_HOME", err)
	}
	return filepath.Join(home, ".yagent"), nil
}

func (c *Config) applyEnv(getenv func(string) string) {
	def := c.Models["default"]
	if v := getenv("OPENAI_BASE_URL"); v != "" {
		def.BaseURL = v
	}
	if v := getenv("YAGENT_MODEL"); v != "" {
		def.Model = v
	}
	c.Models["default"] = def
}

// Model returns the named model, or "default" when name is empty.
func (c *Config) Model(name string) (Model, error) {
	if name == "" {
		name = "default"
	}
	m, ok := c.Models[name]
	if !ok {
		return Model{}, fmt.Errorf("model %q is not configured: add it under models: in %s", name, filepath.Join(c.Home, "config.yaml"))
	}
	return m, nil
}
