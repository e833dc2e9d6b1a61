package chat

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/director"
	"github.com/yagent/yagent/internal/brief"
	"github.com/yagent/yagent/internal/termsafe"
	"github.com/yagent/yagent/notebook"
)

// slashCommand is one command of interactive mode, written in one place:
// its line in the help, its Tab completion and what it does. The plain
// chat and the terminal UI dispatch through the same table.
type slashCommand struct {
	name string // "/resume"
	// aliases are also accepted; those longer than one letter (/exit) are
	// completed too, /q and /? are not.
	aliases []string
	args    string // "[ID|NAME] [--all]", shown in the help
	help    string
	run     func(c *Chat, ctx context.Context, args []string) (quit bool, err error)
}

// slashCommands is the table, in the help's order. (A function, not a
// variable: /help prints the help the table makes.)
func slashCommands() []slashCommand {
	return []slashCommand{
		{name: "/resume", args: "[ID|NAME] [--all]", help: "reopen an earlier session (a picker without an id)", run: (*Chat).cmdResume},
		{name: "/sessions", args: "[--all]", help: "list sessions of this directory (--all: every directory)", run: (*Chat).cmdSessions},
		{name: "/board", help: "list this session's board notes", run: (*Chat).cmdBoard},
		{name: "/rerun", args: "REF", help: "run a note's delegation again: same agent, same task (resume lists recovered ones)", run: (*Chat).cmdRerun},
		{name: "/follow-up", args: "REF MESSAGE", help: "continue the sub-agent that wrote REF from its kept history", run: (*Chat).cmdFollowUp},
		{name: "/cancel", args: "[REF|AGENT]", help: "stop a background delegation (no REF: list the running ones)", run: (*Chat).cmdCancel},
		{name: "/compact", help: "summarise older history now", run: (*Chat).cmdCompact},
		{name: "/clear", help: "empty the history (the board and the notebook stay)", run: (*Chat).cmdClear},
		{name: "/rewind", args: "[N] [--files-only|--conversation-only] [--force]", help: "files and conversation back to before turn N (default: the last)", run: (*Chat).cmdRewind},
		{name: "/notes", help: "show the notebook (* = changed since you last looked)", run: (*Chat).cmdNotes},
		{name: "/rename", args: "NAME", help: "name this session (yagent resume NAME)", run: (*Chat).cmdRename},
		{name: "/model", args: "[NAME]", help: "switch the model for the next turns (no NAME: show it)", run: (*Chat).cmdModel},
		{name: "/status", help: "the session, model, context use, context files and tokens", run: (*Chat).cmdStatus},
		{name: "/history", help: "the whole transcript of this session", run: (*Chat).cmdHistory},
		{name: "/help", aliases: []string{"/?"}, help: "this text", run: (*Chat).cmdHelp},
		{name: "/quit", aliases: []string{"/exit", "/q"}, help: "leave", run: func(*Chat, context.Context, []string) (bool, error) { return true, nil }},
	}
}

// findSlash is the command a typed word names (its name or an alias).
func findSlash(word string) (slashCommand, bool) {
	for _, cmd := range slashCommands() {
		if cmd.name == word || slices.Contains(cmd.aliases, word) {
			return cmd, true
		}
	}
	return slashCommand{}, false
}

// Commands are what Tab completes: every name, and the aliases longer
// than one letter, sorted.
func Commands() []string {
	var out []string
	for _, cmd := range slashCommands() {
		out = append(out, cmd.name)
		for _, a := range cmd.aliases {
			if len(a) > 2 {
				out = append(out, a)
			}
		}
	}
	slices.Sort(out)
	return out
}

// Help is interactive mode's help: the keys, then a line per command.
func Help() string {
	var b strings.Builder
	b.WriteString(Intro)
	for _, cmd := range slashCommands() {
		use := cmd.name
		if cmd.args != "" {
			use += " " + cmd.args
		}
		help := cmd.help
		if len(cmd.aliases) > 0 {
			help += " (also " + strings.Join(cmd.aliases, ", ") + ")"
		}
		fmt.Fprintf(&b, "\n  %-26s %s", use, help)
	}
	return b.String()
}

