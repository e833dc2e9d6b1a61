package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// hooksPathValues returns the core.hooksPath values a config text sets.
func hooksPathValues(data []byte) ([]string, error) {
	var got []string
	err := parseGitConfig(data, func(name, value string) {
		if name == "core.hookspath" {
			got = append(got, value)
		}
	})
	return got, err
}

// TestHooksPaths: core.hooksPath is found in the repository's config, a
// linked worktree's common directory, included files (whatever the
// includeIf condition), relative to the work tree, and through a symbolic
// link; a workspace without .git has none.
func TestHooksPaths(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	write := func(t *testing.T, p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name  string
		setup func(t *testing.T, ws string)
		want  func(ws string) []string
	}{
		{"husky", func(t *testing.T, ws string) {
			write(t, filepath.Join(ws, ".git", "config"), "[core]\n\trepositoryformatversion = 0\n\thooksPath = .husky/_\n")
		}, func(ws string) []string { return []string{filepath.Join(ws, ".husky", "_")} }},
		{"no git", func(t *testing.T, ws string) {
			write(t, filepath.Join(ws, "config"), "[core]\n\thooksPath = hooks\n")
		}, func(string) []string { return nil }},
		{"unset", func(t *testing.T, ws string) {
			write(t, filepath.Join(ws, ".git", "config"), "[core]\n\tbare = false\n[core \"x\"]\n\thooksPath = sub\n[hooks]\n\tpath = no\n")
		}, func(string) []string { return nil }},
		{"every value, home, absolute", func(t *testing.T, ws string) {
			write(t, filepath.Join(ws, ".git", "config"), "[core]\n\thooksPath = first\n[CORE] HooksPath = ~/hooks\n[core]\nhookspath = \"/etc/git hooks/\"\n")
		}, func(ws string) []string {
			return []string{"/etc/git hooks", filepath.Join(home, "hooks"), filepath.Join(ws, "first")}
		}},
		{"worktree config", func(t *testing.T, ws string) {
			write(t, filepath.Join(ws, ".git", "config.worktree"), "[core]\n\thooksPath = wt-hooks\n")
		}, func(ws string) []string { return []string{filepath.Join(ws, "wt-hooks")} }},
		{"includes", func(t *testing.T, ws string) {
			write(t, filepath.Join(ws, ".git", "config"), "[include]\n\tpath = extra.inc\n[includeIf \"gitdir:/nowhere/\"]\n\tpath = ~/cond.inc\n[include]\n\tpath = loop.inc\n")
			write(t, filepath.Join(ws, ".git", "extra.inc"), "[core]\n\thooksPath = inc-hooks\n")
			write(t, filepath.Join(home, "cond.inc"), "[core]\n\thooksPath = cond-hooks\n")
			write(t, filepath.Join(ws, ".git", "loop.inc"), "[include]\n\tpath = loop.inc\n")
		}, func(ws string) []string {
			return []string{filepath.Join(ws, "cond-hooks"), filepath.Join(ws, "inc-hooks")}
		}},
		{"include depth", func(t *testing.T, ws string) {
			// git reads includes 10 deep (and dies past that).
			write(t, filepath.Join(ws, ".git", "config"), "[include]\n\tpath = i1\n")
			for i := 1; i <= 11; i++ {
				write(t, filepath.Join(ws, ".git", fmt.Sprintf("i%d", i)), fmt.Sprintf("[core]\n\thooksPath = depth%d\n[include]\n\tpath = i%d\n", i, i+1))
			}
		}, func(ws string) []string {
			var want []string
			for i := 1; i <= 10; i++ {
				want = append(want, filepath.Join(ws, fmt.Sprintf("depth%d", i)))
			}
			slices.Sort(want)
			return want
		}},
		{"linked worktree", func(t *testing.T, ws string) {
			common := filepath.Join(filepath.Dir(ws), "main.git")
			gitDir := filepath.Join(common, "worktrees", "wt")
			write(t, filepath.Join(gitDir, "commondir"), "../..\n")
			write(t, filepath.Join(common, "config"), "[core]\n\thooksPath = .husky/_\n")
			write(t, filepath.Join(ws, ".git"), "gitdir: "+gitDir+"\n")
		}, func(ws string) []string { return []string{filepath.Join(ws, ".husky", "_")} }},
		{"through a link", func(t *testing.T, ws string) {
			write(t, filepath.Join(ws, ".git", "config"), "[core]\n\thooksPath = .husky/_\n")
			write(t, filepath.Join(ws, "tools", "husky", "keep"), "")
			if err := os.Symlink("tools/husky", filepath.Join(ws, ".husky")); err != nil {
				t.Fatal(err)
			}
		}, func(ws string) []string {
			return []string{filepath.Join(ws, ".husky", "_"), filepath.Join(ws, "tools", "husky", "_")}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			ws := filepath.Join(base, "ws")
			if err := os.Mkdir(ws, 0o755); err != nil {
				t.Fatal(err)
			}
			tt.setup(t, ws)
			if diff := cmp.Diff(tt.want(ws), HooksPaths(ws)); diff != "" {
				t.Errorf("HooksPaths (-want +got):\n%s", diff)
			}
		})
	}
}

