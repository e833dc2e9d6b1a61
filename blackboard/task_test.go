package blackboard

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseTask(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		want     Task
		err      string
	}{
		{name: "full", in: "---\nkind: task\nv: 1\ntitle: \"Fix the parser\"\nteam: \"core\"\nassignee: \"\"\ndepends_on: [\"task/a\"]\nauthor: \"director\"\n---\nbody\n",
			want: Task{Title: "Fix the parser", Team: "core", DependsOn: []string{"task/a"}, Author: "director", Body: "body\n"}},
		{name: "plain yaml", in: "---\nkind: task\ntitle: Write docs\n---\n", want: Task{Title: "Write docs"}},
		{name: "no front matter", in: "just text", err: "no front matter"},
		{name: "handoff note", in: "---\nstatus: ok\nagent: x\n---\nbody", err: `kind "", want "task"`},
		{name: "message", in: "---\nkind: message\nfrom: a\nto: b\n---\nhi", err: `kind "message", want "task"`},
		{name: "no title", in: "---\nkind: task\ntitle: \"  \"\n---\n", err: "the title is empty"},
		{name: "newer", in: "---\nkind: task\nv: 2\ntitle: x\n---\n", err: "v2 is newer"},
		{name: "bad yaml", in: "---\nkind: task\ntitle: [\n---\n", err: "front matter"},
		{name: "NUL", in: "---\nkind: task\ntitle: x\n---\n\x00", err: "NUL bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseTask([]byte(tt.in))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || !errors.Is(err, ErrBadTask) {
					t.Fatalf("ParseTask(%q) error = %v; want one with %q wrapping ErrBadTask", tt.in, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseTask(%q): %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseTask(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

// FuzzParseTask: ParseTask never panics, and every task EncodeTask
// accepts reads back equal.
func FuzzParseTask(f *testing.F) {
	f.Add("Fix it", "body\n", "core", "", "task/x", []byte("---\nkind: task\ntitle: a\n---\n"))
	f.Add("a\U0001F600 \"q\" \\", "", "", "worker", "", []byte("---\nkind: task\n"))
	f.Add("x", "---\nkind: task\n---\n", "t\tab", "", "", []byte{})
	f.Fuzz(func(t *testing.T, title, body, team, assignee, dep string, raw []byte) {
		ParseTask(raw) // never panics
		in := Task{Title: title, Body: body, Team: team, Assignee: assignee, Author: "director"}
		if dep != "" {
			in.DependsOn = []string{dep}
		}
		data, err := EncodeTask(in)
		if err != nil {
			return
		}
		got, err := ParseTask(data)
		if err != nil {
			t.Fatalf("ParseTask(EncodeTask(%+v)) = %v\n%s", in, err, data)
		}
		if diff := cmp.Diff(in, got); diff != "" {
			t.Fatalf("task does not round-trip (-in +got):\n%s\n%s", diff, data)
		}
	})
}

// FuzzParseMessage: ParseMessage never panics, and every message
// EncodeMessage accepts reads back equal.
func FuzzParseMessage(f *testing.F) {
	f.Add("worker", "all", "done with task/x\n", []byte("---\nkind: message\nfrom: a\nto: b\n---\nhi"))
	f.Add("a\U0001F600", "director", "---\n", []byte("---\n"))
	f.Fuzz(func(t *testing.T, from, to, text string, raw []byte) {
		ParseMessage(raw)
		in := Message{From: from, To: to, Text: text}
		data, err := EncodeMessage(in)
		if err != nil {
			return
		}
		got, err := ParseMessage(data)
		if err != nil {
			t.Fatalf("ParseMessage(EncodeMessage(%+v)) = %v\n%s", in, err, data)
		}
		if diff := cmp.Diff(in, got); diff != "" {
			t.Fatalf("message does not round-trip (-in +got):\n%s\n%s", diff, data)
		}
	})
}

func TestPostTaskRefusesBadInput(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	a, err := s.PostTask("b", Task{Title: "first"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		in   Task
		err  string
	}{
		{"empty title", Task{Title: " "}, "the title is empty"},
		{"two-line title", Task{Title: "a\nb"}, "spans lines"},
		{"unknown dependency", Task{Title: "x", DependsOn: []string{"task/20260101T000000Z_abcd-1-000001"}}, "no such task"},
		{"bad dependency", Task{Title: "x", DependsOn: []string{"worker/../x"}}, "no task ref"},
	}
	for _, tt := range tests {
		if _, err := s.PostTask("b", tt.in); err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s: PostTask error = %v; want %q", tt.name, err, tt.err)
		}
	}
	b, err := s.PostTask("b", Task{Title: "second", DependsOn: []string{a.Ref, strings.TrimPrefix(a.Ref, TaskRefPrefix)}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{a.Ref}, b.DependsOn); diff != "" {
		t.Errorf("depends_on not normalised to one ref (-want +got):\n%s", diff)
	}
	l, err := s.Tasks("b")
	if err != nil || len(l.Tasks) != 2 || len(l.Unreadable) != 0 {
		t.Fatalf("Tasks = %+v, %v; want the two tasks posted, nothing stored from the refused ones", l, err)
	}
}

// TestClaimOneWinner: of claimants racing for every task, exactly one
// wins each; the losers are told who holds it; a task waits for its
// depends_on; a landed note makes it done (or failed); the list of
// notes is untouched by tasks, claims and messages.
func TestClaimOneWinner(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	const n, claimants = 20, 4
	var refs []string
	for i := range n {
		tk, err := s.PostTask("b", Task{Title: fmt.Sprintf("task %d", i), Team: "t"})
		if err != nil {
			t.Fatal(err)
		}
		refs = append(refs, tk.Ref)
	}
	var mu sync.Mutex
	winners := map[string][]string{}
	var wg sync.WaitGroup
	for c := range claimants {
		wg.Go(func() {
			for _, ref := range refs {
				note := Ref{Agent: "worker", Stem: s.NewStem()}.String()
				res, err := s.ClaimTask("b", ref, Claim{Agent: "worker", Session: fmt.Sprint("s", c), Ref: note})
				if err != nil {
					t.Error(err)
					return
				}
				if !res.Won && (res.Holder == nil || res.Holder.Agent != "worker") {
					t.Errorf("lost claim of %s names no holder: %+v", ref, res)
				}
				if res.Won {
					mu.Lock()
					winners[ref] = append(winners[ref], note)
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	for _, ref := range refs {
		if len(winners[ref]) != 1 {
			t.Errorf("%s won by %d claimants; want exactly 1", ref, len(winners[ref]))
		}
	}
	l, err := s.Tasks("b")
	if err != nil {
		t.Fatal(err)
	}
	if got := l.Counts()[TaskClaimed]; got != n {
		t.Errorf("claimed = %d; want %d", got, n)
	}
	// The claim's note lands: done; an error note: failed.
	land := func(ref string, st Status) {
		r, _ := ParseNoteRef(winners[ref][0])
		if _, err := s.WriteNote("b", NewNote{Handoff: Handoff{Status: st, Agent: "worker", Task: "x", Conclusion: "did " + ref}, Stem: r.Stem}); err != nil {
			t.Fatal(err)
		}
	}
	land(refs[0], StatusOK)
	land(refs[1], StatusError)
	l, _ = s.Tasks("b")
	if l.Tasks[0].State != TaskDone || l.Tasks[1].State != TaskFailed || l.Tasks[0].Conclusion != "did "+refs[0] {
		t.Errorf("states = %s, %s (%q); want done, failed", l.Tasks[0].State, l.Tasks[1].State, l.Tasks[0].Conclusion)
	}
	res, err := s.ClaimTask("b", refs[0], Claim{Agent: "reviewer", Ref: "reviewer/" + s.NewStem()})
	if err != nil || res.Won || !res.Done || res.Holder.Ref != winners[refs[0]][0] {
		t.Errorf("claim of a done task = %+v, %v; want refused, done, holder's ref", res, err)
	}
	notes, _ := s.ListNotes("b", ListOptions{})
	if len(notes.Notes) != 2 {
		t.Errorf("board lists %d notes; want the 2 landed (tasks and claims are no notes)", len(notes.Notes))
	}
	if rep, err := s.GC(GCOptions{MaxNotesPerBoard: 1}, t0); err != nil {
		t.Fatal(err)
	} else if _, err := os.Stat(filepath.Join(s.BoardDir("b"), tasksDir)); err != nil || len(rep.Notes) != 1 {
		t.Errorf("GC's count cap: removed %v, tasks dir: %v; want 1 note removed and the tasks kept", rep.Notes, err)
	}
}

func TestClaimWaitsForDependencies(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	a, _ := s.PostTask("b", Task{Title: "a"})
	b, _ := s.PostTask("b", Task{Title: "b", DependsOn: []string{a.Ref}})
	res, err := s.ClaimTask("b", b.Ref, Claim{Agent: "w", Ref: "w/" + s.NewStem()})
	if err != nil || res.Won || len(res.Wait) != 1 || res.Wait[0] != a.Ref {
		t.Fatalf("claim of a waiting task = %+v, %v; want refused, waiting on %s", res, err, a.Ref)
	}
	if _, err := os.Stat(filepath.Join(s.BoardDir("b"), claimsDir, strings.TrimPrefix(b.Ref, TaskRefPrefix)+".claim")); !os.IsNotExist(err) {
		t.Errorf("a refused claim left a record: %v", err)
	}
	note := "w/" + s.NewStem()
	if res, _ := s.ClaimTask("b", a.Ref, Claim{Agent: "w", Ref: note}); !res.Won {
		t.Fatal("claim of a free task refused")
	}
	if got := (TaskList{}).Claimable("", "w"); len(got) != 0 {
		t.Errorf("empty list claimable = %v", got)
	}
	r, _ := ParseNoteRef(note)
	s.WriteNote("b", NewNote{Handoff: Handoff{Status: StatusOK, Agent: "w", Conclusion: "ok"}, Stem: r.Stem})
	if res, _ := s.ClaimTask("b", b.Ref, Claim{Agent: "w", Ref: "w/" + s.NewStem()}); !res.Won {
		t.Errorf("claim after the dependency was done = %+v; want won", res)
	}
	if _, err := s.ClaimTask("b", "task/20260101T000000Z_abcd-1-000001", Claim{Agent: "w", Ref: "w/" + s.NewStem()}); !errors.Is(err, ErrNoTask) {
		t.Errorf("claim of no task = %v; want ErrNoTask", err)
	}
}

func TestReleaseClaim(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	a, _ := s.PostTask("b", Task{Title: "a", Team: "t", Assignee: "worker"})
	c := Claim{Agent: "worker", Ref: "worker/" + s.NewStem()}
	if l, _ := s.Tasks("b"); len(l.Claimable("t", "reviewer")) != 0 || len(l.Claimable("t", "worker")) != 1 {
		t.Fatalf("assignee not honoured: %+v", l.Tasks)
	}
	res, _ := s.ClaimTask("b", a.Ref, c)
	if !res.Won {
		t.Fatal("not won")
	}
	other := *res.Holder
	other.Ref = "worker/" + s.NewStem()
	if err := s.ReleaseClaim("b", other); err != nil {
		t.Fatal(err)
	}
	if l, _ := s.Tasks("b"); l.Tasks[0].State != TaskClaimed {
		t.Fatalf("another's release freed the task: %s", l.Tasks[0].State)
	}
	if err := s.ReleaseClaim("b", *res.Holder); err != nil {
		t.Fatal(err)
	}
	if l, _ := s.Tasks("b"); l.Tasks[0].State != TaskOpen {
		t.Fatalf("released task is %s; want open", l.Tasks[0].State)
	}
}

func TestMailbox(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	send := func(from, to, text string) {
		t.Helper()
		if _, err := s.SendMessage("b", Message{From: from, To: to, Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	send("director", "worker", "one")
	send("worker", "all", "two")
	send("reviewer", "all", "three")
	send("worker", "director", "four")
	if _, err := s.SendMessage("b", Message{From: "x", To: "y", Text: " "}); err == nil {
		t.Error("an empty message was sent")
	}
	texts := func(reader string) []string {
		ms, err := s.Mailbox("b", reader)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, m := range ms {
			out = append(out, m.Text)
		}
		return out
	}
	for reader, want := range map[string][]string{"worker": {"one", "three"}, "director": {"two", "three", "four"}, "reviewer": {"two"}} {
		if diff := cmp.Diff(want, texts(reader)); diff != "" {
			t.Errorf("mailbox of %s (-want +got):\n%s", reader, diff)
		}
	}
	// A file of another shape in the mail directory is skipped, a
	// damaged one is not taken for a message.
	os.WriteFile(filepath.Join(s.BoardDir("b"), mailDir, ".tmp123"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(s.BoardDir("b"), mailDir, "20260101T000000Z_abcd-1-000001.md"), []byte("\x00"), 0o644)
	if got := len(texts("director")); got != 3 {
		t.Errorf("director has %d messages after junk; want 3", got)
	}
}

func TestTaskTable(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	a, _ := s.PostTask("b", Task{Title: "build the parser", Team: "core"})
	s.PostTask("b", Task{Title: "document it", Team: "core", DependsOn: []string{a.Ref}, Assignee: "writer"})
	s.ClaimTask("b", a.Ref, Claim{Agent: "worker", Ref: "worker/20261129T100010Z_e9fb-4242-000099"})
	l, err := s.Tasks("b")
	if err != nil {
		t.Fatal(err)
	}
	want := `TASK                                    STATE    TEAM  HOLDER        NOTE                                      WAITING ON                              TITLE
task/20261129T100002Z_e9fb-4242-000001  claimed  core  worker        worker/20261129T100010Z_e9fb-4242-000099  -                                       build the parser
task/20261129T100004Z_e9fb-4242-000002  open     core  (for writer)  -                                         task/20261129T100002Z_e9fb-4242-000001  document it
`
	if diff := cmp.Diff(want, l.Table()); diff != "" {
		t.Errorf("Table (-want +got):\n%s", diff)
	}
	if got, want := l.Summary(), "[tasks · 2: 1 open, 1 claimed]"; got != want {
		t.Errorf("Summary = %q; want %q", got, want)
	}
}
