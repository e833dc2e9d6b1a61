package llmtest

import "testing"

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
