package webui

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/budget"
	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/event"
	"github.com/yagent/yagent/internal/statedb"
	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/memory"
	"github.com/yagent/yagent/notebook"
)

const testToken = "t0k3n"

// fixture is a home with: a run session in /w whose director delegated
// to two sub-agents in parallel (their notes on its board, one with a
// person's own front matter keys and raw HTML in its body), a notebook
// with an archive; a session in /other; and a batch session whose plan
// is half done and whose process (this one) still holds it.
type fixture struct {
	st                *memory.Store
	board             *blackboard.Store
	run, other, batch *memory.Session
	refA, refB        string
	subA              string // the sub-agent session of refA
	srv               *Server
	ts                *httptest.Server
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	home := t.TempDir()
	db, err := statedb.Open(t.Context(), filepath.Join(home, "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	st := memory.NewStore(db, home)
	var mu sync.Mutex
	now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	st.Now = func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(100 * time.Millisecond)
		return now
	}
	fx := &fixture{st: st, board: blackboard.Open(filepath.Join(home, "notes"))}
	ctx := t.Context()
	create := func(o memory.CreateOptions) *memory.Session {
		t.Helper()
		s, err := st.Create(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}

	// The run: a question, two delegations in parallel, an answer.
	fx.run = create(memory.CreateOptions{Kind: memory.KindRun, Cwd: "/w", Model: "m", Title: "How is this repo laid out?"})
	n, err := fx.run.BeginTurn(ctx, "How is this repo laid out?")
	must(err)
	must(fx.run.Append(llm.Message{Role: llm.RoleUser, Content: "How is this repo laid out?"}))
	must(fx.run.Append(llm.Message{Role: llm.RoleAssistant, Content: "I'll split this in **two**.", ToolCalls: []llm.ToolCall{
		{ID: "call_a", Name: "delegate", Arguments: `{"agent":"explorer","task":"Map the packages"}`},
		{ID: "call_b", Name: "delegate", Arguments: `{"agent":"reviewer","task":"Review WriteNote"}`},
	}}))
	subA := create(memory.CreateOptions{Kind: memory.KindSubagent, Cwd: "/w", ParentID: fx.run.ID(), BoardID: fx.run.BoardID(), Title: "explorer: Map the packages"})
	must(fx.run.DelegationStarted(event.DelegationEvent{CallID: "call_a", Agent: "explorer", Task: "Map the packages", SubSession: subA.ID()}))
	subB := create(memory.CreateOptions{Kind: memory.KindSubagent, Cwd: "/w", ParentID: fx.run.ID(), BoardID: fx.run.BoardID(), Title: "reviewer: Review WriteNote"})
	must(fx.run.DelegationStarted(event.DelegationEvent{CallID: "call_b", Agent: "reviewer", Task: "Review WriteNote", SubSession: subB.ID()}))
	must(subA.RecordUsage(ctx, "turn", llm.Usage{PromptTokens: 1200, CachedTokens: 200, CompletionTokens: 34}))
	must(subB.RecordUsage(ctx, "turn", llm.Usage{PromptTokens: 900, CompletionTokens: 56}))
	a, err := fx.board.WriteNote(fx.run.BoardID(), blackboard.NewNote{
		Handoff: blackboard.Handoff{Status: blackboard.StatusOK, Agent: "explorer", Task: "Map the packages", Conclusion: "Six packages, cmd is thin.",
			Session: subA.ID(), Facts: []string{"module github.com/yagent/yagent"}, Usage: &blackboard.NoteUsage{Requests: 1, PromptTokens: 1200, CachedTokens: 200, CompletionTokens: 34, CostUSD: new(0.0042)}},
		Body: "# Package map\n\n- cmd/yagent — thin\n- agents\n\n<script>alert('x')</script>\n",
	})
	must(err)
	fx.refA, fx.subA = a.Ref, subA.ID()
	must(budget.SQLite{DB: db.DB}.Charge(ctx, []string{"session:" + fx.run.ID()}, budget.Spend{Cost: 0.0123, Tokens: 2190, Calls: 2}))
	must(fx.run.DelegationFinished(event.DelegationEvent{CallID: "call_a", Agent: "explorer", Ref: a.Ref, Status: "ok", SubSession: subA.ID()}))
	b, err := fx.board.WriteNote(fx.run.BoardID(), blackboard.NewNote{
		Handoff: blackboard.Handoff{Status: blackboard.StatusPartial, Agent: "reviewer", Task: "Review WriteNote", Conclusion: "Atomic; names unique.", Reason: "ran out of steps",
			Supersedes: a.Ref},
		Body: "Review body with a [link](https://example.com).",
	})
	must(err)
	fx.refB = b.Ref
	must(fx.run.DelegationFinished(event.DelegationEvent{CallID: "call_b", Agent: "reviewer", Ref: b.Ref, Status: "partial", SubSession: subB.ID()}))
	must(fx.run.Append(llm.Message{Role: llm.RoleTool, ToolCallID: "call_a", Content: "status: ok\nref: " + a.Ref}))
	must(fx.run.Append(llm.Message{Role: llm.RoleTool, ToolCallID: "call_b", Content: "status: partial\nref: " + b.Ref}))
	must(fx.run.Append(llm.Message{Role: llm.RoleAssistant, Content: "The module is **tidy**.", Reasoning: "Both notes agree."}))
	must(fx.run.EndTurn(ctx, n, "done"))
	// A person's own front matter keys on a note of the board.
	mkfile(t, filepath.Join(fx.board.BoardDir(fx.run.BoardID()), "person", "20261129T100000Z_abcd-1-000001.md"),
		"---\nversion: 2\nstatus: ok\nagent: person\ntask: tag it\nconclusion: tagged\nfacts: []\nartifacts: []\ncreated: 2026-11-29T10:00:00Z\ntags: [release, v1]\nowner: alice\n---\nBody.\n")

	// The notebook and its archive.
	book := notebook.Open(db, fx.run.ID(), config.Notes{Enabled: true, MaxNoteChars: 2000, PinnedChars: 2000, PinnedMax: 4})
	if _, err := book.Save(ctx, "goal", "what we are after", "Ship **v1**."); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO chat_notes_archive(chat_id, archived, notes) VALUES (?, 0, ?)`, fx.run.ID(),
		`[{"name":"old-goal","description":"the goal before","body":"Ship v0."}]`); err != nil {
		t.Fatal(err)
	}

	fx.other = create(memory.CreateOptions{Kind: memory.KindRun, Cwd: "/other", Model: "m", Title: "elsewhere"})

	// A batch half done: packages ok, deps running, summary pending.
	dir := t.TempDir()
	mkfile(t, filepath.Join(dir, "plan.yaml"), readFile(t, "testdata/live-batch.yaml"))
	fx.batch = create(memory.CreateOptions{Kind: memory.KindBatch, Cwd: dir, Model: "m", BoardID: "ui-live", Title: "batch plan.yaml"})
	must(fx.batch.DelegationStarted(event.DelegationEvent{CallID: "packages", Agent: "explorer", Task: "List the top-level packages of this module."}))
	must(fx.batch.DelegationStarted(event.DelegationEvent{CallID: "deps", Agent: "explorer", Task: "List the dependencies in go.mod."}))
	p, err := fx.board.WriteNote("ui-live", blackboard.NewNote{Handoff: blackboard.Handoff{Status: blackboard.StatusOK, Agent: "explorer", Conclusion: "listed", Key: "batch:packages"}})
	must(err)
	must(fx.batch.DelegationFinished(event.DelegationEvent{CallID: "packages", Agent: "explorer", Ref: p.Ref, Status: "ok"}))

	fx.srv, err = New(Options{Sessions: st, Board: fx.board, Index: blackboard.IndexOptions{MaxNotes: 20, LineChars: 160},
		Cwd: "/w", Token: testToken, Poll: 20 * time.Millisecond, Now: st.Now})
	must(err)
	fx.ts = httptest.NewServer(fx.srv.Handler())
	t.Cleanup(fx.ts.Close)
	return fx
}

// client is a browser that opened the printed address: it holds the
// cookie.
func (fx *fixture) client(t *testing.T) *http.Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	resp, err := c.Get(fx.ts.URL + "/?token=" + testToken)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("opening the printed address: %s", resp.Status)
	}
	return c
}

func get(t *testing.T, c *http.Client, url string) (int, string) {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

func mkfile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// noteURL is the page of a note.
func noteURL(board, ref string) string {
	agent, stem, _ := strings.Cut(ref, "/")
	return "/b/" + board + "/n/" + agent + "/" + stem
}
