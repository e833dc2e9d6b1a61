package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runCLI executes the real command tree in-process with its own home.
func runCLI(t *testing.T, ctx context.Context, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	home := t.TempDir()
	var out, errOut bytes.Buffer
	f := NewFactory(&IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
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
	return code, out.String(), errOut.String()
}

// TestExitCodes pins the documented exit codes: 0 ok, 1 failure, 2 usage
// or bad input, 130 cancelled.
func TestExitCodes(t *testing.T) {
	badCfg := t.TempDir()
	if err := os.WriteFile(filepath.Join(badCfg, "config.yaml"), []byte("nope: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	replay := filepath.Join("..", "..", "testdata", "scenarios", "demo.yaml")
	tests := []struct {
		name string
		ctx  context.Context
		env  map[string]string
		args []string
		want int
	}{
		{"version", t.Context(), nil, []string{"--version"}, 0},
		{"unknown flag", t.Context(), nil, []string{"board", "ls", "--nope"}, 2},
		{"unknown command", t.Context(), nil, []string{"frobnicate"}, 2},
		{"bad config", t.Context(), map[string]string{"YAGENT_HOME": badCfg}, []string{"config", "show"}, 2},
		{"no endpoint", t.Context(), nil, []string{"run", "hi"}, 2},
		{"missing board", t.Context(), nil, []string{"board", "ls", "--board", "none"}, 2},
		{"endpoint down", t.Context(), map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}, []string{"run", "hi"}, 1},
		{"cancelled", cancelled, nil, []string{"run", "--replay", replay, "--cd", "../..", "hi"}, 130},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := tt.env
			if tt.name == "endpoint down" {
				// no retries, so the test is quick
				dir := t.TempDir()
				os.WriteFile(filepath.Join(dir, "config.yaml"), []byte("models:\n  default:\n    max_retries: 0\n    timeout: 2s\n"), 0o644)
				env = map[string]string{"OPENAI_BASE_URL": tt.env["OPENAI_BASE_URL"], "YAGENT_HOME": dir}
			}
			code, _, stderr := runCLI(t, tt.ctx, env, tt.args...)
			if code != tt.want {
				t.Errorf("yagent %v exited %d; want %d (stderr %q)", tt.args, code, tt.want, stderr)
			}
		})
	}
}

func TestVersionLoadsNothing(t *testing.T) {
	f := NewFactory(&IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}})
	f.Getenv = func(string) string { t.Error("--version read the environment"); return "" }
	if code := execute(t.Context(), f, []string{"--version"}); code != 0 {
		t.Fatalf("--version exited %d", code)
	}
}
