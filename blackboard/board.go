package blackboard

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Limits on path segments (constraint 9).
const (
	MaxBoardIDLen   = 128
	MaxAgentNameLen = 64
	// UnknownAgent names the directory of notes whose agent is empty.
	UnknownAgent = "unknown"
)

// Advise adds what a person does next to an error of a board command: a
// board switched off is on again once YAGENT_BLACKBOARD is unset.
func Advise(err error) error {
	if errors.Is(err, ErrDisabled) {
		return fmt.Errorf("%w: unset it to use the board", err)
	}
	return err
}

// Errors callers branch on (the CLI maps each to exit code 2: the person
// asked for something the boards cannot give).
var (
	// ErrDisabled is returned by reads and writes while YAGENT_BLACKBOARD=0.
	ErrDisabled = errors.New("blackboard is disabled (YAGENT_BLACKBOARD=0)")
	// ErrBadBoardID is wrapped by CheckBoardID's errors.
	ErrBadBoardID = errors.New("invalid board id")
	// ErrNoBoard reports a valid board id that names no board on disk.
	ErrNoBoard = errors.New("no such board")
	// ErrBadRef is wrapped by ParseNoteRef's errors.
	ErrBadRef = errors.New("bad note ref")
	// ErrNoteNotFound reports a ref that names no note on the board.
	ErrNoteNotFound = errors.New("no such note on this board")
)

// userHomeDir is swapped by tests.
var userHomeDir = os.UserHomeDir

// KillSwitch is the environment variable that turns the blackboard off when
// it is "0". There is deliberately no "enabled" configuration key.
const KillSwitch = "YAGENT_BLACKBOARD"

// NotesRootDir returns where boards live: $YAGENT_NOTES_ROOT, else the notes
// directory of yagent's home ($YAGENT_HOME/notes, else ~/.yagent/notes). If
// the home directory cannot be found it falls back to "notes" relative to
// the working directory, without error. getenv reads the environment
// (os.Getenv in a real run).
func NotesRootDir(getenv func(string) string) string {
	if dir := getenv("YAGENT_NOTES_ROOT"); dir != "" {
		return dir
	}
	if home := getenv("YAGENT_HOME"); home != "" {
		return filepath.Join(home, "notes")
	}
	home, err := userHomeDir()
	if err != nil || home == "" {
		return "notes"
	}
	return filepath.Join(home, ".yagent", "notes")
}

// SanitizeBoardID maps any string to a safe single path segment of at most
// MaxBoardIDLen bytes. Only an empty id gets an invented one
// ("adhoc_<unix>_<rand4>"); callers that mean "this session's board" must
// never pass "" (see SPEC §5 constraint 10).
func SanitizeBoardID(id string) string {
	if id == "" {
		return fmt.Sprintf("adhoc_%d_%s", time.Now().Unix(), randomHex4())
	}
	s := sanitizeSegment(id, MaxBoardIDLen)
	if s == "" {
		return "_"
	}
	return s
}

// CheckBoardID reports whether id can be used verbatim as a board id: a
// person typing an id gets an error rather than a silently different board.
func CheckBoardID(id string) error {
	if id == "" {
		return fmt.Errorf("%w: it is empty; pass --board ID", ErrBadBoardID)
	}
	if s := sanitizeSegment(id, MaxBoardIDLen); s != id {
		return fmt.Errorf("%w %q: use at most %d letters, digits, '.', '_' or '-', not starting with '.'", ErrBadBoardID, id, MaxBoardIDLen)
	}
	return nil
}

// NormalizeAgent maps the agent spellings "agent:repo" and "repo_agent" to
// one directory name ("repo_agent"), keeps safe characters, cuts at
// MaxAgentNameLen and maps an empty name to UnknownAgent.
func NormalizeAgent(name string) string {
	name = strings.TrimSpace(name)
	if agent, repo, ok := strings.Cut(name, ":"); ok && agent != "" && repo != "" {
		name = repo + "_" + agent
	}
	s := sanitizeSegment(strings.ToLower(name), MaxAgentNameLen)
	if s == "" {
		return UnknownAgent
	}
	return s
}

// sanitizeSegment keeps [A-Za-z0-9._-], maps every other rune to '_', drops
// leading dots (so "." and ".." cannot appear) and cuts at max bytes.
func sanitizeSegment(s string, max int) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	out := strings.TrimLeft(b.String(), ".")
	if len(out) > max {
		out = out[:max]
	}
	return out
}

// BoardDir is root/{board}; board must already be sanitised.
func BoardDir(root, board string) string { return filepath.Join(root, board) }

// AgentDir is root/{board}/{agent}; agent must already be normalised.
func AgentDir(root, board, agent string) string { return filepath.Join(root, board, agent) }
