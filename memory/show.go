package memory

import (
	"cmp"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/yagent/yagent/internal/termsafe"
)

// Text is `yagent sessions show` for a person: the session's fields, each
// on its one line (a title is a model-chosen or typed prompt: termsafe),
// then its spend per label.
func (in Info) Text(spend []SpendRow) string {
	var b strings.Builder
	l := termsafe.Line
	fmt.Fprintf(&b, "id:       %s\nname:     %s\nkind:     %s\ntitle:    %s\ncwd:      %s\nmodel:    %s\nboard:    %s\nturns:    %d\ncreated:  %s\nupdated:  %s\nrollout:  %s\n",
		l(in.ID), l(cmp.Or(in.Name, "-")), l(string(in.Kind)), l(in.Title), l(in.Cwd), l(in.Model), l(in.BoardID), in.Turns,
		in.Created.Local().Format(time.DateTime), in.Updated.Local().Format(time.DateTime), l(in.Rollout))
	if in.ParentID != "" {
		fmt.Fprintf(&b, "parent:   %s\n", l(in.ParentID))
	}
	if in.Status != "" {
		fmt.Fprintf(&b, "status:   %s\n", in.Status)
	}
	if in.CostUSD != nil {
		fmt.Fprintf(&b, "cost:     $%.4f\n", *in.CostUSD)
	}
	b.WriteString("\nspend:\n")
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "LABEL\tREQUESTS\tPROMPT\tCACHED\tCOMPLETION")
	for _, r := range spend {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\n", l(r.Label), r.Requests, r.PromptTokens, r.CachedTokens, r.CompletionTokens)
	}
	tw.Flush()
	return b.String()
}

// ShowJSON is `yagent sessions show --json`: the session and its spend
// per label (an empty list, never null).
type ShowJSON struct {
	Session Info       `json:"session"`
	Spend   []SpendRow `json:"spend"`
}

// JSON is in with its spend as `yagent sessions show --json` prints it.
func (in Info) JSON(spend []SpendRow) ShowJSON {
	if spend == nil {
		spend = []SpendRow{}
	}
	return ShowJSON{in, spend}
}
