package webui

import (
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/internal/statedb"
	"github.com/yagent/yagent/memory"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

func TestMain(m *testing.M) {
	time.Local = time.UTC // pages show local times; goldens must not depend on the machine
	os.Exit(m.Run())
}

// TestV1Rollout pins that a session whose rollouts were written before
// rollouts recorded the --json events (version 1, ../memory/testdata/rollout-v1:
// a run that read a file, delegated to an explorer, was compacted and went
// on) shows in the web view as it did: the sessions list, the transcript,
// the timeline (tokens from the sub-agent's rollout) and the spend.
func TestV1Rollout(t *testing.T) {
	const lead, sub = "20261129T100001-a1b2c3", "20261129T100005-d4e5f6"
	home := t.TempDir()
	db, err := statedb.Open(t.Context(), filepath.Join(home, "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	st := memory.NewStore(db, home)
	now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	st.Now = func() time.Time { now = now.Add(time.Second); return now }
	// In this order: st.Now counts, so the rows' times depend on it.
	for _, f := range [][2]string{{lead, "lead.jsonl"}, {sub, "sub.jsonl"}} {
		id, file := f[0], f[1]
		o := memory.CreateOptions{ID: id, Kind: memory.KindRun, Cwd: "/work/demo", Model: "gpt-test", Title: "Map the packages and say which one writes notes."}
		if id == sub {
			o.Kind, o.ParentID, o.BoardID, o.Title = memory.KindSubagent, lead, lead, "explorer: Map the packages"
		}
		s, err := st.Create(t.Context(), o)
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		mkfile(t, s.Info().Rollout, readFile(t, filepath.Join("..", "memory", "testdata", "rollout-v1", file)))
	}
	srv, err := New(Options{Sessions: st, Board: blackboard.Open(filepath.Join(home, "notes")), Index: blackboard.IndexOptions{MaxNotes: 20, LineChars: 160},
		Cwd: "/work/demo", All: true, Token: testToken, Now: func() time.Time { return time.Date(2026, 11, 29, 11, 0, 0, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	c := (&fixture{ts: ts}).client(t)
	for name, path := range map[string]string{
		"sessions":   "/?all=1",
		"transcript": "/s/" + lead,
		"timeline":   "/s/" + lead + "/timeline",
		"sub":        "/s/" + sub,
	} {
		code, body := get(t, c, ts.URL+path)
		if code != http.StatusOK {
			t.Fatalf("GET %s = %d:\n%s", path, code, body)
		}
		body = strings.ReplaceAll(body, ts.URL, "URL")
		file := filepath.Join("testdata", "TestV1Rollout", name+".html")
		if *update {
			mkfile(t, file, body)
			continue
		}
		if diff := cmp.Diff(readFile(t, file), body); diff != "" {
			t.Errorf("GET %s differs from %s (-want +got):\n%s", path, file, diff)
		}
	}
}
