package blackboard

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/yagent/yagent/internal/atomicfile"
	"github.com/yagent/yagent/internal/brief"
	"github.com/yagent/yagent/internal/termsafe"
)

// Claim is the record that a claimant holds a task: who, and the ref of
// the handoff note that will say how the task went.
type Claim struct {
	Version int    `json:"v"`
	Task    string `json:"task"`
	// Agent is the claimant's agent name; Session its sub-agent session
	// (which of several members of one agent holds it).
	Agent   string    `json:"agent"`
	Session string    `json:"session,omitempty"`
	Ref     string    `json:"ref"`
	Time    time.Time `json:"time"`
}

// Claims holds claim records, at most one per task of a board, each
// created once. The files beside the board are the default
// (WithClaims); with queue.dsn, PostgreSQL rows (queue.Claims).
type Claims interface {
	// Create records c for c.Task unless a claim of it exists, and
	// returns the claim that holds the task (c when won). Of any number
	// of callers at once, exactly one wins.
	Create(board string, c Claim) (holder *Claim, won bool, err error)
	// Get returns the claim of the task ref (nil when there is none).
	Get(board, task string) (*Claim, error)
	// Release removes the claim of c.Task if it is still c's (its Ref).
	Release(board string, c Claim) error
}

// WithClaims makes the store keep claims in c instead of files.
func (s *Store) WithClaims(c Claims) *Store {
	s.claimStore = c
	return s
}

func (s *Store) claims() Claims {
	if s.claimStore != nil {
		return s.claimStore
	}
	return fileClaims{s}
}

// fileClaims are claims as files, {board}/.claims/{stem}.claim, created
// by atomicfile.WriteNew: a complete file moved in only where none is
// (RENAME_NOREPLACE or link, never a rename over one).
type fileClaims struct{ s *Store }

func (f fileClaims) path(board, task string) (string, error) {
	bdir, err := f.s.boardDir(board)
	if err != nil {
		return "", err
	}
	stem, err := ParseTaskRef(task)
	if err != nil {
		return "", err
	}
	return filepath.Join(bdir, claimsDir, stem+".claim"), nil
}

func (f fileClaims) Create(board string, c Claim) (*Claim, bool, error) {
	path, err := f.path(board, c.Task)
	if err != nil {
		return nil, false, err
	}
	data, err := json.Marshal(c)
	if err != nil {
		return nil, false, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, false, err
	}
	if err := atomicfile.WriteNew(path, data, 0o644); err != nil {
		if !errors.Is(err, fs.ErrExist) {
			return nil, false, err
		}
		holder, err := readClaim(path)
		if err != nil {
			holder = &Claim{Task: c.Task, Agent: "(unreadable claim)"}
		}
		return holder, false, nil
	}
	return &c, true, nil
}

func (f fileClaims) Get(board, task string) (*Claim, error) {
	path, err := f.path(board, task)
	if err != nil {
		return nil, err
	}
	c, err := readClaim(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		// A damaged claim still holds the task: one winner, even when its
		// record cannot be read.
		return &Claim{Task: task, Agent: "(unreadable claim)"}, nil
	}
	return c, nil
}

