package kb

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"strings"
	"testing"
)

func TestCreateTokenStoresHashOnly(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newFixture(t, be, Options{})
		plain, tok, err := f.s.CreateToken(t.Context(), f.person, TokenSpec{Name: "ci", Write: true, Projects: []string{"acme/web"}})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(plain, tokenPrefix) || len(plain) < 30 {
			t.Errorf("plaintext %q does not look like a token", plain)
		}
		if tok.Name != "ci" || !tok.Write || len(tok.Projects) != 1 || tok.Projects[0] != "acme/web" {
			t.Errorf("CreateToken = %+v", tok)
		}
		var stored string
		if err := f.s.db.QueryRow("SELECT hash FROM tokens WHERE id = ?", tok.ID).Scan(&stored); err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256([]byte(plain))
		if stored != hex.EncodeToString(sum[:]) {
			t.Errorf("stored %q; want the sha256 of the plaintext", stored)
		}
		f.s.db.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
		if b, _ := os.ReadFile(f.s.Path()); strings.Contains(string(b), plain) {
			t.Error("the plaintext token is in the database file")
		}
		list, err := f.s.ListTokens(t.Context(), f.person)
		if err != nil || len(list) != 3 || list[2].Name != "ci" {
			t.Fatalf("ListTokens = %+v, %v; want agent, reader, ci", list, err)
		}
		if _, _, err := f.s.CreateToken(t.Context(), f.person, TokenSpec{Name: "ci"}); ErrorCode(err) != CodeConflict {
			t.Errorf("second live token named ci: %v; want a conflict", err)
		}
		if _, _, err := f.s.CreateToken(t.Context(), f.agent, TokenSpec{Name: "x"}); ErrorCode(err) != CodeForbidden {
			t.Errorf("agent creating a token: %v; want forbidden", err)
		}
	})
}

func TestAuthenticate(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newFixture(t, be, Options{})
		plain, tok, err := f.s.CreateToken(t.Context(), f.person, TokenSpec{Name: "ro"})
		if err != nil {
			t.Fatal(err)
		}
		c, err := f.s.Authenticate(t.Context(), plain)
		if err != nil {
			t.Fatal(err)
		}
		if c.PrincipalID != f.alice.ID || c.TokenID != tok.ID || c.Kind != KindAgent || c.Write {
			t.Errorf("Authenticate = %+v; want alice's read-only agent via token %d", c, tok.ID)
		}
		for _, bad := range []string{"", "nonsense", plain + "x", tokenPrefix + "aaaa"} {
			if _, err := f.s.Authenticate(t.Context(), bad); !errors.Is(err, ErrUnauthenticated) {
				t.Errorf("Authenticate(%q) = %v; want ErrUnauthenticated", bad, err)
			}
		}
		if err := f.s.RevokeToken(t.Context(), f.person, "ro"); err != nil {
			t.Fatal(err)
		}
		if _, err := f.s.Authenticate(t.Context(), plain); !errors.Is(err, ErrUnauthenticated) {
			t.Errorf("Authenticate(revoked) = %v; want ErrUnauthenticated", err)
		}
		if err := f.s.RevokeToken(t.Context(), f.person, "ro"); ErrorCode(err) != CodeNotFound {
			t.Errorf("revoking twice: %v; want notFound", err)
		}
		list, _ := f.s.ListTokens(t.Context(), f.person)
		if got := list[len(list)-1]; got.RevokedAt == nil {
			t.Errorf("ListTokens shows %+v; want it revoked", got)
		}
	})
}

func TestTokenProjectScope(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newFixture(t, be, Options{})
		if _, err := f.s.CreateProject(t.Context(), f.person, "acme/ops", ""); err != nil {
			t.Fatal(err)
		}
		web := f.token(t, TokenSpec{Name: "web-only", Write: true, Projects: []string{"acme/web"}})
		if _, err := f.s.CreateNote(t.Context(), web, CreateNoteInput{Project: "acme/ops", Body: "# X"}); ErrorCode(err) != CodeNotFound {
			t.Errorf("write outside the token's projects: %v; want notFound", err)
		}
		if _, err := f.s.CreateNote(t.Context(), web, CreateNoteInput{Project: "acme/web", Body: "# X"}); err != nil {
			t.Errorf("write inside the token's project: %v", err)
		}
		ps, _ := f.s.GetMyProjects(t.Context(), web, GetMyProjectsInput{})
		if len(ps.Projects) != 1 || ps.Projects[0].Handle != "acme/web" {
			t.Errorf("get_my_projects for a scoped token = %+v; want acme/web only", ps.Projects)
		}
	})
}

func TestCreateProjectPersonOnly(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newFixture(t, be, Options{})
		if _, err := f.s.CreateProject(t.Context(), f.agent, "acme/new", ""); ErrorCode(err) != CodeForbidden {
			t.Errorf("agent CreateProject: %v; want forbidden", err)
		}
		root, err := f.s.CreateProject(t.Context(), f.person, "acme", "Acme")
		if err != nil {
			t.Fatal(err)
		}
		if root.Handle != "acme" || root.Space != "acme" {
			t.Errorf("root project = %+v; want handle and space acme", root)
		}
		for _, h := range []string{"acme/web", "Bad Handle", "a/b/c", "", "acme/"} {
			if _, err := f.s.CreateProject(t.Context(), f.person, h, ""); err == nil {
				t.Errorf("CreateProject(%q) succeeded; want an error", h)
			}
		}
		ps, _ := f.s.GetMyProjects(t.Context(), f.agent, GetMyProjectsInput{})
		var handles []string
		for _, p := range ps.Projects {
			handles = append(handles, p.Handle)
		}
		if strings.Join(handles, " ") != "acme acme/web" {
			t.Errorf("handles = %v; want [acme acme/web]", handles)
		}
	})
}
