package blackboard

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/yagent/yagent/internal/atomicfile"
	"github.com/yagent/yagent/internal/brief"
)

// Teams on the board (issue 30 item 4). A task is a note of its own kind,
// written once (post_task) under {board}/.tasks/{stem}.md; a claim is a
// separate record, {board}/.claims/{stem}.claim, created exclusively
// (atomicfile.WriteNew: a complete file moved in only where none is —
// RENAME_NOREPLACE or link, never a rename over one), so of any number of
// claimants one wins; a task is done (or failed) when the handoff note its
// claim names has landed. Nothing is rewritten: a task's state is derived
// from the task note, the claim and the notes, on every read. The dot
// directories are no agents (agentDirs, GC's scan skip them).

// Task directories and the wire prefixes of task and message refs.
const (
	tasksDir  = ".tasks"
	claimsDir = ".claims"
	// TaskRefPrefix starts a task's ref: task/{stem}.
	TaskRefPrefix = "task/"
	// TaskVersion is the version of the task note's format.
	TaskVersion = 1
)

// Errors of tasks callers branch on.
var (
	// ErrNoTask reports a task ref that names no task of the board.
	ErrNoTask = errors.New("no such task on this board")
	// ErrBadTask wraps every reason a task or message cannot be written
	// or read (ParseTask, PostTask's checks).
	ErrBadTask = errors.New("bad task")
)

// Task is one unit of team work.
type Task struct {
	// Ref is task/{stem}, set when the task is written or read.
	Ref   string `json:"ref"`
	Title string `json:"title"`
	Body  string `json:"body"`
	// Team is the team whose members claim it ("" = any claimant).
	Team string `json:"team"`
	// Assignee, when set, is the only agent that may claim it.
	Assignee string `json:"assignee"`
	// DependsOn are refs of tasks that must be done before it can be
	// claimed.
	DependsOn []string `json:"depends_on"`
	// Author is the agent (or "director") that posted it.
	Author  string    `json:"author"`
	Created time.Time `json:"created"`
}

// taskFrontMatter is a task note's front matter as stored.
type taskFrontMatter struct {
	Kind      string    `yaml:"kind"`
	Version   int       `yaml:"v"`
	Title     string    `yaml:"title"`
	Team      string    `yaml:"team"`
	Assignee  string    `yaml:"assignee"`
	DependsOn []string  `yaml:"depends_on"`
	Author    string    `yaml:"author"`
	Created   time.Time `yaml:"created"`
}

// checkText refuses what a task or message field cannot hold.
func checkText(field, s string, oneLine bool) error {
	if !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 {
		return fmt.Errorf("%w: %s holds invalid UTF-8 or NUL bytes", ErrBadTask, field)
	}
	if oneLine && strings.ContainsAny(s, "\r\n") {
		return fmt.Errorf("%w: %s %q spans lines: keep it to one", ErrBadTask, field, brief.Line(s, 40))
	}
	return nil
}

