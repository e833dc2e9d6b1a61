package main

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets the test binary act as the yagent command inside scripts.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"yagent": func() { os.Exit(run(os.Args[1:])) },
	})
}

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
		UpdateScripts:       *updateScripts,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"stdoutvar": cmdStdoutVar,
		},
		Setup: func(env *testscript.Env) error {
			work := env.WorkDir
			env.Setenv("HOME", filepath.Join(work, "home"))
			env.Setenv("YAGENT_HOME", filepath.Join(work, "home", ".yagent"))
			env.Setenv("YAGENT_NOTES_ROOT", filepath.Join(work, "notes"))
			for _, k := range []string{"OPENAI_BASE_URL", "OPENAI_API_KEY", "YAGENT_MODEL", "YAGENT_BLACKBOARD"} {
				env.Setenv(k, "")
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
