package director

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/change"
	"github.com/yagent/yagent/memory"
)

// checkpointer takes a session's checkpoints of the workspace (issue 28):
// <session>/turn-N before turn N, <session>/apply-<ref> before a change is
// applied, <session>/latest when a turn ends (what the agents left: a file
// that differs from it later was changed by the person). Takes are
// serialised (the shadow repository has one index); a failure is a
// warning, never a failed turn. The shadow repository is opened at the
// first take.
type checkpointer struct {
	home, workspace, session string
	skip                     []string // never taken: the home, the board's root
	// maxBytes bounds what one take reads of files new to the shadow
	// (agents.isolation_max_bytes: a workspace's first checkpoint reads
	// every file); what it skips is said once through notice.
	maxBytes int64
	notice   func(string)

	mu  sync.Mutex
	cps *change.Checkpoints
}

func newCheckpointer(home, workspace, session string, board *blackboard.Store) *checkpointer {
	if home == "" {
		return nil // no home: nowhere to keep them (tests, a bare process)
	}
	k := &checkpointer{home: home, workspace: workspace, session: session, skip: []string{home}}
	if board != nil {
		k.skip = append(k.skip, board.Root())
	}
	return k
}

// take records the workspace under the session's name.
func (k *checkpointer) take(ctx context.Context, name string) error {
	if k == nil {
		return nil
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	cps, err := k.open(ctx)
	if err != nil {
		return err
	}
	if err := cps.Take(ctx, k.session+"/"+name); err != nil {
		return err
	}
	if len(cps.Skipped) > 0 && k.notice != nil {
		k.notice(fmt.Sprintf("checkpoints skip %d files, the largest new ones, past agents.isolation_max_bytes (%d bytes) read at once: %s — a rewind leaves them as they are",
			len(cps.Skipped), k.maxBytes, listSome(cps.Skipped)))
	}
	return nil
}

// listSome joins the first names and counts the rest.
func listSome(names []string) string {
	const most = 10
	if len(names) <= most {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:most], ", "), len(names)-most)
}

// rename gives a checkpoint of the session another name ("" drops it).
func (k *checkpointer) rename(ctx context.Context, from, to string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	cps, err := k.open(ctx)
	if err != nil {
		return err
	}
	if to != "" {
		to = k.session + "/" + to
	}
	return cps.Rename(ctx, k.session+"/"+from, to)
}

// drop removes a checkpoint of the session.
func (k *checkpointer) drop(ctx context.Context, name string) error { return k.rename(ctx, name, "") }

func (k *checkpointer) open(ctx context.Context) (*change.Checkpoints, error) {
	if k.cps == nil {
		cps, err := change.OpenCheckpoints(ctx, CheckpointsDir(k.home), k.workspace, k.skip...)
		if err != nil {
			return nil, err
		}
		cps.MaxBytes = k.maxBytes
		k.cps = cps
	}
	return k.cps, nil
}

// start takes name in the background and returns the wait for it: the
// first checkpoint of a workspace hashes every file (seconds on a large
// one), so the turn's first request goes out meanwhile and only its first
// tool call waits (beforeTools).
func (k *checkpointer) start(ctx context.Context, name string) func() error {
	done := make(chan error, 1)
	go func() { done <- k.take(context.WithoutCancel(ctx), name) }()
	return sync.OnceValue(func() error { return <-done })
}

// beforeTools passes events on to next and, at the first tool call, waits
// for the turn's checkpoint (the loop emits it before any tool runs).
func beforeTools(next agents.Sink, wait func()) agents.Sink {
	return agents.SinkFunc(func(e agents.Event) {
		if e.Type == agents.EventToolCall {
			wait()
		}
		if next != nil {
			next.Emit(e)
		}
	})
}

// CheckpointsDir is where a home keeps the workspaces' checkpoints.
func CheckpointsDir(home string) string { return filepath.Join(home, "checkpoints") }

func turnCheckpoint(n int) string { return "turn-" + strconv.Itoa(n) }

// applyCheckpoint names the checkpoint before ref's change was applied.
func applyCheckpoint(ref string) string { return "apply-" + refName(ref) }

// delegationCheckpoint names the checkpoint before the delegation whose
// note is ref ran in the workspace itself (isolation none); the one
// after it is delegationCheckpoint(ref)+afterSuffix.
func delegationCheckpoint(ref string) string { return "delegation-" + refName(ref) }

const afterSuffix = "-after"

// refName is s as a part of a ref name git accepts.
func refName(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x80 && (r == '-' || r == '.' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return r
		}
		return '_'
	}, s)
}

