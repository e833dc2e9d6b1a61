package memory

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/yagent/yagent/event"
	"github.com/yagent/yagent/llm"
)

// writeEvents writes events as a rollout file (session_meta first).
func writeEvents(t testing.TB, events ...event.Event) string {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	all := append([]event.Event{{Type: event.SessionMeta, Session: &event.SessionEvent{ID: "s", Version: RolloutVersion}}}, events...)
	for _, it := range all {
		if err := enc.Encode(it); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), "rollout.jsonl")
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestLoadRolloutBounded pins the bounded read the web view uses: every
// string longer than the bound is cut to a prefix of it (never inside a
// character or an escape) and listed with its path and size; everything
// else reads exactly as LoadRollout reads it; CopyString serves each cut
// string whole, decoded (escapes, surrogate pairs, multi-byte characters).
func TestLoadRolloutBounded(t *testing.T) {
	long := strings.Repeat("é \"quoted\"\n\ttab 😀 <html> \u2028 ", 200) // escapes of every kind once encoded
	why := strings.Repeat("why ", 300)
	args := `{"path":"` + strings.Repeat("a/", 600) + `"}`
	events := []event.Event{
		{Type: event.TurnStarted, Turn: 1},
		{Type: event.Message, Message: &llm.Message{Role: llm.RoleUser, Content: "short"}},
		{Type: event.Message, Message: &llm.Message{Role: llm.RoleAssistant, Content: long, Reasoning: why,
			ToolCalls: []llm.ToolCall{{ID: "c1", Name: "read_file", Arguments: "{}"}, {ID: "c2", Name: "write_file", Arguments: args}}}},
		{Type: event.Compacted, Compaction: &event.CompactionEvent{Summary: long, Upto: 2}},
	}
	path := writeEvents(t, events...)
	full, err := LoadRollout(path)
	if err != nil {
		t.Fatal(err)
	}
	const max = 1000
	got, err := LoadRolloutBounded(path, max)
	if err != nil {
		t.Fatal(err)
	}
	wantCut := map[int][]CutString{
		4: {{"message.content", rawLen(long)}, {"message.reasoning", rawLen(why)}, {"message.tool_calls.1.arguments", rawLen(args)}},
		5: {{"compacted.summary", rawLen(long)}},
	}
	for i, it := range got.Items {
		want := full.Items[i]
		if it.Line != i+2 {
			t.Errorf("item %d: Line %d; want %d", i, it.Line, i+2)
		}
		if diff := cmp.Diff(wantCut[it.Line], it.Cut); diff != "" {
			t.Errorf("line %d: Cut (-want +got):\n%s", it.Line, diff)
		}
		for _, c := range it.Cut {
			var buf bytes.Buffer
			n, err := CopyString(&buf, path, it.Line, c.Path)
			if err != nil || n != int64(buf.Len()) {
				t.Fatalf("CopyString(%d, %s) = %d, %v", it.Line, c.Path, n, err)
			}
			whole := map[string]string{"message.content": long, "message.reasoning": why, "message.tool_calls.1.arguments": args, "compacted.summary": long}[c.Path]
			if buf.String() != whole {
				t.Errorf("CopyString(%d, %s) = %d bytes; want the whole %d bytes", it.Line, c.Path, buf.Len(), len(whole))
			}
		}
		// Cut strings are prefixes of the originals; the rest is equal.
		prefix := cmp.Comparer(func(a, b string) bool {
			short, whole := a, b
			if len(short) > len(whole) {
				short, whole = whole, short
			}
			return short == whole || len(it.Cut) > 0 && len(short) <= max && strings.HasPrefix(whole, short) && len(short) > max/2
		})
		if diff := cmp.Diff(want, it, prefix, cmpopts.IgnoreFields(Item{}, "Line", "Cut")); diff != "" {
			t.Errorf("line %d differs from LoadRollout's (-full +bounded):\n%s", it.Line, diff)
		}
	}
	if len(got.Items) != len(full.Items) {
		t.Fatalf("%d items; want %d", len(got.Items), len(full.Items))
	}
	if _, err := CopyString(&bytes.Buffer{}, path, 3, "message.content"); err != nil {
		t.Errorf("CopyString of a string that was not cut: %v", err)
	}
	for _, tc := range []struct {
		line int
		path string
	}{{3, "message.reasoning"}, {2, "message.content"}, {99, "message.content"}, {4, "message.tool_calls"}} {
		if _, err := CopyString(&bytes.Buffer{}, path, tc.line, tc.path); !errors.Is(err, ErrNoString) {
			t.Errorf("CopyString(%d, %s) = %v; want ErrNoString", tc.line, tc.path, err)
		}
	}
}

func rawLen(s string) int64 {
	b, _ := json.Marshal(s)
	return int64(len(b) - 2)
}

// TestLoadRolloutBoundedDamage pins that the bounded read treats damage
// as LoadRollout does: a torn last line and damaged lines are skipped with
// the same warnings, a file that is no rollout is the same error.
func TestLoadRolloutBoundedDamage(t *testing.T) {
	meta := `{"type":"session_meta","meta":{"id":"a","version":1}}` + "\n"
	for _, data := range []string{
		meta + "GARBAGE\n" + `{"type":"turn_started","turn":1}` + "\n",
		meta + `{"type":"message","message":{"role":"user","content":"half`,
		meta + `{"type":"message","message":{"role":"user","content":"bad\n` + `"}}` + "\n" + `{"type":"turn_started","turn":2}` + "\n",
		meta + "\n\n" + `{"type":"cleared","upto":3}`,
		meta + `{"type":"turn_started","turn":1} trailing` + "\n",
		meta + `[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[` + strings.Repeat("[", 500) + "\n",
		`{"type":"message"}` + "\n",
		"",
	} {
		path := filepath.Join(t.TempDir(), "r.jsonl")
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		want, werr := LoadRollout(path)
		got, gerr := LoadRolloutBounded(path, 64)
		if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
			t.Errorf("%q: err %v; want %v", data, gerr, werr)
			continue
		}
		if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(Item{}, "Line", "Cut")); diff != "" {
			t.Errorf("%q (-LoadRollout +bounded):\n%s", data, diff)
		}
	}
}

// FuzzLoadRolloutBounded: on any file the bounded read never panics, and
// with a bound no string reaches it reads what LoadRollout reads.
func FuzzLoadRolloutBounded(f *testing.F) {
	f.Add([]byte(`{"type":"session_meta","meta":{"id":"a","version":1}}` + "\n" + `{"type":"message","message":{"role":"user","content":"h\u00e9\ud83d\ude00i"}}` + "\n"))
	f.Add([]byte(`{"type":"session_meta","meta":{"id":"a"}}` + "\n" + `{"type":"compacted","compacted":{"summary":"s","upto":99}}`))
	f.Add([]byte("\n\n{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "r.jsonl")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		_, _ = LoadRolloutBounded(path, 3)
		want, werr := LoadRollout(path)
		got, gerr := LoadRolloutBounded(path, 1<<20)
		if werr != nil || gerr != nil {
			if (werr == nil) != (gerr == nil) {
				t.Fatalf("err %v; LoadRollout: %v", gerr, werr)
			}
			return
		}
		if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(Item{}, "Line", "Cut"), cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("(-LoadRollout +bounded):\n%s", diff)
		}
	})
}
