package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/kb"
)

// TestAgentCaller pins the agents' token: created once per scope and
// reused (its secret kept in a 0600 file), scoped to kb.project, and
// revocable — a revoked token is not silently replaced.
func TestAgentCaller(t *testing.T) {
	ctx := t.Context()
	store, err := kb.Open(ctx, filepath.Join(t.TempDir(), "kb.db"), kb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	cfg := &config.Config{KB: config.KB{Person: "alice"}}
	person, err := KBPerson(ctx, cfg, func(string) string { return "" }, store)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"acme/web", "acme/other"} {
		if _, err := store.CreateProject(ctx, person, h, ""); err != nil {
			t.Fatal(err)
		}
	}
	home := t.TempDir()
	spec := AgentToken(true, "acme/web")
	c1, err := AgentCaller(ctx, store, person, home, spec)
	if err != nil {
		t.Fatal(err)
	}
	c2, err := AgentCaller(ctx, store, person, home, spec)
	if err != nil {
		t.Fatal(err)
	}
	if c1.TokenID == 0 || c1.TokenID != c2.TokenID || c1.Kind != kb.KindAgent || !c1.Write {
		t.Errorf("callers %+v and %+v; want one write agent token, reused", c1, c2)
	}
	files, _ := filepath.Glob(filepath.Join(home, "kb-agents", "*.token"))
	if len(files) != 1 {
		t.Fatalf("token files %v; want one", files)
	}
	if fi, _ := os.Stat(files[0]); fi.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %v; want 0600", fi.Mode().Perm())
	}
	// Scoped: the other project is out of reach.
	if _, err := store.Call(ctx, c1, "remember_about_project", []byte(`{"project":"acme/other","category":"c","observation":"o"}`)); kb.ErrorCode(err) != kb.CodeNotFound {
		t.Errorf("write to acme/other through the acme/web token: %v; want notFound", err)
	}
	// Another scope is another token.
	if c3, err := AgentCaller(ctx, store, person, home, AgentToken(false, "")); err != nil || c3.TokenID == c1.TokenID || c3.Write {
		t.Errorf("read scope: %+v, %v; want a separate read token", c3, err)
	}
	if err := store.RevokeToken(ctx, person, spec.Name); err != nil {
		t.Fatal(err)
	}
	if _, err := AgentCaller(ctx, store, person, home, spec); err == nil || !strings.Contains(err.Error(), "was revoked") {
		t.Errorf("after revoke: %v; want a refusal naming the revocation", err)
	}
	os.Remove(files[0])
	if c4, err := AgentCaller(ctx, store, person, home, spec); err != nil || c4.TokenID == c1.TokenID {
		t.Errorf("after removing the file: %+v, %v; want a new token", c4, err)
	}
}