// aroundDelegation takes the checkpoints a rewind of one delegation
// needs when it writes in the person's workspace itself (isolation: none
// — an isolated one hands back a change, which apply_change
// checkpoints): the workspace before it runs and, once its note has a
// ref, after it (the files it changed are those that differ; delegations
// running at once in the same workspace mix). It returns what to call
// with the note's ref when the delegation ends ("" = no note), or nil
// when nothing is taken. A failure is a warning.
func (d *Director) aroundDelegation(ctx context.Context, dl agents.Delegation) func(ref string) {
	if d.cps == nil || !writesInPlace(ctx, d.app.Runner, dl) {
		return nil
	}
	ctx = context.WithoutCancel(ctx)
	pending := "delegation-running-" + refName(dl.CallID)
	if err := d.cps.take(ctx, pending); err != nil {
		d.warn("take the checkpoint before the delegation to "+dl.Agent, err)
		return nil
	}
	return func(ref string) {
		if ref == "" {
			d.warn("drop the checkpoint of a delegation that left no note", d.cps.drop(ctx, pending))
			return
		}
		name := delegationCheckpoint(ref)
		err := d.cps.rename(ctx, pending, name)
		if err == nil {
			err = d.cps.take(ctx, name+afterSuffix)
		}
		d.warn("take the checkpoints of the delegation "+ref, err)
	}
}

// writesInPlace says whether a delegation will write in the person's
// workspace itself: its agent has a tool that writes and the runner does
// not isolate it (as agents.SubRunner decides: the delegation's
// isolation, else its definition's, else the configuration's; auto
// isolates a writer; no root isolates nothing; a parent's worktree or a
// worker host is not the person's workspace).
func writesInPlace(ctx context.Context, r *agents.SubRunner, dl agents.Delegation) bool {
	if r == nil || r.Land != nil || agents.WorkspaceFrom(ctx) != nil || r.Catalog == nil || r.Registry == nil {
		return false
	}
	def, ok := r.Catalog.Get(dl.Agent)
	if !ok {
		return false
	}
	tools := r.Registry.Reachable(agents.Gates{SubAgent: true, Master: true, Allow: def.Tools})
	writes := func(t *agents.Tool) bool {
		return slices.Contains([]string{"write_file", "edit_file", "shell"}, t.Name)
	}
	if !slices.ContainsFunc(tools, writes) {
		return false
	}
	if r.Isolation.Root == "" {
		return true
	}
	for _, m := range []string{dl.Isolation, def.Isolation, r.Isolation.Mode} {
		switch m {
		case agents.IsolationNone:
			return true
		case agents.IsolationWorktree:
			return false
		}
	}
	return false
}

const latestCheckpoint = "latest"

// RewindOptions say what a rewind takes back.
type RewindOptions struct {
	// Turn: back to before turn Turn started (0 = the latest turn).
	Turn int
	// Delegation: the change of this note, applied to the workspace,
	// reverted (its files as they were before the apply), or — when its
	// delegation wrote in the workspace itself (isolation: none) — the
	// files it changed as they were before it ran; the conversation is
	// not rewound.
	Delegation string
	// FilesOnly leaves the conversation; ConversationOnly the files.
	FilesOnly, ConversationOnly bool
	// Force overwrites files the person changed since the last turn.
	Force bool
}

// RewindSwitch is one switch of a rewind, written once: yagent rewind's
// flag and /rewind's word (--NAME) share its name and help.
type RewindSwitch struct {
	Name, Help string
	Field      func(*RewindOptions) *bool
}

// RewindSwitches are the rewind's switches, in the help's order.
func RewindSwitches() []RewindSwitch {
	return []RewindSwitch{
		{"files-only", "leave the conversation", func(o *RewindOptions) *bool { return &o.FilesOnly }},
		{"conversation-only", "leave the files", func(o *RewindOptions) *bool { return &o.ConversationOnly }},
		{"force", "overwrite files you changed since the last turn", func(o *RewindOptions) *bool { return &o.Force }},
	}
}

// Rewound is what a rewind did.
type Rewound struct {
	Turn       int    // the turn rewound to (0 for a delegation)
	Delegation string // the note of the delegation rewound
	Checkpoint string // the checkpoint the files came from ("" = files untouched)
	Files      change.Restored
	// Conversation: the history is now what it was before Turn.
	Conversation bool
}

// ErrKept: a rewind kept files the person changed since the last turn.
var ErrKept = errors.New("kept files you changed")

