package agents

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/llm/llmtest"
)

// TestPrefixStableAcrossCalls pins SPEC §1's cache order: consecutive
// requests of one turn share a byte-identical prefix (system prompt, tool
// declarations, history) up to the new history; only the transient tail at
// the end differs.
func TestPrefixStableAcrossCalls(t *testing.T) {
	srv, client := scenario(t, "loop-multistep")
	w := demoWorkspace(t)
	n := 0
	loop := &Loop{Client: client, TailRole: llm.RoleUser, Tail: func(context.Context) (string, error) {
		n++
		return ComposeTail(fmt.Sprintf("[state] call %d", n)), nil
	}}
	if _, err := loop.Run(t.Context(), leadAgent(FSTools(w, ShellPolicy{})), nil, userMsg("what is this module?")); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	for i := 1; i < len(reqs); i++ {
		prev, cur := reqs[i-1], reqs[i]
		if !reflect.DeepEqual(toolsOf(t, prev.Body), toolsOf(t, cur.Body)) {
			t.Errorf("request %d declares different tools than request %d", cur.N, prev.N)
		}
		stable := prev.Messages[:len(prev.Messages)-1] // all but the tail
		if !reflect.DeepEqual(cur.Messages[:len(stable)], stable) {
			t.Errorf("request %d does not start with request %d's prefix", cur.N, prev.N)
		}
		if last := cur.Messages[len(cur.Messages)-1]; !strings.HasPrefix(last.Content, TailHeader) || last.Role != llm.RoleUser {
			t.Errorf("request %d does not end with the tail: %+v", cur.N, last)
		}
	}
}

func toolsOf(t *testing.T, body []byte) json.RawMessage {
	var req struct {
		Tools json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	return req.Tools
}

// TestTailNeverStored pins that the transient tail goes only into the one
// request: never into the turn's messages or what Append records, and a
// tail left in a history is stripped (injection is idempotent).
func TestTailNeverStored(t *testing.T) {
	srv, client := scenario(t, "loop-multistep")
	w := demoWorkspace(t)
	const marker = "[board index · board x] SECRET-TAIL-MARKER"
	var recorded []llm.Message
	loop := &Loop{Client: client, TailRole: llm.RoleUser,
		Tail:   func(context.Context) (string, error) { return ComposeTail(marker), nil },
		Append: func(m llm.Message) error { recorded = append(recorded, m); return nil }}
	stale := llm.Message{Role: llm.RoleUser, Content: ComposeTail("stale tail from an old step")}
	out, err := loop.Run(t.Context(), leadAgent(FSTools(w, ShellPolicy{})), []llm.Message{stale}, userMsg("what is this module?"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range append(out.Messages, recorded...) {
		if strings.Contains(m.Content, "SECRET-TAIL-MARKER") || IsTail(m) {
			t.Fatalf("a tail was stored: %q", m.Content)
		}
	}
	for _, r := range srv.Requests() {
		tails := 0
		for i, m := range r.Messages {
			if strings.HasPrefix(m.Content, TailHeader) {
				tails++
				if i != len(r.Messages)-1 || !strings.Contains(m.Content, "SECRET-TAIL-MARKER") {
					t.Errorf("request %d: a tail at %d of %d: %q", r.N, i, len(r.Messages), m.Content)
				}
			}
		}
		if tails != 1 {
			t.Errorf("request %d carries %d tails; want exactly 1", r.N, tails)
		}
	}
}

func TestComposeTail(t *testing.T) {
	if got := ComposeTail("", "  "); got != "" {
		t.Errorf("ComposeTail of nothing = %q", got)
	}
	got := ComposeTail("[state] x", "", "[board index] y")
	if !strings.HasPrefix(got, TailHeader+"\n\n[state] x\n\n[board index] y") {
		t.Errorf("ComposeTail = %q", got)
	}
}

func TestPromptsExist(t *testing.T) {
	p := Prompt("base", map[string]string{"name": "director", "workspace": "/w"})
	if !strings.Contains(p, "[agent:director]") || strings.Contains(p, "{{") {
		t.Errorf("base prompt = %q", p)
	}
}

// TestTailHeaderKnownToScenarios keeps llmtest's view of the tail in step
// with the runtime's: scenario matchers look past the tail by this prefix.
func TestTailHeaderKnownToScenarios(t *testing.T) {
	if !strings.HasPrefix(TailHeader, llmtest.TailPrefix) {
		t.Errorf("TailHeader %q does not start with llmtest.TailPrefix %q", TailHeader, llmtest.TailPrefix)
	}
}
