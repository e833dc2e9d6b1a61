package blackboard

import (
	"strings"
	"testing"
	"time"
)

// TestListTable: board ls marks degraded and oversized notes and keeps a
// model-chosen conclusion on its line.
func TestListTable(t *testing.T) {
	at := time.Date(2026, 12, 1, 10, 15, 0, 0, time.UTC)
	got := ListResult{Notes: []NoteMeta{
		{Ref: "w/a", Status: StatusOK, Created: at, BodySize: 2048, Conclusion: "done\x1b[31m"},
		{Ref: "w/b", Status: StatusPartial, Degraded: DegradedPartial, Oversized: true, Created: at},
	}}.Table()
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "REF") {
		t.Fatalf("want a header and two rows, got:\n%s", got)
	}
	if strings.Contains(got, "\x1b") {
		t.Errorf("an escape reached the table: %q", got)
	}
	if !strings.Contains(lines[1], "2.0 KiB") || !strings.Contains(lines[2], "partial ("+string(DegradedPartial)+", oversized)") {
		t.Errorf("rows:\n%s", got)
	}
}
