package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/internal/iostreams"
	"github.com/yagent/yagent/internal/pgtest"
	"github.com/yagent/yagent/kb"
)

// runCLI executes the real command tree in-process with its own home.
func runCLI(t *testing.T, ctx context.Context, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var errOut bytes.Buffer
	code, stdout = runCLIErr(t, ctx, env, &errOut, args...)
	return code, stdout, errOut.String()
}

// runCLIErr is runCLI writing stderr to errOut as it comes (a test may
// watch it while the command runs).
func runCLIErr(t *testing.T, ctx context.Context, env map[string]string, errOut io.Writer, args ...string) (code int, stdout string) {
	t.Helper()
	home := t.TempDir()
	var out bytes.Buffer
	f := NewFactory(&iostreams.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: errOut})
	defer f.Close()
	f.Dir = t.TempDir()
	f.Getenv = func(k string) string {
		if v, ok := env[k]; ok {
			return v
		}
		if k == "YAGENT_HOME" {
			return home
		}
		return ""
	}
	code = execute(ctx, f, args)
	return code, out.String()
}

// exitCase is one command line and the exit code it must end with.
type exitCase struct {
	name   string
	args   []string          // after the command's path
	stdin  string            // "" = empty
	env    map[string]string // on top of the fixture's
	config string            // replaces the fixture's config.yaml
	files  map[string]string // written under the home first
	cancel bool              // the context is cancelled before the start
	badCfg bool              // run against a home whose config.yaml is malformed
	// beside, when set, runs while the command does (a stand-in for
	// another yagent process).
	beside func(ctx context.Context, home string)
	want   int
	// stderr must match: the message names the bad input (so the case
	// cannot pass for another reason).
	stderr string
}

