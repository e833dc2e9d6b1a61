package agents

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// TestGuarded: a guarded registry runs the check before each of its tools,
// with the tool's name; a refusal aborts the call as an error (no result,
// the tool never ran); the registry it was made from stays unguarded.
func TestGuarded(t *testing.T) {
	var ran []string
	tool := func(name string) *Tool {
		tl, err := NewDynamicTool(Tool{Name: name, Family: "test", Schema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *Call) (Result, error) {
			ran = append(ran, name)
			return Result{Content: name + " ran"}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return tl
	}
	base := NewRegistry(tool("a"), tool("b"))
	stale := errors.New("attempt 2 is stale")
	var checked []string
	g := base.Guarded(func(_ context.Context, name string) error {
		checked = append(checked, name)
		if name == "b" {
			return stale
		}
		return nil
	})
	call := func(r *Registry, name string) (Result, error) {
		t.Helper()
		tl, ok := r.Get(name)
		if !ok {
			t.Fatalf("no tool %s", name)
		}
		return tl.Run(t.Context(), &Call{ID: "1", Name: name, Args: []byte(`{}`)})
	}
	if res, err := call(g, "a"); err != nil || res.Content != "a ran" {
		t.Errorf("a: %+v, %v; want it run", res, err)
	}
	if res, err := call(g, "b"); !errors.Is(err, stale) || res.Content != "" {
		t.Errorf("b: %+v, %v; want the check's error and no result", res, err)
	}
	if got := strings.Join(ran, ","); got != "a" {
		t.Errorf("tools run: %s; want a only", got)
	}
	if got := strings.Join(checked, ","); got != "a,b" {
		t.Errorf("checks: %s; want a,b", got)
	}
	if _, err := call(base, "b"); err != nil {
		t.Errorf("the registry it was made from is guarded too: %v", err)
	}
}

// TestPermitChange: apply_change's decision — asked under untrusted, and
// always when it changes protected paths; without anyone to ask those are
// refused, the protected one naming the paths.
func TestPermitChange(t *testing.T) {
	allow := askFunc(func(Question) Answer { return Allow })
	deny := askFunc(func(Question) Answer { return Deny })
	for _, c := range []struct {
		name     string
		approval Approval
		why      string
		ask      Asker
		ok       bool
		says     string
	}{
		{"plain, on-request", ApproveOnRequest, "", nil, true, ""},
		{"plain, never", ApproveNever, "", nil, true, ""},
		{"untrusted, nobody to ask", ApproveUntrusted, "", nil, false, refuseNoAsker},
		{"untrusted, allowed", ApproveUntrusted, "", allow, true, ""},
		{"untrusted, declined", ApproveUntrusted, "", deny, false, refuseDeclined},
		{"protected, nobody to ask", ApproveNever, "it changes .git/hooks", nil, false, ".git/hooks/pre-commit"},
		{"protected, declined", ApproveNever, "it changes .git/hooks", deny, false, refuseDeclined},
		{"protected, allowed", ApproveNever, "it changes .git/hooks", allow, true, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := ShellPolicy{Approval: c.approval, Ask: c.ask}
			ok, why, err := p.PermitChange(t.Context(), Question{Action: "apply change", Why: c.why}, ".git/hooks/pre-commit")
			if err != nil || ok != c.ok || !strings.Contains(why, c.says) || (c.ok && why != "") {
				t.Errorf("PermitChange = %v, %q, %v; want %v, %q", ok, why, err, c.ok, c.says)
			}
		})
	}
}
