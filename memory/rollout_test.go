package memory

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/yagent/yagent/event"
	"github.com/yagent/yagent/llm"
)

func TestRolloutRoundTrip(t *testing.T) {
	st := newStore(t)
	s := newSession(t, st, KindRun, "/w")
	turn(t, s, "first question", "first answer")
	call := llm.ToolCall{ID: "c1", Name: "read_file", Arguments: `{"path":"x"}`}
	for _, m := range []llm.Message{user("second"), {Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call}}, {Role: llm.RoleTool, ToolCallID: "c1", Content: "data"}} {
		if err := s.Append(m); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.DelegationStarted(event.DelegationEvent{CallID: "d1", Agent: "explorer", Task: "t", SubSession: "sub"}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	r, err := LoadRollout(s.Info().Rollout)
	if err != nil {
		t.Fatal(err)
	}
	if r.Meta.ID != s.ID() || r.Meta.BoardID != s.ID() || r.Meta.Kind != KindRun || r.Meta.Version != RolloutVersion || len(r.Warnings) != 0 {
		t.Errorf("meta = %+v, warnings %v", r.Meta, r.Warnings)
	}
	mem, pending := Rebuild(r.Items)
	if diff := cmp.Diff(s.History(), mem.History(nil)); diff != "" {
		t.Errorf("rebuilt history differs (-live +rebuilt):\n%s", diff)
	}
	if len(pending) != 1 || pending[0].CallID != "d1" || pending[0].SubSession != "sub" {
		t.Errorf("pending = %+v", pending)
	}
	if !strings.HasPrefix(r.Meta.Created.Format("2006"), "2026") || !strings.Contains(s.Info().Rollout, "/sessions/2026/11/29/rollout-20261129T100001-") {
		t.Errorf("rollout path %s", s.Info().Rollout)
	}
}

// TestRolloutTornLastLine pins that a torn last line (a crash mid-write) is
// skipped with a warning, never fatal, and that appending after it starts a
// fresh line.
func TestRolloutTornLastLine(t *testing.T) {
	st := newStore(t)
	s := newSession(t, st, KindRun, "/w")
	turn(t, s, "q", "a")
	s.Close()
	path := s.Info().Rollout
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"type":"message","message":{"role":"user","content":"half`)
	f.Close()
	r, err := LoadRollout(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "torn last line") {
		t.Errorf("warnings = %v", r.Warnings)
	}
	resumed, err := st.Resume(t.Context(), s.ID())
	if err != nil {
		t.Fatal(err)
	}
	if err := resumed.Append(user("after the crash")); err != nil {
		t.Fatal(err)
	}
	resumed.Close()
	r, _ = LoadRollout(path)
	last := r.Items[len(r.Items)-1]
	if last.Message == nil || last.Message.Content != "after the crash" || len(r.Warnings) != 1 {
		t.Errorf("after resume: last item %+v, warnings %v", last, r.Warnings)
	}
}

func TestParseRolloutErrors(t *testing.T) {
	if _, err := ParseRollout("x.jsonl", []byte(`{"type":"message"}`+"\n")); err == nil || !strings.Contains(err.Error(), "x.jsonl is not a yagent rollout") {
		t.Errorf("err = %v", err)
	}
	r, err := ParseRollout("x.jsonl", []byte(`{"type":"session_meta","meta":{"id":"a","version":1}}`+"\nGARBAGE\n"+`{"type":"turn_started","turn":1}`+"\n"))
	if err != nil || len(r.Items) != 1 || len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "x.jsonl:2: skipped a damaged line") {
		t.Errorf("r = %+v, %v", r, err)
	}
}

func FuzzParseRollout(f *testing.F) {
	f.Add([]byte(`{"type":"session_meta","meta":{"id":"a","version":1}}` + "\n" + `{"type":"message","message":{"role":"user","content":"hi"}}` + "\n"))
	f.Add([]byte(`{"type":"session_meta","meta":{"id":"a"}}` + "\n" + `{"type":"compacted","compacted":{"summary":"s","upto":99}}`))
	f.Add([]byte("\n\n{"))
	// Version 1 and version 2, and a version 1 rollout resumed since.
	for _, name := range []string{"rollout-v1/lead.jsonl", "rollout-v1/sub.jsonl"} {
		v1, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(v1)
		f.Add(append(v1, `{"type":"cleared","time":"2026-11-29T10:01:00Z","agent":"","depth":0,"compacted":{"upto":2}}`+"\n"...))
	}
	f.Add([]byte(`{"type":"session_meta","time":"2026-11-29T10:00:00Z","agent":"","depth":0,"session":{"id":"a","version":2}}` + "\n" +
		`{"type":"usage","time":"2026-11-29T10:00:01Z","agent":"","depth":0,"usage":{"requests":1,"label":"lead","prompt_tokens":3}}` + "\n" +
		`{"type":"cleared","time":"2026-11-29T10:00:02Z","agent":"","depth":0,"compacted":{"upto":1}}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ParseRollout("f", data)
		if err != nil {
			return
		}
		// What the reader makes of a line (converted or not) is an event
		// that, written as version 2, reads back the same.
		for _, it := range r.Items {
			once, err := json.Marshal(it.Event)
			if err != nil {
				t.Fatal(err)
			}
			back, err := decodeLine(once)
			if err != nil {
				t.Fatalf("%s: %v", once, err)
			}
			twice, _ := json.Marshal(back)
			if string(once) != string(twice) {
				t.Fatalf("an event does not read back as written:\n%s\n%s", once, twice)
			}
		}
		mem, _ := Rebuild(r.Items)
		_ = mem.History(nil)
		if mem.Base < 0 || mem.Base > mem.Total() {
			t.Fatalf("base %d of %d", mem.Base, mem.Total())
		}
	})
}