// TestParseGitConfigAgreesWithGit reads each config as git itself does
// (`git config --file F -z --get-all core.hooksPath`): the same values, and
// a refusal where git refuses the file.
func TestParseGitConfigAgreesWithGit(t *testing.T) {
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	configs := []string{
		"[core]\n\thooksPath = .husky/_\n",
		"[core] hooksPath = same-line\n",
		"[Core]\n\tHOOKSPATH=upper\n",
		"[core]\n\thooksPath = a\n\thooksPath = b\n",
		"\xef\xbb\xbf[core]\r\n\thooksPath = crlf \r\n",
		"# comment\n; another\n[core] # trailing\n\thooksPath = x # comment\n",
		"[core]\n\thooksPath = \"quoted # not a comment\" ; comment\n",
		"[core]\n\thooksPath = a  \t b   \n",
		"[core]\n\thooksPath = \"a\\\"b\\\\c\\td\\ne\\bf\"\n",
		"[core]\n\thooksPath = con\\\ntinued\n",
		"[core]\n\thooksPath = end\\",
		"[core]\n\thooksPath = \"half\" and \"half \"\n",
		"[core \"sub\"]\n\thooksPath = sub\n",
		"[core.sub]\n\thooksPath = old-style\n",
		"[core \"a\\\"b\"]\n\thooksPath = quoted-sub\n[core]\n\thooksPath = after\n",
		"[core]\n\thooksPath\n",
		"[core]\n\thooksPath =\n",
		"[core]\n\thooksPath = \"unterminated\n",
		"[core]\n\thooksPath = bad\\escape\n",
		"[core\n\thooksPath = x\n",
		"[core \"x]\n",
		"[core]\n\t9key = x\n",
		"[core]\n\thooks_path = x\n",
		"[core]\n\thooksPath = ok\n[broken\n",
		"[core]\n\thooksPath = \"\"\n",
		"[core] hooksPath = a\n[other] hooksPath = b\n[core]hooksPath=c",
		"[]\n[core]\n\thooksPath = x\n",
		"[core]\n\f\n\thooksPath = x\n",
		"[core]\n\thooksPath = v\v\n",
		"\xef\xbb\xbf",
		"[core]\n\thooksPath = cr at the end\r",
		"[core]\rhooksPath = after a lone cr\n",
		"[core]\n\tZ = 1\n\thooksPathZ = 2\n\thooksPath = zZ\n",
	}
	dir := t.TempDir()
	for i, cfg := range configs {
		file := filepath.Join(dir, "config")
		if err := os.WriteFile(file, []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(gitBin, "config", "--file", file, "-z", "--get-all", "core.hooksPath")
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		var want []string
		gitRefused := false
		var exit *exec.ExitError
		switch {
		case err == nil:
			want = strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
		case errors.As(err, &exit) && exit.ExitCode() == 1 && stderr.Len() == 0:
			// not set
		default:
			gitRefused = true
		}
		got, perr := hooksPathValues([]byte(cfg))
		if gitRefused {
			// git: "fatal: bad config line N in file F"
			msg := strings.TrimSpace(stderr.String())
			line, _, _ := strings.Cut(strings.TrimPrefix(msg, "fatal: bad config "), " in file ")
			if perr == nil || perr.Error() != "bad git config "+line {
				t.Errorf("config %d %q: git refuses it (%s), parseGitConfig = %q, %v", i, cfg, msg, got, perr)
			}
			continue
		}
		if perr != nil {
			t.Errorf("config %d %q: parseGitConfig = %v; git reads it", i, cfg, perr)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("config %d %q: values (-git +parseGitConfig):\n%s", i, cfg, diff)
		}
	}
}

// A line git refuses is named by its number, lines ending in "\n" or
// "\r\n".
func TestParseGitConfigLine(t *testing.T) {
	for _, c := range []struct{ cfg, want string }{
		{"[broken\n", "bad git config line 1"},
		{"[core]\n\thooksPath = a\n[broken\n", "bad git config line 3"},
		{"[core]\r\n\r\n\thooksPath = a\r\n\r\n[broken\r\n", "bad git config line 5"},
		{"# a\n# b\n# c\n[core]\n\t9 = x\n", "bad git config line 5"},
	} {
		if _, err := hooksPathValues([]byte(c.cfg)); err == nil || err.Error() != c.want {
			t.Errorf("%q: %v; want %s", c.cfg, err, c.want)
		}
	}
}

// Section and key names are lower-cased as git compares them, every
// letter and digit included (as git config -l prints them).
func TestParseGitConfigNames(t *testing.T) {
	var got []string
	err := parseGitConfig([]byte("[AZaz09-Sub.Z]\n\tzKey09-Z = 1\n\tA0 = 2\n\tz9 = 3\n"), func(name, value string) {
		got = append(got, name+"="+value)
	})
	if want := []string{"azaz09-sub.z.zkey09-z=1", "azaz09-sub.z.a0=2", "azaz09-sub.z.z9=3"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("names: %q, %v; want %q", got, err, want)
	}
}

// quoteGitValue writes v as a quoted git config value.
func quoteGitValue(v string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`, "\b", `\b`)
	return `"` + r.Replace(v) + `"`
}

// FuzzParseGitConfig: any input parses without a panic, and any value,
// quoted as git quotes it, reads back exactly.
func FuzzParseGitConfig(f *testing.F) {
	f.Add([]byte("[core]\n\thooksPath = .husky/_\n"), ".husky/_")
	f.Add([]byte("[core \"a\\\"b\"] x = \"y # z\" ; c\\\n"), "a\"b\\c\n\td")
	f.Add([]byte("\xef\xbb\xbf[include]\r\npath = ~/x\\"), " lead and trail ")
	f.Fuzz(func(t *testing.T, data []byte, v string) {
		_ = parseGitConfig(data, func(name, value string) {
			if name == "" {
				t.Fatal("empty name")
			}
		})
		cfg := "[core]\n\thooksPath = " + quoteGitValue(v) + " # set by a test\n"
		got, err := hooksPathValues([]byte(cfg))
		if err != nil || len(got) != 1 || got[0] != v {
			t.Fatalf("value %q written as %q reads back as %q, %v", v, cfg, got, err)
		}
	})
}
