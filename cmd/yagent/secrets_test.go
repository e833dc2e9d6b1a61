package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yagent/yagent/internal/iostreams"
	"github.com/yagent/yagent/llm/llmtest"
	"github.com/yagent/yagent/telemetry/telemetrytest"
)

const (
	echoKey   = "sk-proj-EchoedKey0123456789abcdefXYZ"
	echoToken = "gw-session-0123456789abcdef"
)

// echoScenario: the director delegates to an explorer whose model
// endpoint answers 401 with a message repeating the request's headers,
// Authorization and the secret extra header included; the director then
// answers from the failed delegation (case:delegate), or its own first
// call gets the same 401 (case:direct).
const echoScenario = `
name: echo-credentials
steps:
  - id: plan
    match: {agent: director, last_role: user, contains: "case:delegate"}
    reply:
      tool_calls:
        - {id: call_x, name: delegate, arguments: {agent: explorer, task: "Map the packages."}}
  - id: explorer-401
    match: {agent: explorer}
    repeat: true
    fault: {kind: status, status: 401, echo_request: true, times: 0}
    reply: {text: never}
  - id: answer
    match: {agent: director, last_role: tool}
    reply: {text: "The explorer could not reach its model."}
  - id: direct-401
    match: {agent: director, contains: "case:direct"}
    repeat: true
    fault: {kind: status, status: 401, echo_request: true, times: 0}
    reply: {text: never}
`

// TestRunNeverEchoesCredentials pins that a model endpoint echoing the
// request's credentials in a 401 (the API key as a bearer token, an
// extra_headers value read from the environment) puts them nowhere: not on
// stderr, not in --json, not in any file yagent writes (rollouts, the
// failed delegation's note, the state database), not in the spans the
// collector gets, and not back into the model's own context. Not
// parallel: the tracer is process-wide.
func TestRunNeverEchoesCredentials(t *testing.T) {
	sc, err := llmtest.Parse([]byte(echoScenario), "echo-credentials")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, prompt string
		code         int
	}{
		{"delegation", "case:delegate", 0},
		{"director", "case:direct", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.New(sc, llmtest.WithLogf(t.Logf))
			t.Cleanup(srv.Close)
			recv := telemetrytest.NewReceiver(t)
			home, notes := t.TempDir(), t.TempDir()
			cfg := "models:\n  default:\n    max_retries: 0\n    extra_headers: {X-Gateway-Session: \"${GW_SESSION}\"}\n"
			if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(cfg), 0o600); err != nil {
				t.Fatal(err)
			}
			env := map[string]string{
				"YAGENT_HOME": home, "YAGENT_NOTES_ROOT": notes,
				"OPENAI_BASE_URL": srv.URL(), "OPENAI_API_KEY": echoKey, "YAGENT_MODEL": "m", "GW_SESSION": echoToken,
				"OTEL_EXPORTER_OTLP_ENDPOINT": recv.URL(),
			}
			var out, errOut bytes.Buffer
			f := NewFactory(&iostreams.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
			f.Dir = t.TempDir()
			f.Getenv = func(k string) string { return env[k] }
			code := execute(t.Context(), f, []string{"run", "--json", tc.prompt})
			f.Close() // flushes the spans
			if code != tc.code {
				t.Fatalf("exit %d; want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, out.String(), errOut.String())
			}

			// The endpoint did echo them: the test would pass for nothing otherwise.
			echoed := false
			for _, r := range srv.Requests() {
				if r.Status == 401 {
					echoed = r.Header.Get("Authorization") == "Bearer "+echoKey && r.Header.Get("X-Gateway-Session") == echoToken
				}
			}
			if !echoed {
				t.Fatal("no 401 answered a request carrying the key and the gateway header")
			}

			where := map[string]string{"stdout (--json)": out.String(), "stderr": errOut.String()}
			for _, dir := range []string{home, notes, f.Dir} {
				readTree(t, dir, where)
			}
			spans := recv.Spans()
			if len(spans) == 0 {
				t.Fatal("the collector got no span")
			}
			where["spans"] = fmt.Sprintf("%+v", spans)
			for _, r := range srv.Requests() {
				where[fmt.Sprintf("request %d to the model", r.N)] = string(r.Body)
			}
			redacted := false
			for name, text := range where {
				for _, secret := range []string{echoKey, echoKey[:14], echoToken} {
					if strings.Contains(text, secret) {
						t.Errorf("%s shows %q", name, secret)
					}
				}
				redacted = redacted || strings.Contains(text, "[redacted]")
			}
			if !redacted || !strings.Contains(where["stdout (--json)"], "[redacted]") {
				t.Errorf("no [redacted] marker in the run's output:\n%s", out.String())
			}
		})
	}
}

// readTree adds the content of every regular file under dir to where.
func readTree(t *testing.T, dir string, where map[string]string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		where[path] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
