package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/yagent/yagent/event"
	"github.com/yagent/yagent/internal/pgtest"
	"github.com/yagent/yagent/llm/llmtest"
	"github.com/yagent/yagent/memory"
	"github.com/yagent/yagent/sandbox"
)

// TestMain lets the test binary act as the yagent command inside scripts.
func TestMain(m *testing.M) {
	testscript.Main(pgtestM{m}, map[string]func(){
		"yagent":          func() { os.Exit(run(os.Args[1:])) },
		"mcp-test-server": mcpTestServerMain,
		"mcp-call":        mcpCallMain,
	})
}

// pgtestM stops the throwaway PostgreSQL server (internal/pgtest) the
// queue tests and pgdsn start, once the tests have run.
type pgtestM struct{ m *testing.M }

func (p pgtestM) Run() int { return pgtest.Run(p.m) }

// TestScripts runs every testdata/script/*.txtar end to end against the real
// command tree. Each script gets its own HOME, YAGENT_HOME and notes root
// under $WORK.
func TestScripts(t *testing.T) {
	testscript.Run(t, scriptParams(t, filepath.Join("..", "..", "testdata", "script")))
}

func scriptParams(t *testing.T, dir string) testscript.Params {
	return testscript.Params{
		Dir:                 dir,
		RequireExplicitExec: true,
		UpdateScripts:       updating(),
		Condition: func(cond string) (bool, error) {
			if cond == "landlock" { // the shell tool's OS sandbox works here
				return sandbox.Available(), nil
			}
			if cond == "postgres" { // pgdsn can start a throwaway server
				return postgresInstalled(), nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"stdoutvar":     cmdStdoutVar,
			"scenario-done": cmdScenarioDone,
			"waitfile":      cmdWaitFile,
			"rolloutcheck":  cmdRolloutCheck,
			"readmecmd":     cmdReadmeCmd,
			"mkchange":      cmdMkChange,
			"pgdsn":         func(ts *testscript.TestScript, neg bool, args []string) { cmdPGDSN(t, ts, neg, args) },
		},
		Setup: func(env *testscript.Env) error {
			work := env.WorkDir
			env.Setenv("HOME", filepath.Join(work, "home"))
			env.Setenv("YAGENT_HOME", filepath.Join(work, "home", ".yagent"))
			env.Setenv("YAGENT_NOTES_ROOT", filepath.Join(work, "notes"))
			for _, k := range []string{"OPENAI_BASE_URL", "OPENAI_API_KEY", "YAGENT_MODEL", "YAGENT_BLACKBOARD"} {
				env.Setenv(k, "")
			}
			repo, err := filepath.Abs(filepath.Join("..", ".."))
			if err != nil {
				return err
			}
			env.Setenv("REPO", repo)
			// A script with a scenario.yaml gets its own scripted model
			// server; yagent finds it through OPENAI_BASE_URL.
			if _, err := os.Stat(filepath.Join(work, "scenario.yaml")); err == nil {
				sc, err := llmtest.Load(filepath.Join(work, "scenario.yaml"))
				if err != nil {
					return err
				}
				srv, err := llmtest.Start(sc)
				if err != nil {
					return err
				}
				env.Defer(srv.Close)
				env.Values[scenarioKey{}] = srv
				env.Setenv("OPENAI_BASE_URL", srv.URL())
				env.Setenv("YAGENT_MODEL", "scripted")
			}
			return nil
		},
	}
}

// cmdStdoutVar implements "stdoutvar NAME REGEXP": it sets $NAME to the
// first submatch (or the whole match) of REGEXP in the last command's
// stdout, so a script can use a ref a command printed.
func cmdStdoutVar(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: stdoutvar NAME REGEXP")
	}
	re, err := regexp.Compile("(?m)" + args[1])
	ts.Check(err)
	m := re.FindStringSubmatch(ts.ReadFile("stdout"))
	if m == nil {
		ts.Fatalf("stdoutvar: no match for %q in stdout", args[1])
	}
	ts.Setenv(args[0], m[len(m)-1])
}

type scenarioKey struct{}

