package blackboard

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Store is a notes root holding any number of boards.
type Store struct {
	root  string
	now   func() time.Time
	namer *namer
	// project is recorded with a board at its first note (WithProject).
	project string
	// maxNoteBytes is the largest note loaded whole (WithMaxNoteBytes);
	// 0 means no limit.
	maxNoteBytes int64
	// claimStore keeps task claims (WithClaims); nil: files.
	claimStore Claims
	// off is the kill switch (OpenEnv: YAGENT_BLACKBOARD=0), decided when
	// the store is opened.
	off bool
}

// Open returns a store rooted at root, switched on. Nothing is created until
// the first write.
func Open(root string) *Store {
	return &Store{root: root, now: time.Now, namer: &defaultNamer}
}

// OpenEnv opens the store a real run uses, from the environment getenv
// reads (os.Getenv in a real run), once: the root is NotesRootDir's answer,
// and KillSwitch=0 opens it switched off. Nothing reads the environment
// after that.
func OpenEnv(getenv func(string) string) *Store {
	s := Open(NotesRootDir(getenv))
	s.off = getenv(KillSwitch) == "0"
	return s
}

// Enabled reports whether the store is on. It is the one predicate used by
// write, read, index and GC: a store switched off returns ErrDisabled from
// every read and write and builds an empty index.
func (s *Store) Enabled() bool { return !s.off }

// Root returns the notes root directory.
func (s *Store) Root() string { return s.root }

// BoardDir returns the directory of a board (the id is sanitised).
func (s *Store) BoardDir(board string) string {
	return BoardDir(s.root, SanitizeBoardID(board))
}

// boardDir validates board for reading: it must be non-empty (an empty id
// would silently mean a fresh, empty board).
func (s *Store) boardDir(board string) (string, error) {
	if board == "" {
		return "", fmt.Errorf("no board id given")
	}
	return BoardDir(s.root, SanitizeBoardID(board)), nil
}

// BoardExists reports whether a board directory exists.
func (s *Store) BoardExists(board string) bool {
	dir, err := s.boardDir(board)
	if err != nil {
		return false
	}
	fi, err := os.Lstat(dir)
	return err == nil && fi.IsDir()
}

// CheckBoard checks a board id a person typed (CheckBoardID: refused, not
// sanitised into another board) and, with mustExist, that the board is
// there (ErrNoBoard, naming the command that lists the boards).
func (s *Store) CheckBoard(board string, mustExist bool) error {
	if err := CheckBoardID(board); err != nil {
		return err
	}
	if mustExist && !s.BoardExists(board) {
		return fmt.Errorf("%w %q under %s: `yagent board boards` lists the boards", ErrNoBoard, board, s.root)
	}
	return nil
}

// RemoveBoard removes a board and every note on it; an id CheckBoardID
// refuses is refused (nothing removed).
func (s *Store) RemoveBoard(board string) error {
	if err := CheckBoardID(board); err != nil {
		return err
	}
	if err := os.RemoveAll(s.BoardDir(board)); err != nil {
		return fmt.Errorf("remove board %s: %w", board, err)
	}
	return nil
}

// agentDirs lists the agent directories of a board (real directories only,
// never symlinks). A board directory that is a symlink is no board, as for
// BoardExists.
func (s *Store) agentDirs(boardDir string) ([]string, error) {
	if fi, err := os.Lstat(boardDir); err == nil && !fi.IsDir() {
		return nil, nil
	}
	entries, err := os.ReadDir(boardDir)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("list board %s: %w", boardDir, err)
	}
	var dirs []string
	for _, e := range entries {
		if e.Type().IsDir() && e.Name() != "" && e.Name()[0] != '.' {
			dirs = append(dirs, e.Name())
		}
	}
	return dirs, nil
}

// noteFile is a note found by listing, before it is decoded.
type noteFile struct {
	agent, name string
}

func (f noteFile) stem() string { return f.name[:len(f.name)-3] }
func (f noteFile) ref() string  { return f.agent + "/" + f.stem() }
func (f noteFile) path(boardDir string) string {
	return filepath.Join(boardDir, f.agent, f.name)
}

// listFiles returns the note files of a board (or of one agent when agent is
// non-empty) sorted by file name, which is time order.
func (s *Store) listFiles(boardDir, agent string) ([]noteFile, error) {
	agents := []string{agent}
	if agent == "" {
		var err error
		if agents, err = s.agentDirs(boardDir); err != nil {
			return nil, err
		}
	}
	var files []noteFile
	for _, a := range agents {
		entries, err := os.ReadDir(filepath.Join(boardDir, a))
		if err != nil {
			if os.IsNotExist(err) {
				continue
			}
			return nil, fmt.Errorf("list agent dir %s: %w", a, err)
		}
		for _, e := range entries {
			if e.Type().IsRegular() && isNoteFile(e.Name()) {
				files = append(files, noteFile{agent: a, name: e.Name()})
			}
		}
	}
	sortFilesByName(files)
	return files, nil
}

// newestFiles returns the n newest note files of a board, newest last, and
// the number of note files on it. It reads each agent directory unsorted and
// keeps only a running top n, so beyond the directory listing its cost does
// not grow with the board.
func (s *Store) newestFiles(boardDir string, n int) ([]noteFile, int, []noteFile, error) {
	agents, err := s.agentDirs(boardDir)
	if err != nil {
		return nil, 0, nil, err
	}
	var patched []noteFile // notes with a patch beside them
	var top []noteFile     // sorted ascending by name, at most n
	total := 0
	for _, a := range agents {
		f, err := os.Open(filepath.Join(boardDir, a))
		if err != nil {
			continue
		}
		entries, err := f.ReadDir(-1)
		f.Close()
		if err != nil {
			return nil, 0, nil, fmt.Errorf("list agent dir %s: %w", a, err)
		}
		for _, e := range entries {
			name := e.Name()
			if e.Type().IsRegular() && isPatchFile(name) {
				patched = append(patched, noteFile{agent: a, name: strings.TrimSuffix(name, ".patch") + ".md"})
				continue
			}
			if !e.Type().IsRegular() || !isNoteFile(name) {
				continue
			}
			total++
			if len(top) == n && name <= top[0].name {
				continue
			}
			i, _ := slices.BinarySearchFunc(top, name, func(f noteFile, name string) int { return strings.Compare(f.name, name) })
			top = slices.Insert(top, i, noteFile{agent: a, name: name})
			if len(top) > n {
				top = top[1:]
			}
		}
	}
	sortFilesByName(patched)
	return top, total, patched, nil
}
