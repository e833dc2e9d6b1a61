package mcp

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yagent/yagent/internal/pgtest"
	"github.com/yagent/yagent/kb"
)

// TestGatewayReplicasOnPostgres pins the team KB: two HTTP gateways, each
// with its own store and connection pool on one PostgreSQL database, take
// 20 concurrent edit_note calls carrying the same versionToken, ten each.
// Exactly one edit wins; the other 19 get versionConflict — the database
// decides, since no process sees all the calls.
func TestGatewayReplicasOnPostgres(t *testing.T) {
	dsn := pgtest.New(t)
	ctx := t.Context()
	var replicas [2]*kb.Store
	for i := range replicas {
		s, err := kb.OpenPostgres(ctx, dsn, kb.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		replicas[i] = s
	}
	s := replicas[0]
	alice, err := s.CreatePrincipal(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	person := kb.PersonCaller(alice.ID, "test")
	if _, err := s.CreateProject(ctx, person, "acme/web", "Acme web"); err != nil {
		t.Fatal(err)
	}
	token, _, err := s.CreateToken(ctx, person, kb.TokenSpec{Name: "team", Write: true})
	if err != nil {
		t.Fatal(err)
	}
	var urls []string
	for _, store := range replicas {
		srv := httptest.NewServer((&Gateway{Store: store, Version: "test", Owner: alice.ID}).HTTPHandler())
		t.Cleanup(srv.Close)
		urls = append(urls, srv.URL)
	}
	first, err := httpSession(t, urls[0], token)
	if err != nil {
		t.Fatal(err)
	}
	created := call(t, first, "create_note", `{"project":"acme/web","body":"# Runbook\n\nStart here."}`)
	var note struct{ ID, VersionToken string }
	if err := json.Unmarshal([]byte(text(created)), &note); err != nil || note.VersionToken == "" {
		t.Fatalf("create_note = %s (%v)", text(created), err)
	}

	const n = 20
	sessions := make([]*sdk.ClientSession, n)
	for i := range sessions {
		if sessions[i], err = httpSession(t, urls[i%2], token); err != nil {
			t.Fatal(err)
		}
	}
	results := make([]*sdk.CallToolResult, n)
	errs := make([]error, n)
	var start, done sync.WaitGroup
	start.Add(1)
	for i := range n {
		done.Go(func() {
			start.Wait()
			args, _ := json.Marshal(map[string]string{"id": note.ID, "versionToken": note.VersionToken, "mode": "append",
				"content": "step " + string(rune('a'+i))})
			results[i], errs[i] = sessions[i].CallTool(ctx, &sdk.CallToolParams{Name: "edit_note", Arguments: json.RawMessage(args)})
		})
	}
	start.Done()
	done.Wait()
	wins, conflicts := 0, 0
	for i, res := range results {
		switch {
		case errs[i] != nil:
			t.Errorf("edit %d: protocol error %v", i, errs[i])
		case !res.IsError:
			wins++
		case strings.Contains(text(res), "versionConflict"):
			conflicts++
		default:
			t.Errorf("edit %d: %s", i, text(res))
		}
	}
	if wins != 1 || conflicts != n-1 {
		t.Fatalf("%d edits won, %d conflicted; want exactly 1 and %d", wins, conflicts, n-1)
	}
	got := call(t, first, "get_note", `{"ref":"`+note.ID+`"}`)
	if c := strings.Count(text(got), "step "); c != 1 {
		t.Errorf("the note holds %d appended steps; want 1: %s", c, text(got))
	}
}
