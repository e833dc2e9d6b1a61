package blackboard

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/yagent/yagent/internal/atomicfile"
)

// ChangeState is where a delegation's change stands (issue 28).
type ChangeState string

const (
	ChangePending   ChangeState = "pending"   // on its branch, not merged yet
	ChangeApplied   ChangeState = "applied"   // merged into the working tree
	ChangeDiscarded ChangeState = "discarded" // dropped with its branch
)

// NoteChange is the change an isolated delegation made (its note's
// change: front matter): what is on its branch, and whether it was
// merged. The diff itself is the note's patch (ReadPatch).
type NoteChange struct {
	Branch     string      `yaml:"branch" json:"branch"`
	Base       string      `yaml:"base" json:"base"`
	Head       string      `yaml:"head" json:"head"`
	Files      []string    `yaml:"files" json:"files"`
	Insertions int         `yaml:"insertions" json:"insertions"`
	Deletions  int         `yaml:"deletions" json:"deletions"`
	State      ChangeState `yaml:"state" json:"state"`
	// GitDir is the shadow repository of a snapshot's change (a workspace
	// that is no git repository); "" for a git branch.
	GitDir string `yaml:"git_dir,omitempty" json:"git_dir,omitempty"`
}

// patchFile is the artifact beside a note: its change as a unified diff.
func patchFile(f noteFile) noteFile { return noteFile{agent: f.agent, name: f.stem() + ".patch"} }

// isPatchFile reports whether a directory entry name is a note's patch.
func isPatchFile(name string) bool {
	stem, ok := strings.CutSuffix(name, ".patch")
	return ok && IsNoteStem(stem)
}

// ReadPatch returns the patch stored beside the note ref (its change as a
// unified diff; binary files named, not inlined).
func (s *Store) ReadPatch(board, ref string) ([]byte, error) {
	dir, f, err := s.noteFileOf(board, ref)
	if err != nil {
		return nil, err
	}
	if err := realDir(filepath.Join(dir, f.agent)); err != nil {
		return nil, noteErr(ref, err)
	}
	data, err := os.ReadFile(patchFile(f).path(dir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("note %s has no patch: %w", ref, ErrNoChange)
	}
	return data, err
}

// ErrChangeState is wrapped when a change is not in the state an update
// needs (applying one that was applied or discarded).
var ErrChangeState = errors.New("the change is not pending")

// ErrNoChange is wrapped when a note asked for its change carries none.
var ErrNoChange = errors.New("the note carries no change")

// UpdateChange changes the change: front matter of the note ref, through
// update, which sees the note's change as it is on disk and may refuse
// (its error is returned as it is, nothing is written). Notes are otherwise never
// rewritten: this is the one field that moves after a note landed — a
// change is pending, then applied or discarded. Updates of one agent's
// notes are serialised by a lock on its directory (flock: across
// processes, so the director and `yagent changes` never both apply one
// change), held while update runs; the note is replaced atomically, its
// body and every other key kept.
func (s *Store) UpdateChange(board, ref string, update func(c *NoteChange) error) (err error) {
	defer func() {
		if err != nil {
			err = fmt.Errorf("update the change of %s: %w", ref, err)
		}
	}()
	dir, f, err := s.noteFileOf(board, ref)
	if err != nil {
		return err
	}
	adir := filepath.Join(dir, f.agent)
	if err := realDir(adir); err != nil {
		return noteErr(ref, err)
	}
	lock, err := os.Open(adir)
	if err != nil {
		return noteErr(ref, err)
	}
	defer lock.Close() // closing the descriptor drops the lock
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return err
	}
	fh, size, err := openNote(dir, f)
	if err != nil {
		return noteErr(ref, err)
	}
	data, err := io.ReadAll(io.LimitReader(fh, size))
	fh.Close()
	if err != nil {
		return err
	}
	h, body := parseNote(data)
	if h.Degraded != DegradedNone {
		return fmt.Errorf("its front matter does not read whole (%s): fix the note by hand", h.Degraded)
	}
	if h.Change == nil {
		return ErrNoChange
	}
	c := *h.Change
	c.Files = append([]string(nil), c.Files...)
	if uerr := update(&c); uerr != nil {
		err = nil // the caller's refusal, as it is
		return uerr
	}
	h.Change = &c
	out, err := encodeNote(h, string(body))
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(f.path(dir), out, 0o644)
}

// realDir refuses a path that is a symbolic link or no directory.
func realDir(p string) error {
	fi, err := os.Lstat(p)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is no directory", p)
	}
	return nil
}