func (c *Chat) cmdHelp(_ context.Context, _ []string) (bool, error) {
	fmt.Fprintln(c.w(), Help()+customHelp(c.custom))
	return false, nil
}

func (c *Chat) cmdSessions(ctx context.Context, args []string) (bool, error) {
	rows, err := c.o.List(ctx, slices.Contains(args, "--all"), 30)
	if err != nil {
		return false, err
	}
	tw := tabwriter.NewWriter(c.w(), 0, 4, 2, ' ', 0)
	PrintSessions(tw, rows, false)
	return false, tw.Flush()
}

func (c *Chat) cmdResume(ctx context.Context, args []string) (bool, error) {
	w := c.w()
	ref, err := c.pick(ctx, args)
	if err != nil || ref == "" {
		return false, err
	}
	if in, err := c.s.Session.Store().Get(ctx, ref); err == nil && in.ID == c.s.Session.ID() {
		fmt.Fprintf(w, "already in session %s\n", in.ID)
		return false, nil
	}
	next, err := c.o.Open(ctx, Request{Resume: ref, Model: c.model, Sink: c.sink, Ask: c.ask, Reopen: true})
	if err != nil {
		return false, err
	}
	c.s.Close()
	c.s = next
	c.greet()
	return false, nil
}

func (c *Chat) cmdBoard(_ context.Context, _ []string) (bool, error) {
	w := c.w()
	store, err := c.o.Board()
	if err != nil {
		return false, err
	}
	res, err := store.ListNotes(c.s.Session.BoardID(), blackboard.ListOptions{Limit: 30})
	if err != nil {
		return false, err
	}
	if len(res.Notes) == 0 {
		fmt.Fprintf(w, "board %s is empty\n", c.s.Session.BoardID())
	}
	for _, m := range res.Notes {
		fmt.Fprintf(w, "%s [%s] %s\n", m.Ref, m.Status, brief.Line(m.Conclusion, 100))
	}
	return false, nil
}

// cmdRerun is yagent board rerun on this session's board: a new
// delegation with REF's agent and task.
func (c *Chat) cmdRerun(ctx context.Context, args []string) (bool, error) {
	if len(args) != 1 {
		return false, errors.New("usage: /rerun REF (a note's ref: /board lists them)")
	}
	out, err := c.s.Director.Rerun(ctx, args[0])
	if out != "" {
		fmt.Fprintln(c.w(), termsafe.Text(out))
	}
	return false, err
}

// cmdFollowUp is yagent board follow-up on this session's board: the
// sub-agent that wrote REF continues from its history with MESSAGE.
func (c *Chat) cmdFollowUp(ctx context.Context, args []string) (bool, error) {
	if len(args) < 2 {
		return false, errors.New("usage: /follow-up REF MESSAGE (a note's ref: /board lists them)")
	}
	out, err := c.s.Director.FollowUp(ctx, args[0], strings.Join(args[1:], " "))
	if out != "" {
		fmt.Fprintln(c.w(), termsafe.Text(out))
	}
	return false, err
}

// cmdCancel stops a background delegation, as cancel_delegation and
// yagent board cancel do: by its ref, or by a word naming exactly one
// running one (its agent, a part of its ref). Without one it lists them.
func (c *Chat) cmdCancel(ctx context.Context, args []string) (bool, error) {
	d := c.s.Director
	running := d.Running()
	if len(args) == 0 {
		if len(running) == 0 {
			fmt.Fprintln(c.w(), "no background delegation is running")
			return false, nil
		}
		fmt.Fprintf(c.w(), "running in the background: %s\n/cancel REF stops one (or its agent's name, when it runs only one)\n", strings.Join(running, ", "))
		return false, nil
	}
	if len(args) > 1 {
		return false, errors.New("usage: /cancel [REF|AGENT] (one at a time; /cancel alone lists them)")
	}
	ref, err := pickRunning(running, args[0])
	if err != nil {
		return false, err
	}
	end, err := d.CancelBackground(ctx, ref)
	if err != nil {
		return false, err
	}
	fmt.Fprintf(c.w(), "cancelled %s: %s — %s\n", end.Ref, end.Status, termsafe.Line(end.Conclusion))
	return false, nil
}

