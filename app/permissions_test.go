package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/hooks"
)

// TestWorkspacePermissionsNeedTrust: a workspace's permission rules apply
// only once it is trusted — until then one warning names the file and the
// command that trusts, and its deny rule decides nothing — while the
// person's own apply always; a rule yagent cannot map is a warning naming
// its file and why.
func TestWorkspacePermissionsNeedTrust(t *testing.T) {
	home, user, ws := t.TempDir(), t.TempDir(), t.TempDir()
	put := func(p, body string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	put(filepath.Join(user, ".claude", "settings.json"), `{"permissions": {"deny": ["Bash(rm:*)"], "allow": ["WebFetch(domain:example.com)"]}}`)
	put(filepath.Join(ws, ".claude", "settings.json"), `{"permissions": {"deny": ["Bash(ls:*)"]}}`)
	cfg := &config.Config{Home: home, UserHome: user}
	decide := func(rules *agents.Rules, cmd string) hooks.Decision {
		d, _ := rules.Decide("shell", json.RawMessage(`{"command": "`+cmd+`"}`), ws)
		return d
	}

	rules, warnings := LoadPermissions(cfg, ws)
	joined := strings.Join(warnings, "\n")
	if !strings.Contains(joined, "not applying the permission rules of "+filepath.Join(ws, ".claude", "settings.json")) || !strings.Contains(joined, "yagent trust "+ws) {
		t.Errorf("warnings:\n%s\nwant the untrusted workspace's file named with `yagent trust`", joined)
	}
	if !strings.Contains(joined, "WebFetch(domain:example.com) (yagent has no web fetch tool)") {
		t.Errorf("warnings:\n%s\nwant the WebFetch rule named with why", joined)
	}
	if d := decide(rules, "ls"); d != "" {
		t.Errorf("the untrusted workspace's deny rule decided %q", d)
	}
	if d := decide(rules, "rm -rf x"); d != hooks.Deny {
		t.Errorf("the person's deny rule decided %q; want deny", d)
	}

	if _, _, err := config.Trust(home, ws, time.Now()); err != nil {
		t.Fatal(err)
	}
	rules, warnings = LoadPermissions(cfg, ws)
	if d := decide(rules, "ls"); d != hooks.Deny {
		t.Errorf("the trusted workspace's deny rule decided %q; want deny", d)
	}
	if strings.Contains(strings.Join(warnings, "\n"), "not trusted") {
		t.Errorf("warnings %q after trust", warnings)
	}
}