// cmdScenarioDone implements "scenario-done": it fails unless every
// non-optional step of the script's scenario was served and no request went
// unmatched.
func cmdScenarioDone(ts *testscript.TestScript, neg bool, args []string) {
	srv, ok := ts.Value(scenarioKey{}).(*llmtest.Server)
	if !ok {
		ts.Fatalf("scenario-done: this script has no scenario.yaml")
	}
	pending, unmatched := srv.Pending(), srv.Unmatched()
	done := len(pending) == 0 && len(unmatched) == 0
	if neg == done {
		ts.Fatalf("scenario-done: pending steps %v, %d unmatched requests", pending, len(unmatched))
	}
}

// cmdWaitFile implements "waitfile GLOB TEXT": it waits (up to 30 s) until
// a file matching GLOB (under $WORK) contains TEXT — e.g. until a rollout
// records that a delegation started, before the test kills the process.
func cmdWaitFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: waitfile GLOB TEXT")
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		matches, _ := filepath.Glob(ts.MkAbs(args[0]))
		for _, m := range matches {
			if data, err := os.ReadFile(m); err == nil && strings.Contains(string(data), args[1]) {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	ts.Fatalf("waitfile: no file matching %s contains %q after 30s", args[0], args[1])
}

// cmdRolloutCheck implements "rolloutcheck GLOB": every rollout matching
// GLOB (under $WORK) numbers its turns without repeating one (two writers
// of one session would both take the next number) and rebuilds to a
// history that needs no repair beyond answering interrupted calls.
func cmdRolloutCheck(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: rolloutcheck GLOB")
	}
	matches, _ := filepath.Glob(ts.MkAbs(args[0]))
	if len(matches) == 0 {
		ts.Fatalf("rolloutcheck: no file matches %s", args[0])
	}
	for _, m := range matches {
		r, err := memory.LoadRollout(m)
		ts.Check(err)
		seen := map[int]bool{}
		for _, it := range r.Items {
			if it.Type == event.TurnStarted {
				if seen[it.Turn] {
					ts.Fatalf("rolloutcheck: %s: turn %d started twice", m, it.Turn)
				}
				seen[it.Turn] = true
			}
		}
		mem, _ := memory.Rebuild(r.Items)
		if rep := mem.Check(); rep.Damaged() {
			ts.Fatalf("rolloutcheck: %s: the history needs repairs: %s", m, rep)
		}
	}
}

// postgresInstalled reports whether PostgreSQL's server binaries are here;
// under YAGENT_REQUIRE_POSTGRES=1 (CI) it is true, so a missing server
// fails the script rather than skipping it.
func postgresInstalled() bool {
	if os.Getenv(pgtest.RequireEnv) == "1" {
		return true
	}
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_ctl")
	_, err := exec.LookPath("initdb")
	return len(found) > 0 || err == nil
}

// cmdPGDSN implements "pgdsn NAME": it sets $NAME to the DSN of a new,
// empty database on the tests' throwaway PostgreSQL server.
func cmdPGDSN(t *testing.T, ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: pgdsn NAME")
	}
	ts.Setenv(args[0], pgtest.New(scriptTB{TB: t, ts: ts}))
}

// scriptTB is the tests' testing.TB for a script's goroutine: failing or
// skipping fails the script, not the parent test.
type scriptTB struct {
	testing.TB
	ts *testscript.TestScript
}

func (s scriptTB) Helper()                           {}
func (s scriptTB) Fatalf(format string, args ...any) { s.ts.Fatalf(format, args...) }
func (s scriptTB) Skipf(format string, args ...any) {
	s.ts.Fatalf("PostgreSQL is needed: "+format, args...)
}

// cmdReadmeCmd implements "readmecmd VAR NAME": it sets $VAR to README.md's
// command NAME (the fenced block after <!-- command: NAME -->) with
// `go run ./cmd/yagent` replaced by the yagent under test, so a script runs
// exactly what a reader pastes.
func cmdReadmeCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: readmecmd VAR NAME")
	}
	readme := ts.ReadFile(filepath.Join(ts.Getenv("REPO"), "README.md"))
	_, after, ok := strings.Cut(readme, "<!-- command: "+args[1]+" -->")
	if !ok {
		ts.Fatalf("readmecmd: README.md has no command %q", args[1])
	}
	_, block, ok := strings.Cut(after, "```sh\n")
	if !ok {
		ts.Fatalf("readmecmd: no ```sh block after command %q", args[1])
	}
	block, _, _ = strings.Cut(block, "```")
	ts.Setenv(args[0], strings.ReplaceAll(strings.TrimSpace(block), "go run ./cmd/yagent", "yagent"))
}
