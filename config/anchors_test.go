package config

import (
	"fmt"
	"strings"
	"testing"
)

// The patterns that decide what is a variable reference, a secret, a
// variable name or a plain command prefix, pinned at both ends: each one
// without its ^ or its $ accepts a value these cases refuse (the trust
// gate's own pattern: TestSecretVariableAnchored).

// TestVariableReferenceAnchored: only a whole "${VAR}" is shown as a
// reference by config show; a secret around one is masked.
func TestVariableReferenceAnchored(t *testing.T) {
	got := maskHeaders(map[string]string{"X-Ref": "${GOOD_TOKEN}", "X-Before": "sk-live-1${GOOD_TOKEN}", "X-After": "${GOOD_TOKEN}sk-live-2"})
	want := map[string]string{"X-Ref": "${GOOD_TOKEN}", "X-Before": masked, "X-After": masked}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("maskHeaders: %s = %q; want %q", k, got[k], v)
		}
	}
	for _, tt := range []struct {
		name, value string
		secret      bool
	}{
		{"API_TOKEN", "${GH_TOKEN}", false},
		{"API_TOKEN", "${GH_TOKEN}abc", true}, // a reference then more: the name says secret
		{"LOG", "sk-live-123${X}", true},      // a token prefix, then a reference
		{"MODE", "task-list", false},          // sk- in the middle is no token prefix
		{"MODE", "use Bearer x", false},       // nor is Bearer
		{"MODE", "path /usr/lib/AbCdEf0123456789AbCdEf0123456789xyz", false},
		{"MODE", "AbCdEf0123456789AbCdEf0123456789xyz and more", false},
		{"OPAQUE", "AbCdEf0123456789AbCdEf0123456789xyz", true},
	} {
		if got := secretLooking(tt.name, tt.value); got != tt.secret {
			t.Errorf("secretLooking(%q, %q) = %v; want %v", tt.name, tt.value, got, tt.secret)
		}
	}
}

// TestNamesAndPrefixesAnchored: sandbox_env takes whole variable names and
// shell_allow whole prefixes of plain words, from their first character.
func TestNamesAndPrefixesAnchored(t *testing.T) {
	for _, tt := range []struct {
		name string
		ok   bool
	}{{"GOFLAGS", true}, {"_X1", true}, {"GO-FLAGS", false}, {"1GOFLAGS", false}, {"GOFLAGS=1", false}, {"GOFLAGS X", false}} {
		_, err := load(t, fmt.Sprintf("agents:\n  sandbox_env: [%q]\n", tt.name), "")
		if refused := err != nil && strings.Contains(err.Error(), "agents.sandbox_env: entry 1"); refused == tt.ok {
			t.Errorf("sandbox_env %q: Load = %v; want accepted: %v", tt.name, err, tt.ok)
		}
	}
	for _, prefix := range []string{"; go test", "$(rm) go test", "'go' test", "go test;"} {
		_, err := load(t, fmt.Sprintf("agents:\n  shell_allow: [%q]\n", prefix), "")
		if want := fmt.Sprintf("agents.shell_allow: entry 1, %q: want a command prefix of plain words", prefix); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("shell_allow %q: Load = %v; want %s", prefix, err, want)
		}
	}
}
