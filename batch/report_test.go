package batch

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/llm"
)

// TestReportResult pins what a batch report says of itself: the counts
// in a fixed order (unknown statuses last, by name), how many failed, and
// the result event's status (cancelled wins over error).
func TestReportResult(t *testing.T) {
	rep := &Report{Delegations: []DelegationReport{
		{Status: StatusSkipped}, {Status: "error", Usage: agents.UsageEvent{Requests: 2, Usage: llm.Usage{PromptTokens: 10}}},
		{Status: "ok", Usage: agents.UsageEvent{Requests: 1, Usage: llm.Usage{PromptTokens: 5}}}, {Status: "zz"}, {Status: "ok"}, {Status: "partial"}, {Status: "aa"},
	}}
	if got, want := rep.CountsText(), "2 ok, 1 partial, 1 error, 1 skipped, 1 aa, 1 zz"; got != want {
		t.Errorf("CountsText = %q; want %q", got, want)
	}
	if got := rep.Failed(); got != 4 {
		t.Errorf("Failed = %d; want 4 (error, skipped, aa, zz)", got)
	}
	for _, tt := range []struct {
		err       error
		cancelled bool
		want      string
	}{
		{nil, false, agents.ResultOK},
		{errors.New("2 of 7 did not succeed"), false, agents.ResultError},
		{fmt.Errorf("batch cancelled: %w", context.Canceled), false, agents.ResultCancelled},
		{errors.New("x"), true, agents.ResultCancelled},
	} {
		rep.Cancelled = tt.cancelled
		r := rep.Result("s1", tt.err)
		if r.Status != tt.want || r.Session != "s1" || r.Answer != rep.CountsText() || r.Usage.PromptTokens != 15 || (tt.err != nil) != (r.Error != "") {
			t.Errorf("Result(%v, cancelled %v) = %+v; want status %s", tt.err, tt.cancelled, r, tt.want)
		}
	}
}

// TestReportErr pins the error a batch ends with: success only when every
// delegation is ok or partial, a cancel says what --resume continues (and
// keeps context.Canceled), Run's own error passes as it is.
func TestReportErr(t *testing.T) {
	ok := &Report{Delegations: []DelegationReport{{Status: "ok"}, {Status: "partial"}}}
	if err := ok.Err("b1", false, nil); err != nil {
		t.Errorf("ok and partial: %v; want nil", err)
	}
	failed := &Report{Delegations: []DelegationReport{{Status: "ok"}, {Status: "error"}, {Status: StatusSkipped}}}
	if err := failed.Err("b1", false, nil); err == nil || err.Error() != "2 of 3 delegations did not succeed (1 ok, 1 error, 1 skipped): see the table, then yagent board show REF --board b1" {
		t.Errorf("failed: %v", err)
	}
	own := errors.New("plan broke")
	if err := failed.Err("b1", false, own); err != own {
		t.Errorf("Run's error: %v; want it as it is", err)
	}
	for _, queued := range []bool{false, true} {
		err := failed.Err("b1", queued, context.Canceled)
		want := "running delegations were abandoned"
		if queued {
			want = "queued and running jobs were cancelled"
		}
		if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "--resume continues") {
			t.Errorf("cancelled (queued %v): %v", queued, err)
		}
	}
}
