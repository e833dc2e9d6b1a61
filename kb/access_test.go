package kb

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
)

// snapshot hashes every row of every table, to prove a refused call
// changed nothing.
func snapshot(t *testing.T, s *Store) string {
	t.Helper()
	tables, err := stringsQuery(context.Background(), s.db,
		"SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'notes_fts%' ORDER BY name")
	if s.d.name() == "postgres" {
		tables, err = stringsQuery(context.Background(), s.db, "SELECT tablename FROM pg_tables WHERE schemaname = ? ORDER BY tablename", pgSchema)
	}
	if err != nil {
		t.Fatal(err)
	}
	// Rows are hashed sorted as printed: ORDER BY 1 left rows that share a
	// first column (links, tags) in whatever order PostgreSQL's plan gave,
	// and a re-import that wrote nothing once compared unequal under load.
	h := sha256.New()
	for _, table := range tables {
		rows, err := s.db.Query("SELECT * FROM " + table)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		var lines []string
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			lines = append(lines, fmt.Sprintf("%s %v\n", table, vals))
		}
		rows.Close()
		slices.Sort(lines)
		for _, l := range lines {
			io.WriteString(h, l)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// writeCalls has valid arguments for every write tool against the fixture
// after seedForWrites.
func writeCalls(ids map[string]string) map[string]string {
	return map[string]string{
		"create_note":            `{"project":"acme/web","body":"# New note\n\ntext"}`,
		"remember_about_user":    `{"category":"preferences","observation":"likes tea"}`,
		"remember_about_project": `{"project":"acme/web","category":"pitfalls","observation":"tests are slow"}`,
		"edit_note":              fmt.Sprintf(`{"id":%q,"versionToken":%q,"mode":"append","content":"more"}`, ids["a"], ids["aToken"]),
		"delete_note":            fmt.Sprintf(`{"id":%q}`, ids["a"]),
		"link":                   fmt.Sprintf(`{"from":%q,"to":%q}`, ids["a"], ids["b"]),
		"move_note":              fmt.Sprintf(`{"id":%q,"path":"elsewhere"}`, ids["a"]),
		"rename_note":            fmt.Sprintf(`{"id":%q,"title":"Renamed"}`, ids["a"]),
		"move_folder":            `{"project":"acme/web","path":"guides","newParent":"archive"}`,
		"rename_folder":          `{"project":"acme/web","path":"guides","newName":"howtos"}`,
		"rename_project":         `{"project":"acme/web","newHandle":"acme/site"}`,
		"create_notes":           `{"project":"acme/web","notes":[{"body":"# One"},{"body":"# Two"}]}`,
		"link_many":              fmt.Sprintf(`{"links":[{"from":%q,"toTitle":"Future"}]}`, ids["a"]),
	}
}

func seedForWrites(t *testing.T, f *fixture) map[string]string {
	t.Helper()
	a, err := f.s.CreateNote(t.Context(), f.agent, CreateNoteInput{Project: "acme/web", Body: "# Alpha\n\nbody", Path: "guides"})
	if err != nil {
		t.Fatal(err)
	}
	b := f.create(t, "acme/web", "# Beta\n\nbody")
	return map[string]string{"a": a.ID, "aToken": a.VersionToken, "b": b.ID}
}

func TestReadTokenRefusesEveryWriteTool(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newFixture(t, be, Options{})
		calls := writeCalls(seedForWrites(t, f))
		for _, tool := range Tools() {
			if tool.ReadOnly {
				continue
			}
			args, ok := calls[tool.Name]
			if !ok {
				t.Errorf("no test call for write tool %s", tool.Name)
				continue
			}
			t.Run(tool.Name, func(t *testing.T) {
				before := snapshot(t, f.s)
				_, err := f.s.Call(t.Context(), f.reader, tool.Name, []byte(args))
				wantCode(t, err, CodeForbidden)
				if !strings.Contains(err.Error(), "read-only") {
					t.Errorf("error %q does not say the token is read-only", err)
				}
				if snapshot(t, f.s) != before {
					t.Error("a refused write changed the database")
				}
				// The typed method refuses too, not only the dispatcher.
				if err := callMethodDirectly(t, f.s, f.reader, tool, args); ErrorCode(err) != CodeForbidden {
					t.Errorf("method for %s with a read token: %v; want forbidden", tool.Name, err)
				}
				if snapshot(t, f.s) != before {
					t.Error("a refused write (method) changed the database")
				}
			})
		}
	})
}

// callMethodDirectly runs the tool's method without Call's own check.
func callMethodDirectly(t *testing.T, s *Store, c Caller, tool ToolInfo, args string) error {
	t.Helper()
	for _, d := range toolDefs() {
		if d.Name == tool.Name {
			_, err := d.call(t.Context(), s, c, []byte(args))
			return err
		}
	}
	t.Fatalf("no tool %s", tool.Name)
	return nil
}

func TestWriteWithoutMembershipRefused(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newFixture(t, be, Options{})
		ids := seedForWrites(t, f)
		bob, err := f.s.CreatePrincipal(t.Context(), "bob")
		if err != nil {
			t.Fatal(err)
		}
		bobPerson := PersonCaller(bob.ID, "cli")
		plain, _, err := f.s.CreateToken(t.Context(), bobPerson, TokenSpec{Name: "bob-agent", Write: true})
		if err != nil {
			t.Fatal(err)
		}
		bobAgent, err := f.s.Authenticate(t.Context(), plain)
		if err != nil {
			t.Fatal(err)
		}
		for name, args := range writeCalls(ids) {
			if strings.HasPrefix(name, "remember_about_user") {
				continue // bob's own profile: allowed
			}
			t.Run(name, func(t *testing.T) {
				before := snapshot(t, f.s)
				res, err := f.s.Call(t.Context(), bobAgent, name, []byte(args))
				if name == "link_many" {
					// Best effort: the refusal is per item.
					if err != nil || !strings.Contains(string(res), `"status":"error"`) || !strings.Contains(string(res), "no note") {
						t.Errorf("link_many = %s, %v; want the item refused", res, err)
					}
				} else {
					wantCode(t, err, CodeNotFound)
				}
				if snapshot(t, f.s) != before {
					t.Error("a refused write changed the database")
				}
			})
		}
		// Reads are refused the same way.
		if _, err := f.s.GetNote(t.Context(), bobAgent, GetNoteInput{Ref: ids["a"]}); ErrorCode(err) != CodeNotFound {
			t.Errorf("bob reading alice's note: %v; want notFound", err)
		}
		out, err := f.s.Search(t.Context(), bobAgent, SearchInput{Query: "alpha"})
		if err != nil || len(out.Results) != 0 {
			t.Errorf("bob's search = %+v, %v; want no results", out.Results, err)
		}
	})
}

func TestToolsForReadToken(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newFixture(t, be, Options{})
		for _, tool := range ToolsFor(f.reader) {
			if !tool.ReadOnly {
				t.Errorf("read token sees write tool %s", tool.Name)
			}
		}
		if got, want := len(ToolsFor(f.reader)), 8; got != want {
			t.Errorf("read token sees %d tools; want %d", got, want)
		}
		if got := len(ToolsFor(f.agent)); got != 21 {
			t.Errorf("write token sees %d tools; want 21", got)
		}
	})
}
