// Package hooks runs the person's hook commands at the points of a session
// Claude Code names (PreToolUse, Stop, …) and yagent's own, read as is
// from Claude Code's settings files: the same "hooks" object, the same
// JSON on a hook's stdin and the same exit-code and JSON-output contract,
// so scripts written for Claude Code work unchanged (issue 31 item 1).
//
// A Set is loaded once from the settings files the caller names (the
// person's always, a workspace's only when it is trusted: hooks run as the
// person) and is read-only afterwards: one Set serves concurrent calls.
// Nothing here writes a file.
package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Event names a point of a session a hook can run at.
type Event string

// Claude Code's events yagent raises, then yagent's own.
const (
	PreToolUse         Event = "PreToolUse"
	PermissionRequest  Event = "PermissionRequest"
	PostToolUse        Event = "PostToolUse"
	PostToolUseFailure Event = "PostToolUseFailure"
	UserPromptSubmit   Event = "UserPromptSubmit"
	Stop               Event = "Stop"
	SubagentStart      Event = "SubagentStart"
	SubagentStop       Event = "SubagentStop"
	PreCompact         Event = "PreCompact"
	SessionStart       Event = "SessionStart"
	SessionEnd         Event = "SessionEnd"
	Notification       Event = "Notification"

	NoteLanded         Event = "NoteLanded"
	DelegationFinished Event = "DelegationFinished"
	BatchJobFailed     Event = "BatchJobFailed"
)

// Events lists every event a Set accepts, in the order `yagent hooks ls`
// shows them.
var Events = []Event{
	PreToolUse, PermissionRequest, PostToolUse, PostToolUseFailure, UserPromptSubmit, Stop,
	SubagentStart, SubagentStop, PreCompact, SessionStart, SessionEnd, Notification,
	NoteLanded, DelegationFinished, BatchJobFailed,
}

// matchesTools reports whether an event's matcher is tested against a tool
// name.
func (e Event) matchesTools() bool {
	switch e {
	case PreToolUse, PermissionRequest, PostToolUse, PostToolUseFailure:
		return true
	}
	return false
}

// matches reports whether an event has a matcher at all: a tool name, or
// for the others what Input.target says (SessionStart's source,
// PreCompact's trigger, …). UserPromptSubmit, Stop and yagent's events
// have none: Claude Code ignores their matcher, and so does yagent.
func (e Event) matches() bool {
	switch e {
	case SessionStart, SessionEnd, PreCompact, Notification, SubagentStart, SubagentStop:
		return true
	}
	return e.matchesTools()
}

// DefaultTimeout is a command hook's time limit when its entry names none
// (Claude Code's).
const DefaultTimeout = 60 * time.Second

// File is one settings file to read: Path, and whether its hooks may run
// (a workspace's file is trusted only when the workspace is).
type File struct {
	Path    string
	Trusted bool
}

// Hook is one command hook as loaded: the event, the matcher of its group
// ("" matches every tool), the command, its time limit and the file it
// came from.
type Hook struct {
	Event   Event
	Matcher string
	Command string
	Timeout time.Duration
	Source  string

	match *regexp.Regexp // nil: every tool
}

// Skipped is an entry of a settings file that is not run, and why: a
// handler type yagent does not support yet, an unknown event, a file of an
// untrusted workspace. `yagent hooks ls` shows them; none is silent.
type Skipped struct {
	Source string
	Event  string
	What   string
	Why    string
}

// WhyUntrusted is why the hooks of a file of an untrusted workspace are
// skipped.
const WhyUntrusted = "the workspace is not trusted (yagent trust)"

// Set is the hooks loaded from the settings files, by event, in file
// order.
type Set struct {
	hooks   map[Event][]Hook
	skipped []Skipped
	read    []string // the files that were there, in order
	// disabledBy is the file whose "disableAllHooks": true turned every
	// hook off ("" = none did).
	disabledBy string
}

// settingsFile is the part of a Claude Code settings file hooks read.
type settingsFile struct {
	// DisableAllHooks is Claude Code's switch: true turns every hook off;
	// the last trusted file that sets it decides (a workspace's local
	// file over its shared one over the person's).
	DisableAllHooks *bool `json:"disableAllHooks"`
	Hooks           map[string][]struct {
		Matcher string `json:"matcher"`
		Hooks   []struct {
			Type    string   `json:"type"`
			Command string   `json:"command"`
			Timeout *float64 `json:"timeout"` // seconds
		} `json:"hooks"`
	} `json:"hooks"`
}

