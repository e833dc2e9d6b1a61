package sleep

import (
	"strings"
	"testing"
	"time"
)

func TestOverviewText(t *testing.T) {
	two, five := 2, 5
	for _, tc := range []struct {
		name string
		v    Overview
		want string
	}{
		{"before a turn", Overview{Session: "s1"},
			"session:    s1\ncurated:    false\nvisible:    -\npinned:     -\nin context: - (the session has not run a turn yet)\nreachable:  -\n"},
		{"curated", Overview{Session: "s1", Curated: true, Visible: []string{"a", "b"}, Pinned: []string{"c"}, InContext: &two, Reachable: &five},
			"session:    s1\ncurated:    true\nvisible:    a, b\npinned:     c\nin context: 2\nreachable:  5\n"},
	} {
		if got := tc.v.Text(); got != tc.want {
			t.Errorf("%s: Text() =\n%s\nwant\n%s", tc.name, got, tc.want)
		}
	}
}

func TestRunsText(t *testing.T) {
	at := time.Date(2026, 12, 1, 10, 15, 0, 0, time.Local)
	got := RunsText([]Run{
		{ChatID: "s1", Started: at, Status: "ok", Added: []string{"a"}, Reason: "nudge"},
		{ChatID: "s2", Started: at, Status: "skipped", DryRun: true, Reason: strings.Repeat("x", 100)},
	})
	want := "STARTED              SESSION  STATUS             CHANGE       REASON\n" +
		"2026-12-01 10:15:00  s1       ok                 +1/−0 tools  nudge\n" +
		"2026-12-01 10:15:00  s2       skipped (dry run)  +0/−0 tools  " + strings.Repeat("x", 79) + "…\n"
	if got != want {
		t.Errorf("RunsText =\n%s\nwant\n%s", got, want)
	}
}