// RewindIn is a rewind outside a running director (yagent rewind).
type RewindIn struct {
	Home, Workspace string
	Session         *memory.Session
	Board           *blackboard.Store // for Delegation; nil otherwise
	// MaxBytes bounds the checkpoint a rewind takes of what it left
	// (agents.isolation_max_bytes).
	MaxBytes int64
	RewindOptions
}

// Rewind takes a session's workspace files and conversation back (issue
// 28): the files byte for byte as the checkpoint holds them, never one the
// person changed since the last turn unless Force (then the error wraps
// ErrKept and names them: what was done stays done), and the
// conversation by memory.Session.Rewind.
func Rewind(ctx context.Context, in RewindIn) (*Rewound, error) {
	k := newCheckpointer(in.Home, in.Workspace, in.Session.ID(), in.Board)
	if k != nil {
		k.maxBytes = in.MaxBytes
	}
	return k.rewind(ctx, in.Session, in.Board, in.RewindOptions)
}

// Rewind is Rewind on the director's session; it waits for a checkpoint
// still being taken.
func (d *Director) Rewind(ctx context.Context, o RewindOptions) (*Rewound, error) {
	return d.cps.rewind(ctx, d.opts.Session, d.app.Board, o)
}

func (k *checkpointer) rewind(ctx context.Context, s *memory.Session, board *blackboard.Store, o RewindOptions) (*Rewound, error) {
	if o.FilesOnly && o.ConversationOnly {
		return nil, fmt.Errorf("%w: --files-only and --conversation-only exclude each other", ErrRewindUsage)
	}
	out := &Rewound{Turn: o.Turn}
	var only []string
	afterIt := "" // a checkpoint after the delegation: only what changed since out.Checkpoint
	switch {
	case o.Delegation != "":
		if o.Turn != 0 || o.ConversationOnly {
			return nil, fmt.Errorf("%w: a delegation's rewind reverts its files only: give no turn", ErrRewindUsage)
		}
		out.Turn = 0
		if board == nil {
			return nil, fmt.Errorf("rewind %s: no board", o.Delegation)
		}
		n, err := board.ReadNote(s.BoardID(), o.Delegation)
		if err != nil {
			return nil, fmt.Errorf("rewind %s: %w", o.Delegation, err)
		}
		out.Delegation = o.Delegation
		switch c := n.Handoff.Change; {
		case c == nil:
			// It wrote in the workspace itself (isolation none): its
			// files are those that differ across it.
			out.Checkpoint, afterIt = delegationCheckpoint(o.Delegation), delegationCheckpoint(o.Delegation)+afterSuffix
		case c.State != blackboard.ChangeApplied:
			return nil, fmt.Errorf("rewind %s: its change was never applied to the workspace, so there is nothing to revert (discard_change drops a pending one)", o.Delegation)
		default:
			only, out.Checkpoint = c.Files, applyCheckpoint(o.Delegation)
		}
	default:
		if out.Turn == 0 {
			out.Turn = s.LastTurn()
		}
		if out.Turn < 1 || out.Turn > s.LastTurn() {
			return nil, fmt.Errorf("%w: session %s has turns 1 to %d, not %d", ErrRewindUsage, s.ID(), s.LastTurn(), out.Turn)
		}
		if !o.ConversationOnly {
			out.Checkpoint = turnCheckpoint(out.Turn)
		}
	}
	var kept error
	if out.Checkpoint != "" {
		if k == nil {
			return nil, fmt.Errorf("rewind: this session keeps no checkpoints (agents.checkpoints is false, or there is no yagent home); --conversation-only rewinds the conversation alone")
		}
		if err := k.rewindFiles(ctx, out, o.Force, only, afterIt); err != nil {
			return nil, err
		}
		if len(out.Files.Kept) > 0 {
			kept = fmt.Errorf("%w since the last turn: %s (rewind again with --force to overwrite them)", ErrKept, strings.Join(out.Files.Kept, ", "))
		}
		if o.Delegation != "" && afterIt == "" && kept == nil {
			// Reverted: the change is pending again (apply_change redoes it).
			err := board.UpdateChange(s.BoardID(), o.Delegation, func(c *blackboard.NoteChange) error {
				c.State = blackboard.ChangePending
				return nil
			})
			if err != nil {
				return out, fmt.Errorf("rewind %s: the files are reverted but %w", o.Delegation, err)
			}
		}
	}
	if o.Delegation == "" && !o.FilesOnly {
		if err := s.Rewind(ctx, out.Turn); err != nil {
			return out, err
		}
		out.Conversation = true
	}
	return out, kept
}

