package sleep

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/yagent/yagent/agents"
)

// startIn are chat_sleep_start's arguments (schemas.json has their
// descriptions).
type startIn struct {
	DryRun bool `json:"dry_run,omitempty"`
}

// StartTool returns chat_sleep_start: curate this session now, inside the
// turn, with the phases as progress and the report as the result. The
// thresholds and the latch are those of the scheduled path.
func StartTool(c *Curator, chatID func() string, progress func(string)) *agents.Tool {
	return agents.NewTool("chat_sleep_start", "chat", agents.LeadOnly|agents.MasterOnly, func(ctx context.Context, _ *agents.Call, a startIn) (agents.Result, error) {
		run, err := c.Run(ctx, chatID(), Options{DryRun: a.DryRun, Manual: true, Progress: progress})
		if errors.Is(err, ErrRunning) {
			return agents.ErrorResult("%v; try again later", err), nil
		}
		if err != nil {
			return agents.Result{}, err
		}
		return agents.Result{Content: Report(run), Summary: run.Status + " " + run.Summary()}, nil
	})
}

// Report renders a run for the model and the person.
func Report(r Run) string {
	var b strings.Builder
	fmt.Fprintf(&b, "curation %s: %s (%s)", r.Status, r.Reason, r.Summary())
	if len(r.Added) > 0 {
		fmt.Fprintf(&b, "\nback in the list: %s", strings.Join(r.Added, ", "))
	}
	if len(r.Removed) > 0 {
		fmt.Fprintf(&b, "\nhidden (tool_load brings any back): %s", strings.Join(r.Removed, ", "))
	}
	if r.Status == "ok" && !r.DryRun && len(r.Added)+len(r.Removed) > 0 {
		b.WriteString("\nThe new list applies from the next turn.")
	}
	return b.String()
}

// Err is a failed run's error (`yagent sleep` exits 1), else nil.
func (r Run) Err() error {
	if r.Status == "failed" {
		return fmt.Errorf("curation failed: %s", r.Reason)
	}
	return nil
}

// Windows are the statistics' windows of `yagent tools stats --window
// N`: N days alone, or nil (chat_sleep.tools.windows) when N is 0.
func Windows(days int) []int {
	if days > 0 {
		return []int{days}
	}
	return nil
}