func (f fileClaims) Release(board string, c Claim) error {
	path, err := f.path(board, c.Task)
	if err != nil {
		return err
	}
	held, err := readClaim(path)
	if err != nil || held.Ref != c.Ref {
		return nil
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return atomicfile.SyncDir(filepath.Dir(path))
}

// ClaimVersion is the version of a claim record's format.
const ClaimVersion = 1

// TaskState is where a task stands, derived from its claim and notes.
type TaskState string

// Task states.
const (
	TaskOpen    TaskState = "open"    // no claim
	TaskClaimed TaskState = "claimed" // claimed, its note not landed yet
	TaskDone    TaskState = "done"    // the claim's note landed ok or partial
	TaskFailed  TaskState = "failed"  // the claim's note landed error or degraded
)

// TaskStatus is a task and its derived state.
type TaskStatus struct {
	Task
	State TaskState `json:"state"`
	Claim *Claim    `json:"claim"` // nil while open
	// Conclusion is the landed note's (done or failed).
	Conclusion string `json:"conclusion"`
	// Waiting are the refs of its depends_on not done yet (a task that
	// has some cannot be claimed).
	Waiting []string `json:"waiting"`
}

// TaskList is a board's tasks in posting order.
type TaskList struct {
	Tasks []TaskStatus `json:"tasks"`
	// Unreadable names task files that could not be read (stems).
	Unreadable []string `json:"unreadable"`
}

// Claimable reports whether an open task can be claimed now.
func (t TaskStatus) Claimable() bool { return t.State == TaskOpen && len(t.Waiting) == 0 }

// Tasks reads every task of a board and derives its state.
func (s *Store) Tasks(board string) (TaskList, error) {
	if !s.Enabled() {
		return TaskList{}, ErrDisabled
	}
	bdir, err := s.boardDir(board)
	if err != nil {
		return TaskList{}, err
	}
	var out TaskList
	out.Unreadable, err = readRecords(filepath.Join(bdir, tasksDir), ".md", func(stem string, data []byte) error {
		t, err := ParseTask(data)
		if err != nil {
			return err
		}
		t.Ref = TaskRef(stem)
		out.Tasks = append(out.Tasks, TaskStatus{Task: t, State: TaskOpen})
		return nil
	})
	if err != nil {
		return TaskList{}, err
	}
	state := map[string]TaskState{}
	for i := range out.Tasks {
		t := &out.Tasks[i]
		if err := s.deriveState(board, t); err != nil {
			return TaskList{}, err
		}
		state[t.Ref] = t.State
	}
	for i := range out.Tasks {
		t := &out.Tasks[i]
		for _, d := range t.DependsOn {
			if state[d] != TaskDone {
				t.Waiting = append(t.Waiting, d)
			}
		}
	}
	return out, nil
}

// deriveState fills t's claim and state from the claim record and the
// note it names.
func (s *Store) deriveState(board string, t *TaskStatus) error {
	c, err := s.claims().Get(board, t.Ref)
	if err != nil {
		return fmt.Errorf("task %s: its claim: %w", t.Ref, err)
	}
	if c == nil {
		return nil
	}
	t.State, t.Claim = TaskClaimed, c
	meta, _, err := s.ReadHandoff(board, c.Ref)
	switch {
	case errors.Is(err, ErrNoteNotFound):
		return nil
	case err != nil:
		return fmt.Errorf("task %s: the note of its claim: %w", t.Ref, err)
	}
	t.Conclusion = meta.Conclusion
	if meta.Status.Succeeded() {
		t.State = TaskDone
	} else {
		t.State = TaskFailed
	}
	return nil
}

func readClaim(path string) (*Claim, error) {
	data, err := readBounded(path)
	if err != nil {
		return nil, err
	}
	var c Claim
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("claim %s: %w", path, err)
	}
	if c.Version > ClaimVersion || c.Agent == "" {
		return nil, fmt.Errorf("claim %s: version %d or no claimant", path, c.Version)
	}
	return &c, nil
}

// ClaimResult is how a claim went: won, or held by another, or refused
// because depends_on are not all done.
type ClaimResult struct {
	Won    bool
	Holder *Claim     // the claim that holds the task (the new one when Won)
	Task   TaskStatus // the task as it was when claimed
	Done   bool       // the task is done or failed already (Holder held it)
	Wait   []string   // depends_on not done: not claimed
	State  TaskState  // the task's state when it was not won
}

// ClaimTask claims the task ref for c (its Agent, Session and Ref: the
// note that will land for the task, a stem reserved with NewStem). The
// record is created exclusively: of any number of claimants at once,
// exactly one wins; the others learn who holds it. A task whose
// depends_on are not all done is not claimed (Wait names them).
func (s *Store) ClaimTask(board, ref string, c Claim) (ClaimResult, error) {
	if !s.Enabled() {
		return ClaimResult{}, ErrDisabled
	}
	if _, err := s.boardDir(board); err != nil {
		return ClaimResult{}, err
	}
	stem, err := ParseTaskRef(ref)
	if err != nil {
		return ClaimResult{}, err
	}
	if _, err := ParseNoteRef(c.Ref); err != nil || c.Agent == "" {
		return ClaimResult{}, fmt.Errorf("claim %s: the claimant and the ref of its note are needed (%q, %q)", ref, c.Agent, c.Ref)
	}
	list, err := s.Tasks(board)
	if err != nil {
		return ClaimResult{}, err
	}
	i := slices.IndexFunc(list.Tasks, func(t TaskStatus) bool { return t.Ref == TaskRef(stem) })
	if i < 0 {
		return ClaimResult{}, fmt.Errorf("claim %s: %w", ref, ErrNoTask)
	}
	t := list.Tasks[i]
	switch {
	case t.Claim != nil:
		return ClaimResult{Holder: t.Claim, Task: t, Done: t.State == TaskDone || t.State == TaskFailed, State: t.State}, nil
	case len(t.Waiting) > 0:
		return ClaimResult{Task: t, Wait: t.Waiting, State: t.State}, nil
	}
	// Dependencies only ever become done, so a task claimable now stays
	// claimable until the exclusive create below decides who has it.
	c.Version, c.Task, c.Time = ClaimVersion, t.Ref, s.now().UTC().Truncate(time.Second)
	holder, won, err := s.claims().Create(board, c)
	if err != nil {
		return ClaimResult{}, fmt.Errorf("claim %s: %w", ref, err)
	}
	if !won {
		return ClaimResult{Holder: holder, Task: t, State: TaskClaimed}, nil
	}
	return ClaimResult{Won: true, Holder: holder, Task: t}, nil
}

