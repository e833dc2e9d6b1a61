package webui

import (
	"regexp"
	"strings"
	"testing"

	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/memory"
)

// TestRewoundTurnsHidden: a session's page shows only the turns still in
// its conversation — a rewind's turns are gone, a line marks the place —
// and the sessions list counts only those.
func TestRewoundTurnsHidden(t *testing.T) {
	fx := newFixture(t)
	c := fx.client(t)
	ctx := t.Context()
	s, err := fx.st.Create(ctx, memory.CreateOptions{Kind: memory.KindRun, Cwd: "/w", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	for _, q := range []string{"first", "second", "third"} {
		n, err := s.BeginTurn(ctx, q)
		if err == nil {
			err = s.Append(llm.Message{Role: llm.RoleUser, Content: q + " question"})
		}
		if err == nil {
			err = s.Append(llm.Message{Role: llm.RoleAssistant, Content: q + " answer"})
		}
		if err == nil {
			err = s.EndTurn(ctx, n, "done")
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Rewind(ctx, 2); err != nil {
		t.Fatal(err)
	}
	code, body := get(t, c, fx.ts.URL+"/s/"+s.ID())
	if code != 200 {
		t.Fatalf("transcript: %d\n%s", code, body)
	}
	for _, want := range []string{"first question", "first answer", "rewound to before turn 2"} {
		if !strings.Contains(body, want) {
			t.Errorf("the transcript lacks %q", want)
		}
	}
	for _, gone := range []string{"second question", "third answer"} {
		if strings.Contains(body, gone) {
			t.Errorf("the transcript shows %q, of a rewound turn", gone)
		}
	}
	_, list := get(t, c, fx.ts.URL+"/")
	row := regexp.MustCompile(`(?s)data-session="` + s.ID() + `".*?</tr>`).FindString(list)
	if !strings.Contains(row, "<td>1</td>") {
		t.Errorf("the sessions list row: %s; want 1 turn (the live one)", row)
	}
}