// EncodeTask is t as stored: front matter (every string quoted, so it
// reads back byte for byte) and the body.
func EncodeTask(t Task) ([]byte, error) {
	if strings.TrimSpace(t.Title) == "" {
		return nil, fmt.Errorf("%w: the title is empty", ErrBadTask)
	}
	for _, f := range []struct {
		name, v string
		one     bool
	}{{"title", t.Title, true}, {"team", t.Team, true}, {"assignee", t.Assignee, true}, {"author", t.Author, true}, {"body", t.Body, false}} {
		if err := checkText(f.name, f.v, f.one); err != nil {
			return nil, err
		}
	}
	var b bytes.Buffer
	b.WriteString("---\nkind: task\n")
	fmt.Fprintf(&b, "v: %d\n", TaskVersion)
	fmt.Fprintf(&b, "title: %s\nteam: %s\nassignee: %s\n", quoteYAML(t.Title), quoteYAML(t.Team), quoteYAML(t.Assignee))
	b.WriteString("depends_on: [")
	for i, d := range t.DependsOn {
		if err := checkText("depends_on", d, true); err != nil {
			return nil, err
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(quoteYAML(d))
	}
	b.WriteString("]\n")
	fmt.Fprintf(&b, "author: %s\n", quoteYAML(t.Author))
	if !t.Created.IsZero() {
		fmt.Fprintf(&b, "created: %s\n", t.Created.UTC().Format(time.RFC3339))
	}
	b.WriteString("---\n")
	b.WriteString(t.Body)
	return b.Bytes(), nil
}

// ParseTask reads a task note. Unlike a handoff, a task has no fallback:
// a file that is not a task note (no front matter, another kind, a newer
// version, no title) is an error saying which, and is listed as
// unreadable.
func ParseTask(data []byte) (Task, error) {
	var fm taskFrontMatter
	body, err := parseRecord(data, "task", &fm)
	if err != nil {
		return Task{}, err
	}
	if fm.Version > TaskVersion {
		return Task{}, fmt.Errorf("%w: format v%d is newer than this yagent's (v%d)", ErrBadTask, fm.Version, TaskVersion)
	}
	if strings.TrimSpace(fm.Title) == "" {
		return Task{}, fmt.Errorf("%w: the title is empty", ErrBadTask)
	}
	if len(fm.DependsOn) == 0 {
		fm.DependsOn = nil
	}
	return Task{Title: fm.Title, Body: string(body), Team: fm.Team, Assignee: fm.Assignee, DependsOn: fm.DependsOn,
		Author: fm.Author, Created: fm.Created}, nil
}

// parseRecord splits a task or message note, decodes its front matter
// into fm (which has a Kind field checked against kind) and returns the
// body.
func parseRecord(data []byte, kind string, fm any) ([]byte, error) {
	if damaged(data) {
		return nil, fmt.Errorf("%w: the file holds NUL bytes or invalid UTF-8", ErrBadTask)
	}
	head, body, ok := SplitFrontMatter(data)
	if !ok {
		return nil, fmt.Errorf("%w: no front matter", ErrBadTask)
	}
	if err := yaml.Unmarshal(head, fm); err != nil {
		return nil, fmt.Errorf("%w: front matter: %v", ErrBadTask, err)
	}
	var k struct {
		Kind string `yaml:"kind"`
	}
	_ = yaml.Unmarshal(head, &k)
	if k.Kind != kind {
		return nil, fmt.Errorf("%w: kind %q, want %q", ErrBadTask, k.Kind, kind)
	}
	return body, nil
}

// ParseTaskRef returns the stem of a task ref: task/{stem}, or the stem
// alone.
func ParseTaskRef(ref string) (string, error) {
	stem := strings.TrimPrefix(strings.TrimSpace(ref), TaskRefPrefix)
	if !IsNoteStem(stem) {
		return "", fmt.Errorf("%w: %q is no task ref (task/{stem}, as post_task returned it)", ErrBadRef, ref)
	}
	return stem, nil
}

// TaskRef is the ref of the task with stem.
func TaskRef(stem string) string { return TaskRefPrefix + stem }

// PostTask writes t once under a new name and returns it with its ref.
// Every ref in DependsOn must name a task of the board.
func (s *Store) PostTask(board string, t Task) (Task, error) {
	if !s.Enabled() {
		return Task{}, ErrDisabled
	}
	bdir, err := s.boardDir(board)
	if err != nil {
		return Task{}, err
	}
	deps := make([]string, 0, len(t.DependsOn))
	for _, d := range t.DependsOn {
		stem, err := ParseTaskRef(d)
		if err != nil {
			return Task{}, fmt.Errorf("depends_on: %w", err)
		}
		if _, err := os.Lstat(filepath.Join(bdir, tasksDir, stem+".md")); err != nil {
			return Task{}, fmt.Errorf("depends_on %s: %w", d, ErrNoTask)
		}
		if !slices.Contains(deps, TaskRef(stem)) {
			deps = append(deps, TaskRef(stem))
		}
	}
	t.DependsOn = deps
	t.Created = s.now().UTC().Truncate(time.Second)
	dir := filepath.Join(bdir, tasksDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Task{}, fmt.Errorf("post task: %w", err)
	}
	data, err := EncodeTask(t)
	if err != nil {
		return Task{}, err
	}
	stem, err := s.writeNewNamed(dir, ".md", data)
	if err != nil {
		return Task{}, fmt.Errorf("post task: %w", err)
	}
	t.Ref = TaskRef(stem)
	return t, nil
}

// writeNewNamed writes data once under a new stem in dir (never over a
// file: a taken name moves the namer on, as WriteNote does).
func (s *Store) writeNewNamed(dir, suffix string, data []byte) (string, error) {
	for attempt := 1; ; attempt++ {
		stem := s.namer.next(s.now())
		err := atomicfile.WriteNew(filepath.Join(dir, stem+suffix), data, 0o644)
		if err == nil {
			return stem, nil
		}
		if !errors.Is(err, fs.ErrExist) || attempt == maxNameAttempts {
			return "", err
		}
		s.namer.skip()
	}
}

// readRecords reads the stem-named files of dir with suffix, in name
// (time) order; names of another shape are skipped, files that cannot be
// read are returned by name.
func readRecords(dir, suffix string, each func(stem string, data []byte) error) (unreadable []string, err error) {
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		return nil, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	for _, e := range entries {
		name := e.Name()
		stem, ok := strings.CutSuffix(name, suffix)
		if !ok || !e.Type().IsRegular() || !IsNoteStem(stem) {
			continue
		}
		data, err := readBounded(filepath.Join(dir, name))
		if err == nil {
			err = each(stem, data)
		}
		if err != nil {
			unreadable = append(unreadable, stem)
		}
	}
	return unreadable, nil
}

// readBounded reads a record file, at most HeadBytes of it (a task or a
// message is small; a larger one is damaged).
func readBounded(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, HeadBytes+1)
	n, err := io.ReadFull(f, buf)
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
	case err != nil:
		return nil, err
	default:
		return nil, fmt.Errorf("%s is over %d bytes", path, HeadBytes)
	}
	return buf[:n], nil
}