// pickRunning is the running ref word names: the ref itself, else the one
// ref whose agent it is or that contains it.
func pickRunning(running []string, word string) (string, error) {
	if slices.Contains(running, word) {
		return word, nil
	}
	var hits []string
	for _, r := range running {
		agent, _, _ := strings.Cut(r, "/")
		if agent == blackboard.NormalizeAgent(word) || strings.Contains(r, word) {
			hits = append(hits, r)
		}
	}
	switch len(hits) {
	case 1:
		return hits[0], nil
	case 0:
		if len(running) == 0 {
			return "", fmt.Errorf("cancel %s: no background delegation is running", word)
		}
		return "", fmt.Errorf("cancel %s: no running background delegation matches; running: %s", word, strings.Join(running, ", "))
	}
	return "", fmt.Errorf("cancel %s: %d running background delegations match (%s); give the whole ref", word, len(hits), strings.Join(hits, ", "))
}

func (c *Chat) cmdCompact(ctx context.Context, _ []string) (bool, error) {
	res, err := c.s.Director.Compact(ctx)
	if err != nil {
		return false, err
	}
	fmt.Fprintf(c.w(), "compacted %d messages into a summary\n", res.Replaced)
	return false, nil
}

func (c *Chat) cmdClear(ctx context.Context, _ []string) (bool, error) {
	if err := c.s.Session.Clear(ctx); err != nil {
		return false, err
	}
	kept := ""
	if book := c.s.Director.Notebook(); book != nil {
		n, err := book.Count(ctx)
		if err != nil {
			return false, err
		}
		kept = fmt.Sprintf("; %d notebook notes kept", n)
	}
	fmt.Fprintf(c.w(), "history cleared; the board %s stays%s\n", c.s.Session.BoardID(), kept)
	return false, nil
}

// cmdRewind is yagent rewind on this session (director.Rewind), with its
// switches (director.RewindSwitches: the same words and help): files a
// person changed since the last turn are kept and named unless --force.
func (c *Chat) cmdRewind(ctx context.Context, args []string) (bool, error) {
	o, err := parseRewind(args, c.s.Session.LastTurn())
	if err != nil {
		return false, err
	}
	r, err := c.s.Director.Rewind(ctx, o)
	if r != nil {
		fmt.Fprint(c.w(), r.Report())
	}
	return false, err // ErrKept names --force
}

// parseRewind reads /rewind's words: a turn number and the switches.
func parseRewind(args []string, last int) (director.RewindOptions, error) {
	var o director.RewindOptions
	switches := director.RewindSwitches()
	for _, a := range args {
		n, err := strconv.Atoi(a)
		i := slices.IndexFunc(switches, func(s director.RewindSwitch) bool { return "--"+s.Name == a })
		switch {
		case i >= 0:
			*switches[i].Field(&o) = true
		case err == nil && n > 0:
			o.Turn = n
		default:
			return o, rewindUsage(last)
		}
	}
	if o.FilesOnly && o.ConversationOnly {
		return o, rewindUsage(last)
	}
	return o, nil
}

// rewindUsage is /rewind's usage, each switch with yagent rewind's help.
func rewindUsage(last int) error {
	var b strings.Builder
	fmt.Fprintf(&b, "usage: /rewind [N] [--files-only | --conversation-only] [--force] (N: a turn number, 1 to %d; default: the last)", last)
	for _, s := range director.RewindSwitches() {
		fmt.Fprintf(&b, "\n  --%-18s %s", s.Name, s.Help)
	}
	return errors.New(b.String())
}

