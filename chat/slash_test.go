package chat

import (
	"slices"
	"strings"
	"testing"

	"github.com/yagent/yagent/director"
)

// TestSlashCommandsOneTable pins that a slash command is written once, in
// slashCommands: the help has a line for each, Tab completes each name
// (and the aliases longer than one letter), each name and alias dispatches
// to it, the help names every alias (/exit was missing), and no word
// names two commands.
func TestSlashCommandsOneTable(t *testing.T) {
	help := Help()
	complete := Commands()
	seen := map[string]string{}
	for _, cmd := range slashCommands() {
		if cmd.run == nil || cmd.help == "" {
			t.Errorf("%s: no run or help", cmd.name)
		}
		if !strings.Contains(help, "\n  "+cmd.name+" ") {
			t.Errorf("the help has no line for %s:\n%s", cmd.name, help)
		}
		if !slices.Contains(complete, cmd.name) {
			t.Errorf("Tab does not complete %s: %v", cmd.name, complete)
		}
		for _, a := range cmd.aliases {
			if !strings.Contains(help, a) {
				t.Errorf("the help does not name %s, an alias of %s:\n%s", a, cmd.name, help)
			}
		}
		for _, w := range append([]string{cmd.name}, cmd.aliases...) {
			if other, dup := seen[w]; dup {
				t.Errorf("%s names both %s and %s", w, other, cmd.name)
			}
			seen[w] = cmd.name
			if got, ok := findSlash(w); !ok || got.name != cmd.name {
				t.Errorf("%s dispatches to %q, %v; want %s", w, got.name, ok, cmd.name)
			}
		}
	}
	if want := []string{"/board", "/cancel", "/clear", "/compact", "/exit", "/follow-up", "/help", "/history", "/model", "/notes", "/quit", "/rename", "/rerun", "/resume", "/rewind", "/sessions", "/status"}; !slices.Equal(complete, want) {
		t.Errorf("completion = %v; want %v", complete, want)
	}
	if _, ok := findSlash("/nosuch"); ok {
		t.Error("an unknown word dispatches")
	}
}

// TestRewindSwitches pins that /rewind takes yagent rewind's switches
// (director.RewindSwitches, the CLI's flags) with the same help: a turn,
// --files-only, --conversation-only (not both) and --force.
func TestRewindSwitches(t *testing.T) {
	for _, c := range []struct {
		args []string
		want director.RewindOptions
	}{
		{nil, director.RewindOptions{}},
		{[]string{"2", "--files-only"}, director.RewindOptions{Turn: 2, FilesOnly: true}},
		{[]string{"--conversation-only", "1"}, director.RewindOptions{Turn: 1, ConversationOnly: true}},
		{[]string{"--force"}, director.RewindOptions{Force: true}},
	} {
		got, err := parseRewind(c.args, 3)
		if err != nil || got != c.want {
			t.Errorf("/rewind %v = %+v, %v; want %+v", c.args, got, err, c.want)
		}
	}
	for _, bad := range [][]string{{"--files-only", "--conversation-only"}, {"--all"}, {"0"}, {"x"}} {
		_, err := parseRewind(bad, 3)
		if err == nil {
			t.Errorf("/rewind %v: no error", bad)
			continue
		}
		for _, s := range director.RewindSwitches() {
			if !strings.Contains(err.Error(), "--"+s.Name) || !strings.Contains(err.Error(), s.Help) {
				t.Errorf("/rewind %v: the usage lacks --%s (%s):\n%v", bad, s.Name, s.Help, err)
			}
		}
	}
}

// TestPickRunning pins /cancel's word: a whole ref, else the one running
// ref of that agent or containing it; two matches or none are errors
// naming what runs.
func TestPickRunning(t *testing.T) {
	running := []string{"explorer/20261203T070249Z_a-1-000001", "explorer/20261203T070250Z_b-1-000002", "reviewer/20261203T070251Z_c-1-000003"}
	for _, tt := range []struct{ word, want, err string }{
		{"explorer/20261203T070250Z_b-1-000002", "explorer/20261203T070250Z_b-1-000002", ""},
		{"reviewer", "reviewer/20261203T070251Z_c-1-000003", ""},
		{"Reviewer", "reviewer/20261203T070251Z_c-1-000003", ""},
		{"000001", "explorer/20261203T070249Z_a-1-000001", ""},
		{"explorer", "", "2 running background delegations match"},
		{"nobody", "", "no running background delegation matches; running: explorer/"},
	} {
		got, err := pickRunning(running, tt.word)
		if got != tt.want || (err == nil) != (tt.err == "") || err != nil && !strings.Contains(err.Error(), tt.err) {
			t.Errorf("pickRunning(%q) = %q, %v; want %q, %q", tt.word, got, err, tt.want, tt.err)
		}
	}
	if _, err := pickRunning(nil, "x"); err == nil || !strings.Contains(err.Error(), "no background delegation is running") {
		t.Errorf("with none running: %v", err)
	}
}
