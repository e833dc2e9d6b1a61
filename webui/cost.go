package webui

import (
	"fmt"

	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/memory"
)

// costText is what a session's model calls cost, as the budget ledger
// summed them (" · cost $0.0123"), "" when it recorded nothing.
func costText(in memory.Info) string {
	if in.CostUSD == nil {
		return ""
	}
	return fmt.Sprintf(" · cost $%.4f", *in.CostUSD)
}

// usageFields is the row of a note's usage and cost (its front matter's
// usage, issue 29 item 4); none for a note without one.
func usageFields(h *blackboard.Handoff) []field {
	if h.Usage == nil {
		return nil
	}
	return []field{{Key: "usage", Value: h.Usage.String()}}
}
