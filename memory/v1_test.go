package memory

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/yagent/yagent/event"
	"github.com/yagent/yagent/llm"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// The rollouts under testdata/rollout-v1 were written by yagent before
// rollouts recorded the --json events (rollout version 1): a run that read
// a file, delegated to an explorer (sub.jsonl), was compacted and went on.
const (
	v1Lead = "20261129T100001-a1b2c3"
	v1Sub  = "20261129T100005-d4e5f6"
)

// installV1 gives the store sessions whose rollouts are the version 1
// fixtures, as an older yagent left them.
func installV1(t *testing.T, st *Store) {
	t.Helper()
	for _, f := range [][2]string{{v1Lead, "lead.jsonl"}, {v1Sub, "sub.jsonl"}} { // in this order, every run
		id, file := f[0], f[1]
		o := CreateOptions{ID: id, Kind: KindRun, Cwd: "/work/demo", Model: "gpt-test"}
		if id == v1Sub {
			o.Kind, o.ParentID, o.BoardID = KindSubagent, v1Lead, v1Lead
		}
		s, err := st.Create(t.Context(), o)
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		data, err := os.ReadFile(filepath.Join("testdata", "rollout-v1", file))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(s.Info().Rollout, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// TestResumeV1Rollout pins that a rollout written before the change
// resumes as it did: the same history (the compaction summary and the
// messages after it; reasoning and provider extras of the messages before
// it), the same token measure, turn count and board, and the file is
// never rewritten.
func TestResumeV1Rollout(t *testing.T) {
	st := newStore(t)
	installV1(t, st)
	before, err := os.ReadFile(filepath.Join("testdata", "rollout-v1", "lead.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := st.Resume(t.Context(), v1Lead)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Warnings) != 0 {
		t.Errorf("warnings: %v", s.Warnings)
	}
	r, err := LoadRollout(s.Info().Rollout)
	if err != nil {
		t.Fatal(err)
	}
	// The messages before the compaction, as Rebuild gives them without it.
	cut := 0
	for i, it := range r.Items {
		if it.Type == event.Compacted {
			cut = i
		}
	}
	whole, _ := Rebuild(r.Items[:cut])
	got := struct {
		History       []llm.Message
		BeforeSummary []llm.Message
		Turn, Base    int
		Board         string
		Measure       int
	}{s.History(), whole.History(nil), s.turn, s.mem.Base, s.BoardID(), s.Measure(func() int { return -1 << 20 })}
	golden(t, filepath.Join("testdata", "rollout-v1", "resumed.json"), got)

	// The session goes on in the same file: what the old process wrote
	// stays as it was, the new turn follows it, and the next resume reads
	// both.
	want := append(s.History(), user("one more"), assistant("done"))
	turn(t, s, "one more", "done")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	after, err := os.ReadFile(s.Info().Rollout)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(after), string(before)) {
		t.Errorf("resuming rewrote the version 1 rollout")
	}
	again, err := st.Resume(t.Context(), v1Lead)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if diff := cmp.Diff(want, again.History()); diff != "" {
		t.Errorf("history after a second resume differs (-want +got):\n%s", diff)
	}
	if len(again.Warnings) != 0 || again.turn != 4 {
		t.Errorf("second resume: turn %d, warnings %v", again.turn, again.Warnings)
	}
}

// golden compares v, as indented JSON, with the file at path (-update
// rewrites it).
func golden(t *testing.T, path string, v any) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got):\n%s", path, diff)
	}
}

// TestConvertV1 pins how each kind of version 1 item reads as an event:
// its time from "ts", session_meta's fields from "meta", a cleared item's
// count from its top-level "upto", one request per usage item; the rest
// already had the events' names.
func TestConvertV1(t *testing.T) {
	at := time.Date(2026, 11, 29, 10, 0, 1, 0, time.UTC)
	const ts = `"ts":"2026-11-29T10:00:01Z"`
	for _, tc := range []struct {
		line string
		want event.Event
	}{
		{`{"type":"session_meta",` + ts + `,"meta":{"id":"a","kind":"run","board_id":"b","task_id":"t","version":1}}`,
			event.Event{Type: event.SessionMeta, Time: at, Session: &event.SessionEvent{ID: "a", Kind: "run", BoardID: "b", TaskID: "t", Version: 1}}},
		{`{"type":"cleared",` + ts + `,"upto":7}`,
			event.Event{Type: event.Cleared, Time: at, Compaction: &event.CompactionEvent{Upto: 7}}},
		{`{"type":"compacted",` + ts + `,"compacted":{"summary":"s","upto":5,"task":"q"}}`,
			event.Event{Type: event.Compacted, Time: at, Compaction: &event.CompactionEvent{Summary: "s", Upto: 5, Task: "q"}}},
		{`{"type":"usage",` + ts + `,"usage":{"label":"lead","prompt_tokens":9,"cached_tokens":1,"completion_tokens":2,"reasoning_tokens":0}}`,
			event.Event{Type: event.Usage, Time: at, Usage: &event.UsageEvent{Requests: 1, Label: "lead", Usage: llm.Usage{PromptTokens: 9, CachedTokens: 1, CompletionTokens: 2}}}},
		{`{"type":"delegation_finished",` + ts + `,"delegation":{"call_id":"c","agent":"x","sub_session":"s2","ref":"x/r","status":"ok","recovered":true}}`,
			event.Event{Type: event.DelegationFinished, Time: at, Delegation: &event.DelegationEvent{CallID: "c", Agent: "x", SubSession: "s2", Ref: "x/r", Status: "ok", Recovered: true}}},
		{`{"type":"turn_finished",` + ts + `,"turn":3,"reason":"answer"}`,
			event.Event{Type: event.TurnFinished, Time: at, Turn: 3, Reason: "answer"}},
		{`{"type":"anchor",` + ts + `,"anchor":{"prompt_tokens":10,"history_tokens":4}}`,
			event.Event{Type: event.Anchor, Time: at, Anchor: &event.AnchorEvent{PromptTokens: 10, HistoryTokens: 4}}},
	} {
		got, err := decodeLine([]byte(tc.line))
		if err != nil {
			t.Fatalf("%s: %v", tc.line, err)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.line, diff)
		}
	}
}
