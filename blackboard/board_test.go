package blackboard

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestNotesRootDir pins constraint 9, including the seed's known gap: when
// the home directory cannot be found the root falls back to "notes" under
// the working directory, without error. $YAGENT_HOME moves the notes with
// the rest of yagent's home.
func TestNotesRootDir(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		home    string
		homeErr error
		want    string
	}{
		{"env wins", map[string]string{"YAGENT_NOTES_ROOT": "/srv/notes", "YAGENT_HOME": "/y"}, "/home/u", nil, "/srv/notes"},
		{"yagent home", map[string]string{"YAGENT_HOME": "/y"}, "/home/u", nil, filepath.Join("/y", "notes")},
		{"home", nil, "/home/u", nil, filepath.Join("/home/u", ".yagent", "notes")},
		{"no home", nil, "", errors.New("$HOME is not defined"), "notes"},
		{"empty home", nil, "", nil, "notes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			saved := userHomeDir
			t.Cleanup(func() { userHomeDir = saved })
			userHomeDir = func() (string, error) { return tt.home, tt.homeErr }
			if got := NotesRootDir(func(k string) string { return tt.env[k] }); got != tt.want {
				t.Errorf("NotesRootDir() = %q; want %q", got, tt.want)
			}
		})
	}
}

func TestSanitizeBoardID(t *testing.T) {
	tests := []struct{ in, want string }{
		{"release-audit", "release-audit"},
		{"sess_2026.11", "sess_2026.11"},
		{"../../etc", "_.._etc"},
		{"..", "_"},
		{".hidden", "hidden"},
		{"a/b", "a_b"},
		{"пример", "______"},
		{strings.Repeat("x", 200), strings.Repeat("x", 128)},
	}
	for _, tt := range tests {
		if got := SanitizeBoardID(tt.in); got != tt.want {
			t.Errorf("SanitizeBoardID(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
	got := SanitizeBoardID("")
	if !strings.HasPrefix(got, "adhoc_") || len(strings.Split(got, "_")) != 3 {
		t.Errorf("SanitizeBoardID(\"\") = %q; want adhoc_<unix>_<rand4>", got)
	}
	for _, bad := range []string{"", "../x", "a/b", ".x", strings.Repeat("x", 129)} {
		if err := CheckBoardID(bad); !errors.Is(err, ErrBadBoardID) {
			t.Errorf("CheckBoardID(%q) = %v; want ErrBadBoardID", bad, err)
		}
	}
	if err := CheckBoardID("release-audit"); err != nil {
		t.Errorf("CheckBoardID(release-audit) = %v", err)
	}
}

func TestNormalizeAgent(t *testing.T) {
	tests := []struct{ in, want string }{
		{"explorer", "explorer"},
		{"explorer:yagent", "yagent_explorer"},
		{"yagent_explorer", "yagent_explorer"},
		{"Explorer", "explorer"},
		{"", UnknownAgent},
		{"  ", UnknownAgent},
		{"../x", "_x"},
		{strings.Repeat("a", 100), strings.Repeat("a", 64)},
	}
	for _, tt := range tests {
		if got := NormalizeAgent(tt.in); got != tt.want {
			t.Errorf("NormalizeAgent(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

func TestParseNoteRef(t *testing.T) {
	stem := "20261129T100001Z_abcd-42-000001"
	tests := []struct {
		in      string
		want    Ref
		wantErr bool
	}{
		{"explorer/" + stem, Ref{"explorer", stem}, false},
		{"explorer/" + stem + ".md", Ref{"explorer", stem}, false},
		{"note:explorer/" + stem, Ref{"explorer", stem}, false},
		{"explorer:yagent/" + stem, Ref{"yagent_explorer", stem}, false},
		{" worker/" + stem + " ", Ref{"worker", stem}, false},
		{"explorer", Ref{}, true},
		{"explorer/", Ref{}, true},
		{"/" + stem, Ref{}, true},
		{"explorer/../" + stem, Ref{}, true},
		{"../../" + stem, Ref{}, true},
		{"explorer/notes", Ref{}, true},
		{"explorer/" + stem + "/x", Ref{}, true},
	}
	for _, tt := range tests {
		got, err := ParseNoteRef(tt.in)
		if (err != nil) != tt.wantErr || (!tt.wantErr && got != tt.want) {
			t.Errorf("ParseNoteRef(%q) = %+v, %v; want %+v, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
		if err != nil && (!strings.Contains(err.Error(), tt.in) || !errors.Is(err, ErrBadRef)) {
			t.Errorf("ParseNoteRef(%q) error %q does not name the ref or is not ErrBadRef", tt.in, err)
		}
	}
}

func FuzzParseNoteRef(f *testing.F) {
	for _, seed := range []string{"explorer/20261129T100001Z_abcd-42-000001", "../x", "a:b/20261129T100001Z_abcd-42-000001", "", "/", "a/../../b"} {
		f.Add(seed)
	}
	root := "/notes-root/board"
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseNoteRef(s)
		if err != nil {
			return
		}
		p := filepath.Join(root, r.Agent, r.Stem+".md")
		if rel, err := filepath.Rel(root, p); err != nil || strings.HasPrefix(rel, "..") || strings.Count(rel, string(filepath.Separator)) != 1 {
			t.Fatalf("ParseNoteRef(%q) = %+v leaves the board: %s", s, r, p)
		}
		if r.Agent != NormalizeAgent(r.Agent) {
			t.Fatalf("ParseNoteRef(%q) agent %q is not normalised", s, r.Agent)
		}
		if back, err := ParseNoteRef(r.String()); err != nil || back != r {
			t.Fatalf("ParseNoteRef(%q) does not round-trip: %+v, %v", r.String(), back, err)
		}
	})
}

func TestWithBoardID(t *testing.T) {
	ctx := t.Context()
	if id, ok := BoardIDFrom(ctx); ok || id != "" {
		t.Errorf("BoardIDFrom(empty ctx) = %q, %v", id, ok)
	}
	ctx = WithBoardID(ctx, "sess-1")
	if id, ok := BoardIDFrom(ctx); !ok || id != "sess-1" {
		t.Errorf("BoardIDFrom = %q, %v; want sess-1", id, ok)
	}
	if _, ok := BoardIDFrom(WithBoardID(context.Background(), "")); ok {
		t.Error("an empty board id reads back as present")
	}
}