// TestExitCodes runs every command of the tree — walked, so a new command
// cannot be left out — with good input (exit 0, which proves the fixture
// gives it what it needs) and with each kind of bad input that applies
// (exit 2), and with failures (1) and cancellation (130) where a command
// has them. Cases derived from the flags a command has (unknown flag,
// malformed config, a malformed number, an unknown session, --session
// with --last, a bad board id, a missing replay file or directory, an
// unknown toolset, a bad approval policy) are added to the hand-written ones, so a new flag is
// covered too. Every bad-input case checks that stderr names the input.
func TestExitCodes(t *testing.T) {
	fx := newExitFixture(t)
	cases := exitCases(fx)
	seen := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		path := strings.TrimSpace(strings.TrimPrefix(c.CommandPath(), "yagent"))
		seen[path] = true
		cs, ok := cases[path]
		switch {
		case !ok:
			t.Errorf("yagent %s has no exit-code cases: add it to exitCases", path)
		case len(cs) == 0 || cs[0].want != 0:
			t.Errorf("yagent %s: the first case must be good input (exit 0); the derived cases start from it", path)
		default:
			cs = append(cs, derivedCases(c, cs[0])...)
			for _, tc := range cs {
				t.Run(strings.Join(append([]string{path}, tc.name), "/"), func(t *testing.T) { fx.check(t, path, tc) })
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(NewCmdRoot(NewFactory(iostreams.System())))
	for _, path := range slices.Sorted(maps.Keys(cases)) {
		if !seen[path] {
			t.Errorf("exitCases lists %q, which is not a command", path)
		}
	}
}

// derivedCases are the cases every command with these flags must pass,
// built from its good input.
func derivedCases(c *cobra.Command, good exitCase) []exitCase {
	out := []exitCase{{name: "unknown flag", args: append(slices.Clone(good.args), "--no-such-flag"), stdin: good.stdin, want: 2, stderr: "unknown flag: --no-such-flag"}}
	group := c.HasSubCommands() && !c.LocalNonPersistentFlags().HasFlags()
	if !group && c.Annotations[noConfigAnnotation] == "" { // trust and demo read no configuration of yours
		out = append(out, exitCase{name: "malformed config", args: good.args, stdin: good.stdin, env: good.env, badCfg: true, want: 2, stderr: `config\.yaml:1: nope: unknown key`})
	}
	bad := func(name, flag string, stderr string, values ...string) {
		out = append(out, exitCase{name: name, args: withFlag(c, good.args, flag, values...), stdin: good.stdin, env: good.env, want: 2, stderr: stderr})
	}
	c.LocalNonPersistentFlags().VisitAll(func(fl *pflag.Flag) {
		switch {
		case fl.Value.Type() == "int":
			bad("malformed --"+fl.Name, fl.Name, `invalid argument "x" for "--`+fl.Name+`" flag`, "x")
		case fl.Value.Type() == "usd", fl.Value.Type() == "tokens": // --max-cost, --max-tokens
			bad("malformed --"+fl.Name, fl.Name, `invalid argument "x" for "--`+fl.Name+`" flag: "x" is not `, "x")
			bad("negative --"+fl.Name, fl.Name, `invalid argument "-1" for "--`+fl.Name+`" flag: -1: want 0 or more`, "-1")
		case fl.Name == "session":
			bad("unknown session", "session", `no such session "nosuch"`, "nosuch")
		case fl.Name == "board" && fl.Value.Type() == "string":
			bad("bad board id", "board", `invalid board id "\.\./x"`, "../x")
		case fl.Name == "replay":
			bad("missing replay file", "replay", `invalid argument "nosuch\.yaml" for "--replay" flag`, "nosuch.yaml")
		case fl.Name == "cd":
			bad("missing workspace", "cd", `invalid argument "nosuch" for "--cd" flag`, "nosuch")
		case fl.Name == "toolset":
			bad("unknown toolset", "toolset", `--toolset "nosuch" is not configured`, "nosuch")
		case fl.Name == "approval":
			bad("bad approval policy", "approval", `approval policy "sometimes": want untrusted, on-request or never`, "sometimes")
		}
	})
	if c.LocalNonPersistentFlags().Lookup("session") != nil && c.LocalNonPersistentFlags().Lookup("last") != nil {
		out = append(out, exitCase{name: "--session with --last", args: withFlag(c, withFlag(c, good.args, "session", "x"), "last"), want: 2, stderr: `\[last session\] were all set`})
	}
	return out
}

// withFlag returns args with --name set to value (an earlier --name and
// its value removed).
func withFlag(c *cobra.Command, args []string, name string, value ...string) []string {
	takesValue := c.Flags().Lookup(name).Value.Type() != "bool"
	var out []string
	for i := 0; i < len(args); i++ {
		if args[i] == "--"+name {
			if takesValue {
				i++
			}
			continue
		}
		out = append(out, args[i])
	}
	return append(append(out, "--"+name), value...)
}

// exitFixture is a home holding one of everything a command can name: a
// session of the workspace with one turn, its board with a note, a
// notebook note and an archived notebook, a kb project with a note and a
// trashed one, a kb token; and a workspace with a plan, a scenario and
// notes to import. Each case that may have changed the home gets it back
// as it was.
type exitFixture struct {
	dir, home, snapshot, badHome string
	replay, plan, docs           string
	session, ref, token, change  string
	followable                   string // a note whose sub-agent session is kept
	pgDSN                        string // an empty PostgreSQL database; "" without PostgreSQL here
	mcpURL                       string // an MCP server over HTTP that asks for no authorization
}

const exitScenario = `name: exit-codes
steps:
  - id: any
    repeat: true
    match: {}
    reply: {text: "ok"}
`

const exitConfig = "models:\n  default:\n    max_retries: 0\n    timeout: 2s\n"

func newExitFixture(t *testing.T) *exitFixture {
	root := t.TempDir()
	fx := &exitFixture{dir: filepath.Join(root, "work"), home: filepath.Join(root, "home"), snapshot: filepath.Join(root, "snapshot"), badHome: filepath.Join(root, "bad")}
	fx.replay, fx.plan, fx.docs = filepath.Join(fx.dir, "scenario.yaml"), filepath.Join(fx.dir, "plan.yaml"), filepath.Join(fx.dir, "docs")
	for p, data := range map[string]string{
		fx.replay:                                exitScenario,
		fx.plan:                                  "board: fx\ndelegations:\n  - {id: look, agent: explorer, task: Look around.}\n",
		filepath.Join(fx.docs, "deploy.md"):      "# Deploy guide\n\nRun make deploy.\n",
		filepath.Join(fx.docs, "old.md"):         "# Old notes\n\nGone soon.\n",
		filepath.Join(fx.dir, "body.md"):         "the body\n",
		filepath.Join(fx.home, "config.yaml"):    exitConfig,
		filepath.Join(fx.badHome, "config.yaml"): "nope: 1\n",
	} {
		mkfile(t, p, data)
	}
	must := func(stdin string, args ...string) string {
		t.Helper()
		code, stdout, stderr := fx.exec(t, exitCase{args: args, stdin: stdin}, fx.home)
		if code != 0 {
			t.Fatalf("fixture: yagent %s exited %d:\n%s", strings.Join(args, " "), code, stderr)
		}
		return stdout
	}
	must("", "run", "--replay", fx.replay, "--board", "fx", "hello")
	must("Ship it.\n", "notes", "put", "goal", "--description", "the goal")
	fx.ref = strings.TrimSpace(must("", "board", "put", "--board", "fx", "--agent", "explorer", "--body-file", filepath.Join(fx.dir, "body.md")))
	must("", "kb", "projects", "create", "acme/web")
	must("", "kb", "import", fx.docs, "--project", "acme/web")
	fx.token = strings.TrimSpace(must("", "kb", "token", "create", "--name", "claude", "--read"))
	if postgresInstalled() {
		fx.pgDSN = pgtest.New(t)
	}
	fx.session = regexp.MustCompile(`"id": "([^"]+)"`).FindStringSubmatch(must("", "sessions", "ls", "--json"))[1]

	// Trash the imported old.md (n2): only an agent deletes notes.
	f := fx.factory(exitCase{}, fx.home, &bytes.Buffer{}, &bytes.Buffer{})
	store, person, err := f.KBAsPerson(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.DeleteNote(t.Context(), person, kb.DeleteNoteInput{ID: "n2"}); err != nil {
		t.Fatal(err)
	}
	// A writing delegation's pending change (a snapshot: the workspace is no repository).
	board, err := f.Board()
	if err != nil {
		t.Fatal(err)
	}
	meta, err := landChange(t.Context(), board, fx.dir, filepath.Join(fx.home, "worktrees"), "fx", "coder", "body.md", "the new body\n")
	if err != nil {
		t.Fatal(err)
	}
	fx.change = meta.Ref
	// An archived notebook, as a rebuild leaves one, for notes restore.
	st, err := f.Sessions(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.DB.ExecContext(t.Context(), `INSERT INTO chat_notes_archive(chat_id, archived, notes) VALUES (?, 0, '[]')`, fx.session); err != nil {
		t.Fatal(err)
	}
	fx.followable = followableNote(t, st, board, fx.dir, fx.session)
	f.Close()
	if err := os.CopyFS(fx.snapshot, os.DirFS(fx.home)); err != nil {
		t.Fatal(err)
	}
	mcpSrv := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server {
		return sdk.NewServer(&sdk.Implementation{Name: "open"}, nil)
	}, &sdk.StreamableHTTPOptions{Stateless: true}))
	t.Cleanup(mcpSrv.Close)
	fx.mcpURL = mcpSrv.URL
	return fx
}

func mkfile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (fx *exitFixture) factory(tc exitCase, home string, out, errOut *bytes.Buffer) *Factory {
	f := NewFactory(&iostreams.IOStreams{In: strings.NewReader(tc.stdin), Out: out, ErrOut: errOut})
	f.Dir = fx.dir
	env := map[string]string{"YAGENT_HOME": home, "USER": "alice"}
	maps.Copy(env, tc.env)
	f.Getenv = func(k string) string { return env[k] }
	return f
}

// exec runs one command line in-process against home.
func (fx *exitFixture) exec(t *testing.T, tc exitCase, home string) (code int, stdout, stderr string) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	if tc.cancel {
		cancel()
	}
	var out, errOut bytes.Buffer
	f := fx.factory(tc, home, &out, &errOut)
	code = execute(ctx, f, tc.args)
	f.Close()
	return code, out.String(), errOut.String()
}

// check runs a case and restores the home if the case may have changed it.
func (fx *exitFixture) check(t *testing.T, path string, tc exitCase) {
	home := fx.home
	if tc.badCfg {
		home = fx.badHome
	}
	if tc.config != "" {
		mkfile(t, filepath.Join(home, "config.yaml"), tc.config)
	}
	for p, data := range tc.files {
		mkfile(t, filepath.Join(home, p), data)
	}
	args := append(strings.Fields(path), tc.args...)
	for i, a := range args {
		if a == dsnArg { // a fresh PostgreSQL database (skips where there is none)
			args[i] = pgtest.New(t)
		}
	}
	if tc.beside != nil {
		ctx, stop := context.WithCancel(t.Context())
		defer stop()
		go tc.beside(ctx, home)
	}
	code, _, stderr := fx.exec(t, exitCase{args: args, stdin: tc.stdin, env: tc.env, cancel: tc.cancel}, home)
	if home == fx.home && (code != 2 || tc.config != "" || tc.files != nil) {
		if err := os.RemoveAll(fx.home); err != nil {
			t.Fatal(err)
		}
		if err := os.CopyFS(fx.home, os.DirFS(fx.snapshot)); err != nil {
			t.Fatal(err)
		}
	}
	if code != tc.want {
		t.Fatalf("yagent %s exited %d; want %d\nstderr:\n%s", strings.Join(args, " "), code, tc.want, stderr)
	}
	if tc.stderr != "" && !regexp.MustCompile(tc.stderr).MatchString(stderr) {
		t.Errorf("yagent %s: stderr does not match %q:\n%s", strings.Join(args, " "), tc.stderr, stderr)
	}
}

// dsnArg in a case's arguments stands for a fresh PostgreSQL database.
const dsnArg = "{dsn}"

// exitCases lists, for every command, its good input first, then the bad
// input (2), failures (1) and cancellations (130) that are its own.
func exitCases(fx *exitFixture) map[string][]exitCase {
	ok := func(args ...string) exitCase { return exitCase{name: "good input", args: args} }
	bad := func(name, stderr string, args ...string) exitCase {
		return exitCase{name: name, args: args, want: 2, stderr: stderr}
	}
	with := func(tc exitCase, change func(*exitCase)) exitCase { change(&tc); return tc }
	replay := []string{"--replay", fx.replay}
	down := map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "YAGENT_MODEL": "m"}
	noSession := `no such session "nosuch"`
	curationOff := exitCase{name: "curation off", config: "chat_sleep:\n  enabled: false\n", want: 2, stderr: `tool curation is off`}
	notesOff := exitCase{name: "notebook off", config: "notes:\n  enabled: false\n", want: 2, stderr: `the notebook is off`}
	unknownCommand := func(group string) exitCase {
		return bad("unknown subcommand", `unknown command "frobnicate" for "yagent `+group+`"`, "frobnicate")
	}
	return map[string][]exitCase{
		"": {ok(replay...),
			bad("an argument", `unknown command "frobnicate" for "yagent"`, "frobnicate"),
			{name: "no endpoint", want: 2, stderr: `no model endpoint configured`}},
		"chat": {ok(replay...),
			{name: "no endpoint", args: []string{"--max-steps", "3"}, want: 2, stderr: `no model endpoint configured`},
			{name: "cancelled", args: replay, stdin: "hello\n", cancel: true, want: 130}},
		"run": {ok(append(slices.Clone(replay), "hello")...),
			bad("no prompt", `accepts 1 arg\(s\), received 0`),
			bad("--session with --board", `--board applies to a new session`, "--session", fx.session, "--board", "fx", "hello"),
			{name: "no endpoint", args: []string{"hello"}, want: 2, stderr: `no model endpoint configured`},
			{name: "endpoint down", args: []string{"hello"}, env: down, want: 1, stderr: `127\.0\.0\.1:9`},
			{name: "cancelled", args: append(slices.Clone(replay), "hello"), cancel: true, want: 130}},
		"resume": {ok(append(slices.Clone(replay), fx.session, "again")...),
			bad("unknown session", noSession, "nosuch", "x"),
			bad("--last and an id", `--last takes the place of an ID`, "--last", fx.session, "x"),
			bad("no session, no terminal", `give a session id or name, or --last`),
			{name: "endpoint down", args: []string{"--last", "again"}, env: down, want: 1, stderr: `127\.0\.0\.1:9`},
			{name: "cancelled", args: append(slices.Clone(replay), "--last", "again"), cancel: true, want: 130}},
		"setup": {{name: "good input", stdin: "generic\nhttp://127.0.0.1:9/v1\nnone\nm\n"},
			{name: "nobody to ask", want: 2, stderr: `nobody to ask: put this line in`},
			{name: "stopped", stdin: "generic\n", want: 1, stderr: `setup stopped before writing anything`},
			{name: "cancelled", stdin: "generic\n", cancel: true, want: 130}},
		"demo": {ok(),
			bad("an argument", `unknown command "x" for "yagent demo"`, "x"),
			{name: "cancelled", cancel: true, want: 130}},
		"sessions":      {ok(), unknownCommand("sessions")},
		"sessions ls":   {ok(), bad("an argument", `unknown command "x" for "yagent sessions ls"`, "x")},
		"sessions show": {ok(fx.session), bad("unknown session", noSession, "nosuch")},
		"sessions rm":   {ok(fx.session), bad("unknown session", noSession, "nosuch")},
		"rewind": {ok("--session", fx.session, "--conversation-only"),
			bad("a turn never taken", `has turns 1 to 1, not 9`, "--session", fx.session, "--turn", "9"),
			bad("files and conversation only", `\[conversation-only files-only\] were all set`, "--files-only", "--conversation-only")},
		"notes":      {ok(), unknownCommand("notes")},
		"notes ls":   {ok(), notesOff},
		"notes show": {ok("goal"), bad("unknown note", `there is no note "ghost"`, "ghost")},
		"notes put": {{name: "good input", args: []string{"cmd", "--description", "the build"}, stdin: "go build\n"},
			{name: "over the limit", args: []string{"huge", "--description", "too big"}, stdin: strings.Repeat("x", 2100), want: 2, stderr: `split it into two notes`},
			bad("no description", `required flag\(s\) "description" not set`, "cmd")},
		"notes rm":      {ok("goal"), bad("unknown note", `there is no note "ghost"`, "ghost")},
		"notes pin":     {ok("goal"), bad("unknown note", `there is no note "ghost"`, "ghost")},
		"notes restore": {ok(), notesOff},
		"tools":         {ok(), unknownCommand("tools")},
		"tools profile": {ok(), curationOff},
		"tools stats":   {ok("--window", "7"), bad("negative window", `invalid argument "-1" for "--window" flag: want 0 or more`, "--window", "-1")},
		"tools pin":     {ok("grep"), bad("unknown tool", `"no_such_tool" is not a tool of this session`, "no_such_tool")},
		"tools set":     {ok("read_file"), bad("unknown tool", `"no_such_tool" is not a tool of this session`, "no_such_tool"), bad("no tool", `requires at least 1 arg`)},
		"tools reset":   {ok(), curationOff},
		"sleep":         {ok(replay...), with(curationOff, func(c *exitCase) { c.args = replay })},
		"sleep runs":    {ok("--session", fx.session)},
		"batch": {ok(append(slices.Clone(replay), fx.plan)...),
			bad("missing plan", `invalid plan nosuch\.yaml`, "nosuch.yaml"),
			{name: "invalid plan", args: []string{filepath.Join(fx.home, "bad.yaml")}, files: map[string]string{"bad.yaml": "delegations:\n  - {id: a, agent: ghost, task: t}\n"},
				want: 2, stderr: `delegations\[0\]\.agent: unknown agent "ghost"`},
			bad("two boards", `the plan names board "fx" and --board names "other"`, "--board", "other", fx.plan),
			{name: "no endpoint", args: []string{fx.plan}, want: 2, stderr: `no model endpoint configured`},
			{name: "endpoint down", args: []string{fx.plan}, env: down, want: 1, stderr: `did not succeed`},
			{name: "cancelled", args: append(slices.Clone(replay), fx.plan), cancel: true, want: 130},
			bad("queue unreachable", `--queue postgres://u:xxxxx@127\.0\.0\.1:9/db: queue database unreachable`, "--queue", "postgres://u:secret@127.0.0.1:9/db", fx.plan),
			{name: "queue.dsn unreachable", args: []string{fx.plan}, config: exitConfig + "queue:\n  dsn: postgres://u:secret@127.0.0.1:9/db\n", want: 2,
				stderr: `queue\.dsn postgres://u:xxxxx@127\.0\.0\.1:9/db: queue database unreachable`}},
		"worker": {ok("--queue", dsnArg, "--drain"),
			bad("no queue", `no queue: pass --queue`),
			bad("queue unreachable", `--queue postgres://u:xxxxx@127\.0\.0\.1:9/db: queue database unreachable`, "--queue", "postgres://u:secret@127.0.0.1:9/db"),
			{name: "cancelled", args: []string{"--queue", dsnArg}, cancel: true, want: 130}},
		"workers": {ok("--queue", dsnArg),
			bad("no queue", `no queue: pass --queue`),
			bad("queue unreachable", `--queue postgres://u:xxxxx@127\.0\.0\.1:9/db: queue database unreachable`, "--queue", "postgres://u:secret@127.0.0.1:9/db")},
		"agents": {ok(), unknownCommand("agents")},
		"agents ls": {ok(), {name: "broken definition is skipped", files: map[string]string{"agents/broken.md": "---\nname: broken\n---\nx\n"}, want: 0,
			stderr: `broken\.md: description is missing`}},
		"board":        {ok(), unknownCommand("board")},
		"board boards": {ok()},
		"board ls":     {ok("--board", "fx"), bad("unknown board", `no such board "nosuch"`, "--board", "nosuch"), with(ok(), func(tc *exitCase) { tc.name = "the newest session's board" })},
		"board show": {ok(fx.ref, "--board", "fx"),
			bad("bad ref", `bad note ref "\.\./\.\./etc/passwd"`, "../../etc/passwd", "--board", "fx"),
			bad("unknown note", `no such note on this board`, "explorer/20000101T000000Z_abcd-1-000001", "--board", "fx"),
			bad("unknown board", `no such board "nosuch"`, fx.ref, "--board", "nosuch")},
		"board follow-up": {ok(append([]string{fx.followable, "more", "--board", "fx"}, replay...)...),
			bad("unknown note", `no such note on this board`, "explorer/20000101T000000Z_abcd-1-000001", "more", "--board", "fx"),
			bad("no session", `names no sub-agent session`, fx.ref, "more", "--board", "fx"),
			bad("no board", `required flag\(s\) "board" not set`, fx.followable, "more"),
			bad("no message", `accepts 2 arg`, fx.followable, "--board", "fx")},
		"board rerun": {ok(append([]string{fx.followable, "--board", "fx"}, replay...)...),
			bad("unknown note", `no such note on this board`, "explorer/20000101T000000Z_abcd-1-000001", "--board", "fx"),
			bad("no board", `required flag\(s\) "board" not set`, fx.followable),
			bad("a message", `accepts 1 arg`, fx.followable, "more", "--board", "fx")},
		"board cancel": {{name: "good input", args: []string{"explorer/" + bgStem, "--board", "fx"}, files: bgRun(os.Getpid()), beside: fx.landOnCancel},
			bad("landed", `explorer/\S+: it has landed already \(ok\): nothing to cancel`, fx.ref, "--board", "fx"),
			bad("not running", `no running yagent process runs it in the background`, "explorer/"+bgStem, "--board", "fx"),
			{name: "process gone", args: []string{"explorer/" + bgStem, "--board", "fx"}, files: bgRun(1 << 30), want: 2, stderr: `process 1073741824 is gone\): yagent resume s1 recovers it`},
			bad("no board", `required flag\(s\) "board" not set`, "explorer/"+bgStem)},
		"board index": {ok("--board", "fx"), bad("unknown board", `no such board "nosuch"`, "--board", "nosuch")},
		"board put": {ok("--board", "fx", "--agent", "x", "--body-file", filepath.Join(fx.dir, "body.md")),
			bad("bad status", `invalid argument "paused" for "--status" flag`, "--board", "fx", "--agent", "x", "--status", "paused", "--body-file", filepath.Join(fx.dir, "body.md")),
			bad("missing body file", `--body-file: open nosuch`, "--board", "fx", "--agent", "x", "--body-file", "nosuch")},
		"board gc":     {ok("--dry-run")},
		"changes":      {ok(), unknownCommand("changes")},
		"changes ls":   {ok("--board", "fx"), bad("unknown board", `no such board "nosuch"`, "--board", "nosuch"), bad("no board", `--board is required`)},
		"changes show": {ok(fx.change, "--board", "fx"), bad("no change", `carries no change`, fx.ref, "--board", "fx")},
		"changes apply": {ok(fx.change, "--board", "fx"), bad("no change", `carries no change`, fx.ref, "--board", "fx"),
			bad("unknown note", `no such note on this board`, "coder/20000101T000000Z_abcd-1-000001", "--board", "fx")},
		"changes discard": {ok(fx.change, "--board", "fx"), bad("no change", `carries no change`, fx.ref, "--board", "fx")},
		"board path":      {ok("--board", "fx")},
		"board tasks":     {ok("--board", "fx"), bad("unknown board", `no such board "nosuch"`, "--board", "nosuch"), bad("no board", `required flag\(s\) "board" not set`)},
		"hooks":           {ok(), unknownCommand("hooks")},
		"hooks ls": {ok(), bad("extra argument", `unknown command "x"`, "x"),
			{name: "settings file that does not parse", files: map[string]string{"settings.json": "{\n  \"hooks\": {\n    oops\n"}, want: 2, stderr: `settings\.json: line 3: `}},
		"skills": {ok(), unknownCommand("skills")},
		"skills ls": {ok(), with(ok("--json"), func(tc *exitCase) { tc.name = "json" }), bad("extra argument", `unknown command "x"`, "x"),
			{name: "broken SKILL.md listed, not fatal", files: map[string]string{"skills/broken/SKILL.md": "no front matter\n"}, want: 0, stderr: `broken[/\\]SKILL\.md: no YAML front matter`}},
		"skills show": {with(ok("pdf"), func(tc *exitCase) {
			tc.files = map[string]string{"skills/pdf/SKILL.md": "---\nname: pdf\ndescription: d\n---\nbody\n"}
		}),
			bad("unknown skill", `no skill is named "nosuch": yagent skills ls lists them`, "nosuch")},
		"config":      {ok(), unknownCommand("config")},
		"config show": {ok("--json")},
		"trust": {ok(),
			with(ok("--list"), func(tc *exitCase) { tc.name = "list" }),
			bad("missing directory", `directory nosuch`, "nosuch"),
			bad("--list with a directory", `--list takes no directory`, "--list", "x"),
			bad("--list and --revoke", `\[list revoke\] were all set`, "--list", "--revoke"),
			bad("revoke what is not trusted", `is not trusted`, "--revoke", fx.docs),
			bad("two directories", `accepts at most 1 arg`, "a", "b"),
			{name: "damaged trust list", files: map[string]string{"trusted-workspaces.json": "{"}, want: 1, stderr: `trusted-workspaces\.json is damaged`}},
		"kb":          {ok(), unknownCommand("kb")},
		"kb projects": {ok()},
		"kb projects create": {ok("acme/api"),
			bad("bad handle", `project handle "Not A Handle" is not valid`, "Not A Handle"),
			bad("existing project", `acme/web`, "acme/web")},
		"kb ls": {ok("--project", "acme/web"), bad("unknown project", `no/such`, "--project", "no/such"),
			bad("no project", `no project: pass --project HANDLE`)},
		"kb show":   {ok("n1"), bad("unknown note", `no note n99`, "n99")},
		"kb search": {ok("deploy"), bad("unknown project", `no project "no/such" among yours: yagent kb projects lists them`, "deploy", "--project", "no/such")},
		"kb recall": {ok("deploy"), bad("negative budget", `invalid argument "-1" for "--budget" flag: want 0 or more`, "deploy", "--budget", "-1")},
		"kb import": {ok(fx.docs, "--project", "acme/web"),
			bad("unknown project", `no/such`, fx.docs, "--project", "no/such"),
			bad("missing folder", `import: nosuch is not a directory`, "nosuch", "--project", "acme/web"),
			{name: "a file fails", args: []string{filepath.Join(fx.home, "broken"), "--project", "acme/web"}, want: 1, stderr: `1 of 1 files failed to import`,
				files: map[string]string{"broken/bad.md": "caf\xe9 in Latin-1\n"}}},
		"kb trash":         {ok(), unknownCommand("kb trash")},
		"kb trash ls":      {ok(), bad("unknown project", `no project "no/such" among yours: yagent kb projects lists them`, "--project", "no/such")},
		"kb trash restore": {ok("n2"), bad("unknown note", `n99`, "n99")},
		"kb trash empty":   {ok()},
		"kb token":         {ok(), unknownCommand("kb token")},
		"kb token create": {ok("--name", "ci", "--write"),
			bad("neither read nor write", `pass exactly one of --read`, "--name", "ci"),
			bad("existing name", `claude`, "--name", "claude", "--read"),
			bad("unknown project", `no/such`, "--name", "ci", "--read", "--project", "no/such")},
		"kb token ls":     {ok()},
		"kb token revoke": {ok("claude"), bad("unknown token", `nosuch`, "nosuch")},
		"kb status": {ok(), {name: "unreachable kb.dsn", config: exitConfig + "kb:\n  dsn: postgres://kb:s3cret@127.0.0.1:1/team?connect_timeout=5\n",
			want: 2, stderr: `kb\.dsn: .*postgres://kb:xxxxx@127\.0\.0\.1:1/team`}},
		"kb migrate": kbMigrateCases(fx, ok, bad),
		"mcp":        {ok(), unknownCommand("mcp")},
		"acp":        {ok(replay...), bad("an argument", `unknown command "frobnicate" for "yagent acp"`, "frobnicate")},
		"mcp serve": {{name: "good input", env: map[string]string{"YAGENT_KB_TOKEN": fx.token}},
			bad("no token", `set YAGENT_KB_TOKEN`),
			{name: "unknown token", env: map[string]string{"YAGENT_KB_TOKEN": "ykb_nosuch"}, want: 2, stderr: `YAGENT_KB_TOKEN: unknown or revoked kb token`}},
		"ui": {ok("--timeout", "10ms"),
			bad("bad address", `--addr "nohost:port:x": want PORT`, "--addr", "nohost:port:x"),
			bad("unusable address", `--addr 192\.0\.2\.1:0: listen tcp`, "--addr", "192.0.2.1:0"),
			bad("negative timeout", `--timeout -1s: want 0`, "--timeout", "-1s"),
			{name: "cancelled", cancel: true, want: 130}},
		"mcp login": {{name: "good input (a server that needs no authorization)", args: []string{"remote"}, config: exitConfig + "mcp_servers:\n  remote:\n    url: " + fx.mcpURL + "\n"},
			bad("unknown server", `no such mcp server "nosuch"`, "nosuch"),
			{name: "a stdio server", args: []string{"local"}, config: exitConfig + "mcp_servers:\n  local:\n    command: /nonexistent/server\n", want: 2, stderr: `only url servers log in`}},
		"mcp logout": {{name: "good input (no token kept)", args: []string{"remote"}, config: exitConfig + "mcp_servers:\n  remote:\n    url: http://127.0.0.1:1/mcp\n"},
			bad("unknown server", `no such mcp server "nosuch"`, "nosuch")},
		"mcp ls": {ok(), {name: "a server cannot start", config: exitConfig + "mcp_servers:\n  broken:\n    command: /nonexistent/server\n", want: 1, stderr: `1 of 1 MCP servers failed to start`}},
	}
}