func (c *Chat) cmdNotes(ctx context.Context, _ []string) (bool, error) {
	w := c.w()
	book := c.s.Director.Notebook()
	if book == nil {
		return false, notebook.ErrOff
	}
	notes, err := book.List(ctx)
	if err != nil {
		return false, err
	}
	if err := PrintNotes(w, w, c.s.Session.Info(), notes); err != nil {
		return false, err
	}
	return false, book.MarkSeen(ctx)
}

func (c *Chat) cmdRename(ctx context.Context, args []string) (bool, error) {
	if len(args) != 1 {
		return false, fmt.Errorf("usage: /rename NAME")
	}
	if err := c.s.Session.Store().Rename(ctx, c.s.Session.ID(), args[0]); err != nil {
		return false, err
	}
	fmt.Fprintf(c.w(), "this session is now %q: yagent resume %s\n", args[0], args[0])
	return false, nil
}

func (c *Chat) cmdStatus(ctx context.Context, _ []string) (bool, error) {
	w := c.w()
	in := c.s.Session.Info()
	st := c.status()
	fmt.Fprintf(w, "session %s", in.ID)
	if in.Name != "" {
		fmt.Fprintf(w, " (%s)", in.Name)
	}
	fmt.Fprintf(w, " · %s · board %s\nmodel %s", agents.Count(in.Turns, "turn", "turns"), in.BoardID, st.Model)
	if st.ContextPct >= 0 {
		fmt.Fprintf(w, " · context %d%% of the window", st.ContextPct)
	}
	fmt.Fprintln(w)
	if line := c.s.App.Context.Summary(); line != "" {
		fmt.Fprintln(w, line)
	}
	rows, err := c.s.Session.Store().Spend(ctx, in.ID)
	if err == nil && len(rows) > 0 {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "SPENT ON\tREQUESTS\tPROMPT\tCACHED\tCOMPLETION")
		for _, r := range rows {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\n", r.Label, r.Requests, r.PromptTokens, r.CachedTokens, r.CompletionTokens)
		}
		if err := tw.Flush(); err != nil {
			return false, err
		}
	}
	if err != nil {
		return false, err
	}
	// The cost the budget ledger booked for this session, across its
	// processes (sessions show's cost: line); none when no model is priced.
	if now, err := c.s.Session.Store().Get(ctx, in.ID); err == nil && now.CostUSD != nil {
		fmt.Fprintf(w, "cost $%.4f\n", *now.CostUSD)
	}
	return false, nil
}

func (c *Chat) cmdHistory(_ context.Context, _ []string) (bool, error) {
	WriteTranscript(c.w(), c.s.Session.History(), 0)
	return false, nil
}

// cmdModel reopens the session with another model: its lock is released
// first, and on failure it is reopened as it was.
func (c *Chat) cmdModel(ctx context.Context, args []string) (bool, error) {
	w := c.w()
	if len(args) == 0 {
		fmt.Fprintf(w, "model %s (/model NAME switches: a name under models:, else a model id)\n", c.status().Model)
		return false, nil
	}
	model := args[0]
	id := c.s.Session.ID()
	c.s.Close()
	next, err := c.o.Open(ctx, Request{Resume: id, Model: model, Sink: c.sink, Ask: c.ask, Reopen: true})
	if err != nil {
		old, rerr := c.o.Open(ctx, Request{Resume: id, Model: c.model, Sink: c.sink, Ask: c.ask, Reopen: true})
		if rerr != nil {
			return false, errors.Join(err, rerr)
		}
		c.s = old
		return false, err
	}
	c.s = next
	c.model = model
	fmt.Fprintf(w, "the next turns use %s\n", c.status().Model)
	return false, nil
}
