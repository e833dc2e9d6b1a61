package mcp

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestStartSessionReconnectSeesChanges pins start_session's visits per MCP
// connection (seed 004: "what changed since your previous visit"): calls
// of one connection are one visit and see the same delta, even after a
// change; a client that reconnects — a new stdio connection, or a new
// initialize over stateless HTTP — starts a new visit and sees the change,
// well within kb's idle window.
func TestStartSessionReconnectSeesChanges(t *testing.T) {
	type visit struct {
		Delta struct {
			FirstVisit bool `json:"firstVisit"`
			Changes    []struct {
				Title  string `json:"title"`
				Action string `json:"action"`
			} `json:"changes"`
		} `json:"delta"`
	}
	start := func(t *testing.T, cs *sdk.ClientSession) visit {
		t.Helper()
		res := call(t, cs, "start_session", `{}`)
		if res.IsError {
			t.Fatal(text(res))
		}
		var v visit
		if err := json.Unmarshal([]byte(text(res)), &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	sees := func(v visit, title string) bool {
		for _, c := range v.Delta.Changes {
			if c.Title == title && c.Action == "create" {
				return true
			}
		}
		return false
	}
	for _, tc := range []struct {
		name    string
		connect func(t *testing.T, f *fixture) func() *sdk.ClientSession
	}{
		{"stdio", func(t *testing.T, f *fixture) func() *sdk.ClientSession {
			s, err := f.gw.ServerForToken(t.Context(), f.write)
			if err != nil {
				t.Fatal(err)
			}
			return func() *sdk.ClientSession { return connect(t, s) }
		}},
		{"http", func(t *testing.T, f *fixture) func() *sdk.ClientSession {
			srv := httptest.NewServer(f.gw.HTTPHandler())
			t.Cleanup(srv.Close)
			return func() *sdk.ClientSession {
				cs, err := httpSession(t, srv.URL, f.write)
				if err != nil {
					t.Fatal(err)
				}
				return cs
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			dial := tc.connect(t, f)
			first := dial()
			if v := start(t, first); !v.Delta.FirstVisit {
				t.Fatalf("first visit = %+v", v)
			}
			title := "Release plan " + tc.name
			if _, err := f.store.Call(t.Context(), f.person, "create_note", []byte(fmt.Sprintf(`{"project":"acme/web","body":"# %s\nShip on Friday."}`, title))); err != nil {
				t.Fatal(err)
			}
			if v := start(t, first); !v.Delta.FirstVisit || sees(v, title) {
				t.Errorf("the same connection again = %+v; want the same visit (idempotent), not the change", v)
			}
			first.Close()
			again := dial()
			second := start(t, again)
			if second.Delta.FirstVisit || !sees(second, title) {
				t.Errorf("after reconnecting = %+v; want a new visit that lists %q", second, title)
			}
			// Another client writes in the middle of this visit: every
			// call of the visit still returns the same delta; the change
			// shows in the next visit, and what the last one showed does
			// not show again.
			later := "Retro notes " + tc.name
			if _, err := f.store.Call(t.Context(), f.person, "create_note", []byte(fmt.Sprintf(`{"project":"acme/web","body":"# %s\nWent well."}`, later))); err != nil {
				t.Fatal(err)
			}
			if v := start(t, again); !reflect.DeepEqual(v, second) {
				t.Errorf("the same visit after another client's change = %+v; want the same delta as its first call, %+v", v, second)
			}
			again.Close()
			third := start(t, dial())
			if third.Delta.FirstVisit || !sees(third, later) || sees(third, title) {
				t.Errorf("the next visit = %+v; want %q only", third, later)
			}
		})
	}
}

// TestStartSessionReconnectOverHTTP2025 is the same over stateless HTTP
// with a client of the 2025 protocol (as the TypeScript SDK speaks it):
// its initialize starts a new visit.
func TestStartSessionReconnectOverHTTP2025(t *testing.T) {
	f := newFixture(t)
	srv := httptest.NewServer(f.gw.HTTPHandler())
	defer srv.Close()
	rpc := rpc2025(t, srv.URL, f.write)
	connect := func() {
		rpc(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"ts-like","version":"1"}}}`)
		rpc(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	}
	start := func() string {
		return rpc(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"start_session","arguments":{}}}`)
	}
	connect()
	if out := start(); !strings.Contains(out, `firstVisit`) {
		t.Fatalf("first visit: %s", out)
	}
	if _, err := f.store.Call(t.Context(), f.person, "create_note", []byte(`{"project":"acme/web","body":"# Release plan\nShip on Friday."}`)); err != nil {
		t.Fatal(err)
	}
	if out := start(); !strings.Contains(out, `firstVisit`) || strings.Contains(out, "Release plan") {
		t.Errorf("the same connection again lists the change or left the visit: %s", out)
	}
	connect()
	if out := start(); strings.Contains(out, `firstVisit`) || !strings.Contains(out, "Release plan") {
		t.Errorf("after a new initialize: %s; want the change", out)
	}
}
