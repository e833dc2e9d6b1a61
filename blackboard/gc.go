package blackboard

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/yagent/yagent/config"
)

// GCOptions configure a clean-up.
type GCOptions struct {
	// TTL removes a board whose newest note is older than this; 0 never.
	TTL time.Duration
	// MaxNotesPerBoard keeps only the newest notes of a board; 0 no cap.
	MaxNotesPerBoard int
	// DryRun reports without removing.
	DryRun bool
}

// GCOptionsFromConfig reads the gc valves (ttl "0" and 0 mean "never").
func GCOptionsFromConfig(c config.Blackboard) GCOptions {
	return GCOptions{TTL: c.TTL.D(), MaxNotesPerBoard: c.MaxNotesPerBoard}
}

// GCReport lists what a clean-up removed (or would remove, on a dry run).
type GCReport struct {
	Boards []string `json:"boards"` // whole boards removed as expired
	Notes  []string `json:"notes"`  // "{board}/{agent}/{stem}" removed by the count cap
	Temps  []string `json:"temps"`  // temporary files left by crashed writers
	// Patches are patches whose note is gone ("{board}/{agent}/{stem}");
	// a note the count cap removes takes its patch along.
	Patches []string `json:"patches,omitempty"`
}

// staleTemp is how old a leftover temporary file must be before GC removes
// it; a live writer finishes within milliseconds.
const staleTemp = time.Hour

// tempPattern matches renameio's temporary names for note files and
// their patches.
var tempPattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\.([0-9]{8}T[0-9]{6}Z_[0-9a-f]{4}-[0-9]+-[0-9]{6,}\.(md|patch))[0-9]+$`)
})

// GC removes expired boards, caps the number of notes per board and clears
// stale temporary files. It uses Lstat throughout and never follows a
// symlink; a board that has not expired is never removed as a whole; the
// count cap orders notes by file name (time order) across agent
// directories, never by path. The report's lists are never nil (empty
// ones print as [] in JSON).
func (s *Store) GC(opts GCOptions, now time.Time) (GCReport, error) {
	rep := GCReport{Boards: []string{}, Notes: []string{}, Temps: []string{}}
	if !s.Enabled() {
		return rep, ErrDisabled
	}
	entries, err := os.ReadDir(s.root)
	if os.IsNotExist(err) {
		return rep, nil
	}
	if err != nil {
		return rep, fmt.Errorf("gc %s: %w", s.root, err)
	}
	for _, e := range entries {
		dir := filepath.Join(s.root, e.Name())
		fi, err := os.Lstat(dir)
		if err != nil || !fi.IsDir() || e.Name()[0] == '.' {
			continue // symlinks, files, vanished entries
		}
		if err := s.gcBoard(e.Name(), dir, fi, opts, now, &rep); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

func (s *Store) gcBoard(board, dir string, fi os.FileInfo, opts GCOptions, now time.Time, rep *GCReport) error {
	files, temps, patches, err := s.scanBoard(dir)
	if err != nil {
		return err
	}
	last := fi.ModTime()
	if len(files) > 0 {
		if t, ok := stemTime(files[len(files)-1].stem()); ok {
			last = t
		}
	}
	if opts.TTL > 0 && now.Sub(last) > opts.TTL {
		rep.Boards = append(rep.Boards, board)
		if !opts.DryRun {
			if err := os.RemoveAll(dir); err != nil {
				return fmt.Errorf("gc: remove board %s: %w", board, err)
			}
		}
		return nil
	}
	if opts.MaxNotesPerBoard > 0 && len(files) > opts.MaxNotesPerBoard {
		for _, f := range files[:len(files)-opts.MaxNotesPerBoard] {
			rep.Notes = append(rep.Notes, board+"/"+f.ref())
			if !opts.DryRun {
				if err := os.Remove(f.path(dir)); err != nil && !os.IsNotExist(err) {
					return fmt.Errorf("gc: remove note %s/%s: %w", board, f.ref(), err)
				}
				if err := os.Remove(patchFile(f).path(dir)); err != nil && !os.IsNotExist(err) {
					return fmt.Errorf("gc: remove the patch of %s/%s: %w", board, f.ref(), err)
				}
			}
		}
	}
	notes := map[noteFile]bool{}
	for _, f := range files {
		notes[f] = true
	}
	for _, p := range patches {
		note := noteFile{agent: p.agent, name: strings.TrimSuffix(p.name, ".patch") + ".md"}
		pfi, err := os.Lstat(p.path(dir))
		// A patch is written just before its note: a young one may still
		// be waiting for it.
		if notes[note] || err != nil || now.Sub(pfi.ModTime()) < staleTemp {
			continue
		}
		rep.Patches = append(rep.Patches, board+"/"+note.ref())
		if !opts.DryRun {
			_ = os.Remove(p.path(dir))
		}
	}
	for _, t := range temps {
		tfi, err := os.Lstat(t)
		if err != nil || !tfi.Mode().IsRegular() || now.Sub(tfi.ModTime()) < staleTemp {
			continue
		}
		rep.Temps = append(rep.Temps, t)
		if !opts.DryRun {
			_ = os.Remove(t)
		}
	}
	return nil
}

// scanBoard lists a board's note files (sorted by file name), their
// patches and leftover temporary files, looking only at real directories
// and regular files.
func (s *Store) scanBoard(dir string) (files []noteFile, temps []string, patches []noteFile, err error) {
	agents, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("gc: list board %s: %w", dir, err)
	}
	for _, a := range agents {
		adir := filepath.Join(dir, a.Name())
		fi, err := os.Lstat(adir)
		if err != nil || !fi.IsDir() || strings.HasPrefix(a.Name(), ".") { // .tasks, .claims, .mail: no agents
			continue
		}
		entries, err := os.ReadDir(adir)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("gc: list %s: %w", adir, err)
		}
		for _, e := range entries {
			switch {
			case !e.Type().IsRegular():
			case isNoteFile(e.Name()):
				files = append(files, noteFile{agent: a.Name(), name: e.Name()})
			case isPatchFile(e.Name()):
				patches = append(patches, noteFile{agent: a.Name(), name: e.Name()})
			case tempPattern().MatchString(e.Name()):
				temps = append(temps, filepath.Join(adir, e.Name()))
			}
		}
	}
	sortFilesByName(files)
	return files, temps, patches, nil
}