// TestHelpDocumentsExitCodes: every command's --help ends with the exit
// codes.
func TestHelpDocumentsExitCodes(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		args := append(strings.Fields(strings.TrimPrefix(c.CommandPath(), "yagent")), "--help")
		code, stdout, _ := runCLI(t, t.Context(), nil, args...)
		if code != 0 || !strings.HasSuffix(stdout, exitCodesHelp+"\n") {
			t.Errorf("yagent %s exited %d and does not end with the exit codes:\n%s", strings.Join(args, " "), code, stdout)
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(NewCmdRoot(NewFactory(iostreams.System())))
}

// kbMigrateCases copies the fixture's KB into an empty PostgreSQL database,
// then refuses to copy into it again; without PostgreSQL here, --help
// stands in for the good input.
func kbMigrateCases(fx *exitFixture, ok func(...string) exitCase, bad func(string, string, ...string) exitCase) []exitCase {
	cs := []exitCase{ok("--help")}
	if fx.pgDSN != "" {
		cs = []exitCase{ok("--to", fx.pgDSN), bad("target not empty", `not empty`, "--to", fx.pgDSN)}
	}
	return append(cs,
		bad("not a PostgreSQL URL", `--to "mysql://xxxxx@db/kb" is not a PostgreSQL URL`, "--to", "mysql://root:pw@db/kb"),
		bad("unreachable", `--to: .*postgres://kb:xxxxx@127\.0\.0\.1:1/team`, "--to", "postgres://kb:s3cret@127.0.0.1:1/team?connect_timeout=5"))
}

// bgStem is the stem of the background delegation board cancel's cases
// name.
const bgStem = "20000101T000000Z_abcd-1-000002"

// bgRun is the file a process running bgStem in the background keeps
// (director's cancel_request.go): its pid and session.
func bgRun(pid int) map[string]string {
	return map[string]string{filepath.Join("background", "fx", "explorer", bgStem+".run"): fmt.Sprintf("%d s1\n", pid)}
}

// landOnCancel stands in for the process running bgStem: when board
// cancel asks (the .cancel file), the delegation's note lands, degraded.
func (fx *exitFixture) landOnCancel(ctx context.Context, home string) {
	req := filepath.Join(home, "background", "fx", "explorer", bgStem+".cancel")
	for ctx.Err() == nil {
		if _, err := os.Stat(req); err == nil {
			board, err := fx.factory(exitCase{}, home, &bytes.Buffer{}, &bytes.Buffer{}).Board()
			if err == nil {
				board.WriteNote("fx", blackboard.NewNote{Stem: bgStem, Handoff: blackboard.Handoff{Status: blackboard.StatusDegraded, Agent: "explorer", Conclusion: "Cancelled."}})
			}
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}
