package kb

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestCall(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newFixture(t, be, Options{})
		res, err := f.s.Call(t.Context(), f.agent, "create_note", []byte(`{"project":"acme/web","body":"# Via call","tags":["a"]}`))
		if err != nil {
			t.Fatal(err)
		}
		var created CreateNoteOutput
		if err := json.Unmarshal(res, &created); err != nil || created.Title != "Via call" {
			t.Fatalf("create_note result %s: %v", res, err)
		}
		res, err = f.s.Call(t.Context(), f.reader, "get_note", []byte(`{"ref":"[[via call]]","project":"acme/web"}`))
		if err != nil {
			t.Fatal(err)
		}
		var n Note
		if err := json.Unmarshal(res, &n); err != nil || n.ID != created.ID || n.VersionToken != created.VersionToken {
			t.Errorf("get_note result %s: %v", res, err)
		}
		for _, name := range []string{"whoami", "get_my_projects", "start_session"} {
			for _, args := range []string{"", "null", "{}"} {
				if _, err := f.s.Call(t.Context(), f.reader, name, []byte(args)); err != nil {
					t.Errorf("Call(%s, %q) = %v", name, args, err)
				}
			}
		}
	})
}

func TestCallRejectsBadArguments(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newFixture(t, be, Options{})
		for _, tc := range []struct {
			tool, args string
			want       []string
		}{
			{"create_note", `{"project":"acme/web","body":"# X","title":"X"}`, []string{`unknown argument "title"`, "project, body, path, type, tags, links"}},
			{"create_note", `{"project":"acme/web","body":"# X","links":[{"to":"n1","kind":"x"}]}`, []string{`unknown argument "kind" in links[0]`, "type, to, toTitle"}},
			{"create_note", `{"project":"acme/web"}`, []string{`missing required argument "body"`, "# Title"}},
			{"create_notes", `{"project":"acme/web","notes":[{"path":"x"}]}`, []string{`missing required argument "body" in notes[0]`}},
			{"edit_note", `{"id":"n1","versionToken":"v1","mode":"append"}`, []string{`missing required argument "content"`}},
			{"search", `{"query":42}`, []string{"query must be a string", "not number"}},
			{"search", `{"query":"x","limit":"ten"}`, []string{"limit must be an integer"}},
			{"search", `["x"]`, []string{"must be a JSON object"}},
			{"search", `{"query":`, []string{"not valid JSON"}},
			{"whoami", `{"verbose":true}`, []string{`unknown argument "verbose"`, "accepted arguments: none"}},
			{"make_coffee", `{}`, []string{`unknown tool "make_coffee"`, "start_session"}},
		} {
			t.Run(tc.tool+tc.args, func(t *testing.T) {
				before := snapshot(t, f.s)
				_, err := f.s.Call(t.Context(), f.agent, tc.tool, []byte(tc.args))
				wantCode(t, err, CodeInvalidArgument)
				for _, w := range tc.want {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not contain %q", err, w)
					}
				}
				if snapshot(t, f.s) != before {
					t.Error("a rejected call changed the database")
				}
			})
		}
	})
}