// ErrRewindUsage: a rewind asked for something that cannot be (exit 2).
var ErrRewindUsage = errors.New("bad rewind")

func (k *checkpointer) rewindFiles(ctx context.Context, out *Rewound, force bool, only []string, afterIt string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	cps, err := k.open(ctx)
	if err != nil {
		return err
	}
	names, err := cps.Names(ctx)
	if err != nil {
		return err
	}
	to, latest := k.session+"/"+out.Checkpoint, k.session+"/"+latestCheckpoint
	if afterIt != "" {
		if !slices.Contains(names, to) || !slices.Contains(names, k.session+"/"+afterIt) {
			return fmt.Errorf("rewind %s: session %s has no checkpoint of that delegation (one that writes in the workspace itself is checkpointed since issue 28; an isolated one's change is reverted once applied)", out.Delegation, k.session)
		}
		changed, err := cps.Changed(ctx, to, k.session+"/"+afterIt)
		if err != nil {
			return err
		}
		only = append([]string{}, changed...) // none: nothing to restore (nil would be every file)
	}
	if !slices.Contains(names, to) {
		return fmt.Errorf("rewind: session %s has no checkpoint %s (they are taken before each turn and each apply_change since issue 28; an older session has none: --conversation-only rewinds the conversation alone)", k.session, out.Checkpoint)
	}
	if !slices.Contains(names, latest) {
		latest = to // nothing known of what the agents left: every change since is kept
	}
	r, err := cps.RewindPaths(ctx, to, latest, force, only)
	if r != nil {
		out.Files = *r
	}
	if err != nil {
		return err
	}
	if len(r.Kept) == 0 {
		// The rewound workspace is what the agents left now.
		return cps.Take(ctx, k.session+"/"+latestCheckpoint)
	}
	return nil
}

// Report is what a rewind did, for a person: one line per kind of file,
// then the conversation.
func (r *Rewound) Report() string {
	var b strings.Builder
	what := fmt.Sprintf("before turn %d", r.Turn)
	switch {
	case r.Delegation != "" && strings.HasPrefix(r.Checkpoint, "apply-"):
		what = "before " + r.Delegation + "'s change was applied"
	case r.Delegation != "":
		what = "before the delegation " + r.Delegation + " ran"
	}
	if r.Checkpoint != "" {
		fmt.Fprintf(&b, "files as they were %s:\n", what)
		for _, l := range []struct {
			label string
			files []string
		}{{"restored", r.Files.Written}, {"removed", r.Files.Removed}, {"kept (you changed them since the last turn)", r.Files.Kept}} {
			if len(l.files) > 0 {
				fmt.Fprintf(&b, "  %s: %s\n", l.label, strings.Join(l.files, ", "))
			}
		}
		if u := r.Files.Unrestorable; len(u) > 0 {
			fmt.Fprintf(&b, "  not restored, no checkpoint holds them (too large, agents.isolation_max_bytes): %s\n", listSome(u))
		}
		if len(r.Files.Written)+len(r.Files.Removed)+len(r.Files.Kept) == 0 {
			b.WriteString("  nothing differed\n")
		}
	}
	if r.Conversation {
		fmt.Fprintf(&b, "conversation as it was %s: the next request carries turns 1 to %d\n", what, r.Turn-1)
	}
	return b.String()
}

// DropCheckpoints removes the checkpoints of sessions taken in workspace,
// and the objects only they held — the whole shadow when no other
// session keeps one; a workspace with none is left alone (nothing made).
func DropCheckpoints(ctx context.Context, home, workspace string, sessions ...string) error {
	dir := CheckpointsDir(home)
	if home == "" || workspace == "" || !change.CheckpointsExist(dir, workspace) {
		return nil
	}
	cps, err := change.OpenCheckpoints(ctx, dir, workspace)
	if err != nil {
		return err
	}
	names, err := cps.Names(ctx)
	if err != nil {
		return err
	}
	var drop []string
	left := 0
	for _, n := range names {
		s, _, _ := strings.Cut(n, "/")
		switch {
		case !slices.Contains(sessions, s):
			left++
		case !slices.Contains(drop, s):
			drop = append(drop, s)
		}
	}
	if left == 0 {
		// No other session keeps any: the shadow goes whole (its index
		// holds the files last taken, which a collection would keep).
		return cps.Remove()
	}
	for _, s := range drop {
		if err := cps.DropSession(ctx, s); err != nil {
			return err
		}
	}
	return nil
}
