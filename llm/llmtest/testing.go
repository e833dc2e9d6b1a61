package llmtest

import (
	"fmt"
	"testing"
	"time"
)

// NewTestServer loads the scenario at path and serves it until the test
// ends. Unmatched requests are logged through t.Logf. Call AssertDone to
// check the scenario was played out.
func NewTestServer(t testing.TB, path string) *Server {
	t.Helper()
	sc, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Start(sc, WithLogf(t.Logf))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// HandOver is a scenario answering every sub-agent whose task names an
// item (item-001) after latency (a YAML duration) with "Result of
// item-001: done." and an ok handoff: the batch and queue tests'
// delegations.
func HandOver(latency string) string { return fmt.Sprintf(handOver, latency) }

const handOver = `name: hand-over
steps:
  - id: item
    repeat: true
    latency: %s
    capture: {item: 'Task:\n(item-[0-9]+)'}
    reply:
      text: "Result of ${item}: done."
      tool_calls:
        - name: agent_exit
          arguments: {status: ok, conclusion: "${item} done"}
`

// NewHandOverServer serves HandOver(latency) until the test ends.
func NewHandOverServer(t testing.TB, latency time.Duration) *Server {
	t.Helper()
	sc, err := Parse([]byte(HandOver(latency.String())), "hand-over")
	if err != nil {
		t.Fatal(err)
	}
	s, err := Start(sc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}