// Load reads the hooks of files, in order. A missing file is no error; a
// file that cannot be read or parsed is an error naming it, and the files
// after it still load (the returned Set is never nil). An untrusted file's
// hooks are listed as skipped, never run. When "disableAllHooks" is true
// (the last trusted file that sets it decides), every hook is listed as
// skipped, disabled.
func Load(files []File) (*Set, error) {
	s := &Set{hooks: map[Event][]Hook{}}
	var errs []error
	disabled := false
	for _, f := range files {
		data, err := os.ReadFile(f.Path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		s.read = append(s.read, f.Path)
		if err != nil {
			errs = append(errs, fmt.Errorf("read hooks of %s: %w", f.Path, err))
			continue
		}
		off, err := s.add(f, data)
		if err != nil {
			errs = append(errs, err)
		}
		if off != nil {
			disabled, s.disabledBy = *off, f.Path
		}
	}
	if disabled {
		s.disable()
	} else {
		s.disabledBy = ""
	}
	return s, errors.Join(errs...)
}

// WhyDisabled is why every hook is skipped when a settings file sets
// "disableAllHooks": true.
const WhyDisabled = "disableAllHooks is true in %s"

// disable turns every loaded hook into a skipped one.
func (s *Set) disable() {
	why := fmt.Sprintf(WhyDisabled, s.disabledBy)
	for _, h := range s.All() {
		s.skipped = append(s.skipped, Skipped{Source: h.Source, Event: string(h.Event), What: h.Command, Why: why})
	}
	s.hooks = map[Event][]Hook{}
}

// DisabledBy is the settings file whose "disableAllHooks": true turned
// every hook off, or "".
func (s *Set) DisabledBy() string { return s.disabledBy }

// Read is the settings files that were there, in the order read.
func (s *Set) Read() []string { return s.read }

// add parses one settings file's hooks into s; disable is its
// "disableAllHooks" (nil: not set, or set by an untrusted file, which is
// listed as skipped).
func (s *Set) add(f File, data []byte) (disable *bool, err error) {
	var sf settingsFile
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&sf); err != nil {
		return nil, fmt.Errorf("hooks of %s: %w (fix the JSON; its hooks are not loaded)", f.Path, jsonWhere(data, err))
	}
	if sf.DisableAllHooks != nil {
		if f.Trusted {
			disable = sf.DisableAllHooks
		} else {
			s.skipped = append(s.skipped, Skipped{Source: f.Path, What: fmt.Sprintf("disableAllHooks: %t", *sf.DisableAllHooks), Why: WhyUntrusted})
		}
	}
	names := make([]string, 0, len(sf.Hooks))
	for name := range sf.Hooks {
		names = append(names, name)
	}
	slices.Sort(names)
	var errs []error
	for _, name := range names {
		ev := Event(name)
		if !slices.Contains(Events, ev) {
			s.skipped = append(s.skipped, Skipped{Source: f.Path, Event: name, What: "every hook", Why: "yagent raises no such event"})
			continue
		}
		for _, group := range sf.Hooks[name] {
			var re *regexp.Regexp
			if m := group.Matcher; ev.matches() && m != "" && m != "*" {
				var err error
				if re, err = regexp.Compile("^(?:" + m + ")$"); err != nil {
					errs = append(errs, fmt.Errorf("hooks of %s: %s matcher %q: %w", f.Path, name, m, err))
					continue
				}
			}
			for _, h := range group.Hooks {
				switch {
				case h.Type != "command":
					s.skipped = append(s.skipped, Skipped{Source: f.Path, Event: name, What: fmt.Sprintf("a %q hook", h.Type), Why: "only command hooks are supported yet"})
				case strings.TrimSpace(h.Command) == "":
					errs = append(errs, fmt.Errorf("hooks of %s: a %s command hook with no command", f.Path, name))
				case !f.Trusted:
					s.skipped = append(s.skipped, Skipped{Source: f.Path, Event: name, What: h.Command, Why: WhyUntrusted})
				default:
					timeout := DefaultTimeout
					if h.Timeout != nil && *h.Timeout > 0 {
						timeout = time.Duration(*h.Timeout * float64(time.Second))
					}
					s.hooks[ev] = append(s.hooks[ev], Hook{Event: ev, Matcher: group.Matcher, Command: h.Command, Timeout: timeout, Source: f.Path, match: re})
				}
			}
		}
	}
	return disable, errors.Join(errs...)
}

// jsonWhere adds the line of a JSON syntax error.
func jsonWhere(data []byte, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line := 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n"))
		return fmt.Errorf("line %d: %w", line, err)
	}
	return err
}

// All is every loaded hook, by event in Events order, then file order.
func (s *Set) All() []Hook {
	var all []Hook
	for _, ev := range Events {
		all = append(all, s.hooks[ev]...)
	}
	return all
}

// Skipped is every entry not loaded, and why.
func (s *Set) Skipped() []Skipped { return s.skipped }

// Empty reports whether no hook would ever run.
func (s *Set) Empty() bool { return s == nil || len(s.hooks) == 0 }

// matching is the hooks of ev whose matcher takes target (a tool event's
// tool, yagent's name — the Claude Code name it maps to matches as well;
// the other events' Input.target), each command once.
func (s *Set) matching(ev Event, target string) []Hook {
	if s == nil {
		return nil
	}
	tool, alias := target, target
	if ev.matchesTools() {
		alias = ClaudeToolName(tool)
	}
	var out []Hook
	seen := map[string]bool{}
	for _, h := range s.hooks[ev] {
		if h.match != nil && !h.match.MatchString(tool) && !h.match.MatchString(alias) {
			continue
		}
		if seen[h.Command] {
			continue // Claude Code runs an identical command once
		}
		seen[h.Command] = true
		out = append(out, h)
	}
	return out
}