// ReleaseClaim removes c's claim of a task whose note never landed (its
// claimant was abandoned: cancelled, out of budget), so the task is open
// again. A claim held by another, or whose note landed, stays.
func (s *Store) ReleaseClaim(board string, c Claim) error {
	if _, _, err := s.ReadHandoff(board, c.Ref); !errors.Is(err, ErrNoteNotFound) {
		return nil
	}
	if err := s.claims().Release(board, c); err != nil {
		return fmt.Errorf("release the claim of %s: %w", c.Task, err)
	}
	return nil
}

// ReleaseClaimsOf releases the claims the sub-agent session holds on
// board whose notes never landed (ReleaseClaim each) and returns them:
// its process died, so those notes never come, and each task is open
// again for another member. A task whose note landed stays done or
// failed; a claim of another session is never touched.
func (s *Store) ReleaseClaimsOf(board, session string) ([]Claim, error) {
	if session == "" {
		return nil, nil
	}
	list, err := s.Tasks(board)
	if err != nil {
		if errors.Is(err, ErrDisabled) {
			return nil, nil
		}
		return nil, fmt.Errorf("release the claims of session %s: %w", session, err)
	}
	var out []Claim
	for _, t := range list.Tasks {
		if t.State != TaskClaimed || t.Claim == nil || t.Claim.Session != session {
			continue
		}
		if err := s.ReleaseClaim(board, *t.Claim); err != nil {
			return out, err
		}
		out = append(out, *t.Claim)
	}
	return out, nil
}

// Claimable returns the tasks a member of team (agent) could claim now,
// in posting order: open, waiting on nothing, of its team, assigned to
// nobody or to it.
func (l TaskList) Claimable(team, agent string) []TaskStatus {
	var out []TaskStatus
	for _, t := range l.Tasks {
		if t.Claimable() && t.Team == team && (t.Assignee == "" || NormalizeAgent(t.Assignee) == NormalizeAgent(agent)) {
			out = append(out, t)
		}
	}
	return out
}

// InProgressBlocks reports whether a task a member of team (agent) could
// do waits on a task that is claimed and not landed yet: it may become
// claimable.
func (l TaskList) InProgressBlocks(team, agent string) bool {
	state := map[string]TaskState{}
	for _, t := range l.Tasks {
		state[t.Ref] = t.State
	}
	for _, t := range l.Tasks {
		if t.State != TaskOpen || t.Team != team || t.Assignee != "" && NormalizeAgent(t.Assignee) != NormalizeAgent(agent) {
			continue
		}
		for _, w := range t.Waiting {
			if state[w] == TaskClaimed {
				return true
			}
		}
	}
	return false
}

// Counts returns how many tasks are in each state.
func (l TaskList) Counts() map[TaskState]int {
	n := map[TaskState]int{}
	for _, t := range l.Tasks {
		n[t.State]++
	}
	return n
}

// Table is `yagent board tasks` for a person: a row per task in posting
// order — its state, who holds it (and the note that lands for it), what
// it waits for, its title — then the unreadable task files.
func (l TaskList) Table() string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TASK\tSTATE\tTEAM\tHOLDER\tNOTE\tWAITING ON\tTITLE")
	for _, t := range l.Tasks {
		holder, note := "-", "-"
		if t.Claim != nil {
			holder, note = t.Claim.Agent, t.Claim.Ref
		}
		team := t.Team
		if team == "" {
			team = "-"
		}
		if t.Assignee != "" && t.Claim == nil {
			holder = "(for " + t.Assignee + ")"
		}
		waiting := "-"
		if len(t.Waiting) > 0 {
			waiting = strings.Join(t.Waiting, ", ")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", termsafe.Line(t.Ref), t.State, termsafe.Line(team), termsafe.Line(holder),
			termsafe.Line(note), termsafe.Line(waiting), brief.Line(t.Title, 60))
	}
	tw.Flush()
	if len(l.Unreadable) > 0 {
		fmt.Fprintf(&b, "%d task file(s) unreadable: %s\n", len(l.Unreadable), strings.Join(l.Unreadable, ", "))
	}
	return b.String()
}

// Write writes the list for `yagent board tasks`: the table, or JSON
// (every field, lists never null).
func (l TaskList) Write(w io.Writer, asJSON bool) error {
	if !asJSON {
		_, err := io.WriteString(w, l.Table())
		return err
	}
	if l.Tasks == nil {
		l.Tasks = []TaskStatus{}
	}
	if l.Unreadable == nil {
		l.Unreadable = []string{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(l)
}

// Summary is the index's one line about a board's tasks ("" when it has
// none): how many in each state.
func (l TaskList) Summary() string {
	if len(l.Tasks) == 0 {
		return ""
	}
	n := l.Counts()
	var parts []string
	for _, s := range []TaskState{TaskOpen, TaskClaimed, TaskDone, TaskFailed} {
		if n[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[s], s))
		}
	}
	return fmt.Sprintf("[tasks · %d: %s]", len(l.Tasks), strings.Join(parts, ", "))
}
