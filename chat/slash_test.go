package chat

import (
	"slices"
	"strings"
	"testing"
)

// TestSlashCommandsOneTable pins that a slash command is written once, in
// slashCommands: the help has a line for each, Tab completes each name
// (and the aliases longer than one letter), each name and alias dispatches
// to it, and no word names two commands.
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
	if want := []string{"/board", "/clear", "/compact", "/exit", "/help", "/history", "/model", "/notes", "/quit", "/rename", "/resume", "/rewind", "/sessions", "/status"}; !slices.Equal(complete, want) {
		t.Errorf("completion = %v; want %v", complete, want)
	}
	if _, ok := findSlash("/nosuch"); ok {
		t.Error("an unknown word dispatches")
	}
}
