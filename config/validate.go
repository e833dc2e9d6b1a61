package config

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/yagent/yagent/internal/shellprefix"
)

var (
	serverName  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z0-9_-]+$`) })
	envName     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })
	shellPrefix = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[A-Za-z0-9_./:=+,@%-]+( +[A-Za-z0-9_./:=+,@%-]+)*$`)
	})
)

// layer is one parsed configuration file.
type layer struct {
	file string
	root *yaml.Node
}

// problem is a value that parses but makes no sense.
type problem struct {
	key string // dotted path
	msg string
}

// validate checks values that decode fine but cannot work, and names the
// file and line that set each one (the last layer that has the key).
func (c *Config) validate(layers []layer) error {
	var ps []problem
	check := func(ok bool, key, format string, args ...any) {
		if !ok {
			ps = append(ps, problem{key, fmt.Sprintf(format, args...)})
		}
	}
	a := c.Agents
	check(a.Isolation == "auto" || a.Isolation == "none" || a.Isolation == "worktree", "agents.isolation", "want auto, none or worktree, got %q", a.Isolation)
	for i, p := range a.IsolationInclude {
		clean := filepath.Clean(p)
		check(p != "" && !filepath.IsAbs(p) && clean != "." && clean != ".." && !strings.HasPrefix(clean, ".."+string(filepath.Separator)),
			"agents.isolation_include", "entry %d, %q: want a path inside the workspace, relative to it (e.g. node_modules)", i+1, p)
	}
	check(a.IsolationMaxBytes >= 0, "agents.isolation_max_bytes", "want 0 or more (0 = no bound), got %d", a.IsolationMaxBytes)
	check(a.TailRole == "user" || a.TailRole == "system", "agents.tail_role", "want user or system, got %q", a.TailRole)
	check(a.OnBackgroundDone == "report" || a.OnBackgroundDone == "wait", "agents.on_background_done", "want report or wait, got %q", a.OnBackgroundDone)
	check(slices.Contains([]string{"untrusted", "on-request", "never"}, a.Approval), "agents.approval", "want untrusted, on-request or never, got %q", a.Approval)
	check(slices.Contains([]string{"workspace-write", "read-only", "off"}, a.Sandbox), "agents.sandbox", "want workspace-write, read-only or off, got %q", a.Sandbox)
	if roots, err := a.SandboxRoots(); err != nil {
		check(false, "agents.sandbox_writable", "%v", err)
	} else {
		for i, r := range roots {
			_, err := os.Stat(r)
			check(filepath.IsAbs(r), "agents.sandbox_writable", "%q: want an absolute path or ~/…", a.SandboxWritable[i])
			check(!filepath.IsAbs(r) || err == nil, "agents.sandbox_writable", "%s does not exist: create it or remove it from the list", r)
		}
	}
	if paths, err := a.SandboxVisiblePaths(); err != nil {
		check(false, "agents.sandbox_visible", "%v", err)
	} else {
		for i, p := range paths {
			check(filepath.IsAbs(p), "agents.sandbox_visible", "%q: want an absolute path or ~/…", a.SandboxVisible[i])
		}
	}
	for i, name := range a.SandboxEnv {
		check(envName().MatchString(name), "agents.sandbox_env", "entry %d, %q: want a variable name (letters, digits, _), e.g. GOFLAGS", i+1, name)
	}
	for i, prefix := range a.ShellAllow {
		if !shellPrefix().MatchString(prefix) {
			check(false, "agents.shell_allow",
				"entry %d, %q: want a command prefix of plain words (letters, digits and - _ . / : = + , @ %%), e.g. \"go test\"; shell operators and quotes never match", i+1, prefix)
		} else if why := shellprefix.Prefix(strings.Fields(prefix)); why != "" {
			check(false, "agents.shell_allow",
				"entry %d, %q: may not be approved for good: %s (a prefix approves every command that begins with it); remove it or list a narrower prefix", i+1, prefix, why)
		}
	}
	n := c.Notes
	for key, v := range map[string]int{"agents.max_steps": a.MaxSteps, "agents.subagent_max_steps": a.SubagentMaxSteps, "agents.max_depth": a.MaxDepth,
		"context.keep_recent_turns": c.Context.KeepRecentTurns, "notes.max_note_chars": n.MaxNoteChars,
		"notes.compact_target_chars": n.CompactTargetChars, "notes.max_notes": n.MaxNotes} {
		check(v >= 1, key, "want 1 or more, got %d", v)
	}
	t := c.ChatSleep.Tools
	for key, v := range map[string]int{"agents.max_parallel_delegations": a.MaxParallelDelegations, "agents.parallel_tools": a.ParallelTools,
		"agents.max_delegations_per_turn": a.MaxDelegationsPerTurn, "agents.delegation_token_budget": a.DelegationTokenBudget,
		"agents.stall_repeats": a.StallRepeats, "blackboard.index_max_notes": c.Blackboard.IndexMaxNotes, "blackboard.index_line_chars": c.Blackboard.IndexLineChars,
		"blackboard.max_notes_per_board": c.Blackboard.MaxNotesPerBoard, "blackboard.context_pack_chars": c.Blackboard.ContextPackChars,
		"context.turn_squeeze_percent": c.Context.TurnSqueezePercent, "context.wrap_up_reserve_tokens": c.Context.WrapUpReserveTokens,
		"chat_sleep.max_parallel": c.ChatSleep.MaxParallel, "chat_sleep.tools.min_turns": t.MinTurns, "chat_sleep.tools.thin_turns": t.ThinTurns,
		"chat_sleep.tools.max_hide_per_night": t.MaxHidePerNight, "notes.index_enter_chars": n.IndexEnterChars, "notes.index_enter_notes": n.IndexEnterNotes,
		"notes.index_leave_chars": n.IndexLeaveChars, "notes.index_leave_notes": n.IndexLeaveNotes, "notes.compact_chars": n.CompactChars,
		"notes.compact_notes": n.CompactNotes, "notes.pinned_chars": n.PinnedChars, "notes.pinned_max": n.PinnedMax} {
		check(v >= 0, key, "want 0 or more (defaults.yaml says what 0 means), got %d", v)
	}
	check(c.Blackboard.MaxNoteBytes >= 0, "blackboard.max_note_bytes", "want 0 or more (0 = no limit), got %d", c.Blackboard.MaxNoteBytes)
	check(c.Context.CompactBudget >= 0 && c.Context.CompactBudget <= 1, "context.compact_budget", "want a share of the window between 0 (off) and 1, got %g", c.Context.CompactBudget)
	for kind, b := range c.Context.CompactBudgetByKind {
		check(b > 0 && b <= 1, "context.compact_budget_by_kind."+kind, "want a share of the window between 0 and 1, got %g", b)
	}
	check(c.ChatSleep.Tools.BudgetPercent >= 0 && c.ChatSleep.Tools.BudgetPercent <= 100, "chat_sleep.tools.budget_percent", "want a percentage, got %g", c.ChatSleep.Tools.BudgetPercent)
	check(n.IndexLeaveChars <= n.IndexEnterChars, "notes.index_leave_chars", "must not be above notes.index_enter_chars (%d), or the mode would flip every turn", n.IndexEnterChars)
	check(n.IndexLeaveNotes <= n.IndexEnterNotes, "notes.index_leave_notes", "must not be above notes.index_enter_notes (%d)", n.IndexEnterNotes)
	check(c.Budget.MaxCost >= 0, "budget.max_cost", "want US dollars of 0 or more (0 = no cap), got %g", c.Budget.MaxCost)
	check(c.Budget.MaxTokens >= 0, "budget.max_tokens", "want tokens of 0 or more (0 = no cap), got %d", c.Budget.MaxTokens)
	for name, m := range c.Models {
		check(m.Provider == "" || slices.Contains(Providers, m.Provider), "models."+name+".provider", "unknown provider %q: want one of %s, or leave it out to guess from base_url", m.Provider, strings.Join(Providers, ", "))
		check(slices.Contains(APIs, m.API), "models."+name+".api", "unknown API %q: want chat (Chat Completions) or responses (the Responses API)", m.API)
		check(m.APIKeyFile == "" || keyFileName().MatchString(m.APIKeyFile), "models."+name+".api_key_file", "want a file name in %s (letters, digits, '.', '_', '-'), got %q", KeyDir("$YAGENT_HOME"), m.APIKeyFile)
		check(m.ContextWindow >= 1, "models."+name+".context_window", "want the model's window in tokens, got %d", m.ContextWindow)
		check(m.Price.Input >= 0 && m.Price.CachedInput >= 0 && m.Price.Output >= 0, "models."+name+".price", "want prices of at least 0 (US dollars per million tokens), got %+v", m.Price)
		check(m.MaxRetries >= 0, "models."+name+".max_retries", "want 0 or more, got %d", m.MaxRetries)
		check(m.Timeout.D() > 0, "models."+name+".timeout", "want a duration above 0, got %s", m.Timeout)
	}
	for name, srv := range c.MCPServers {
		if !serverName().MatchString(name) {
			check(false, "mcp_servers", "server name %q: use letters, digits, '_' and '-' (it becomes part of its tools' names)", name)
			continue
		}
		key := "mcp_servers." + name
		if p := srv.problem(); p != "" {
			check(false, key, "%s", p)
		}
		check(srv.Timeout.D() > 0, key+".timeout", "want a duration above 0, got %s", srv.Timeout)
		for i, tool := range srv.Allow {
			check(tool == "*" || tool != "", key+".allow", "entry %d is empty: want a tool name of the server, or \"*\" for all", i+1)
		}
	}
	check(c.KB.DSN == "" || strings.HasPrefix(c.KB.DSN, "postgres://") || strings.HasPrefix(c.KB.DSN, "postgresql://"),
		"kb.dsn", "want a postgres:// URL such as postgres://user@host:5432/db, got %q", maskPassword(c.KB.DSN))
	check(c.KB.UserMemory == "isolated" || c.KB.UserMemory == "shared", "kb.user_memory", "want isolated or shared, got %q", c.KB.UserMemory)
	if e := c.KB.Embeddings; e.Model != "" {
		_, ok := c.Models[e.Endpoint]
		check(ok, "kb.embeddings.endpoint", "%q is not a model under models: (it serves /embeddings for kb.embeddings.model)", e.Endpoint)
	}
	check(c.Queue.RescueAfter.D() > 0, "queue.rescue_after", "want a duration above 0 (longer than your longest delegation), got %s", c.Queue.RescueAfter)
	check(c.Queue.MaxAttempts >= 1, "queue.max_attempts", "want 1 or more, got %d", c.Queue.MaxAttempts)
	check(c.Queue.Lease.D() >= time.Second, "queue.lease", "want a duration of 1s or more (30s is the default), got %s", c.Queue.Lease)
	check(c.Queue.WorkerTimeout.D() >= time.Second, "queue.worker_timeout", "want a duration of 1s or more (30s is the default), got %s", c.Queue.WorkerTimeout)
	check(c.Queue.WorkerTimeout.D() < c.Queue.RescueAfter.D(), "queue.worker_timeout",
		"%s is not below queue.rescue_after (%s): worker_timeout is how long a worker may miss its heartbeats before its jobs go to another worker, rescue_after the longest a delegation may run; lower worker_timeout (30s is the default) or raise rescue_after",
		c.Queue.WorkerTimeout, c.Queue.RescueAfter)
	check(c.Queue.Concurrency >= 1, "queue.concurrency", "want 1 or more, got %d", c.Queue.Concurrency)
	tel := c.Telemetry
	if tel.Endpoint != "" {
		msg := CheckOTLPEndpoint(tel.Endpoint)
		check(msg == "", "telemetry.endpoint", "%s", msg)
	}
	check(tel.ExportTimeout.D() > 0, "telemetry.export_timeout", "want a duration above 0, got %s", tel.ExportTimeout)
	check(tel.ShutdownTimeout.D() >= 0, "telemetry.shutdown_timeout", "want 0 or more, got %s", tel.ShutdownTimeout)
	check(tel.QueueSize >= 1, "telemetry.queue_size", "want 1 or more, got %d", tel.QueueSize)
	if len(ps) == 0 {
		return nil
	}
	slices.SortFunc(ps, func(x, y problem) int { return strings.Compare(x.key, y.key) })
	var errs Errors
	for _, p := range ps {
		e := &Error{File: "built-in defaults", Key: p.key, Msg: p.msg}
		for i := len(layers) - 1; i >= 0; i-- {
			if node := lookup(layers[i].root, strings.Split(p.key, ".")...); node != nil {
				e.File, e.Line = layers[i].file, node.Line
				break
			}
		}
		errs = append(errs, e)
	}
	return errs
}

// maskPassword hides the password of a URL-shaped DSN in a message.
func maskPassword(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil || u.User == nil {
		return dsn
	}
	if _, ok := u.User.Password(); !ok {
		return dsn
	}
	u.User = url.UserPassword(u.User.Username(), "xxx")
	return strings.Replace(u.String(), ":xxx@", ":***@", 1)
}
