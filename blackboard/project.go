package blackboard

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/yagent/yagent/internal/atomicfile"
)

// projectFile, in a board's directory, names the knowledge-base project the
// board belongs to: one project handle and a newline. It is a file, not a
// directory, so listing, the index and GC never take it for an agent; GC
// removes it with its board.
const projectFile = ".project"

const maxProjectHandle = 200

// WithProject returns a store whose writes record project (a kb project
// handle, normally kb.project) with a board that has none yet: the board's
// first note made by such a store gives the board its project, and later
// writes never change it. "" records nothing.
func (s *Store) WithProject(handle string) *Store {
	c := *s
	c.project = strings.TrimSpace(handle)
	return &c
}

// BoardProject returns the project handle recorded with board, "" when
// none is recorded (or the record is not one handle on one line, which
// counts as none).
func (s *Store) BoardProject(board string) (string, error) {
	dir, err := s.boardDir(board)
	if err != nil {
		return "", err
	}
	data, err := os.ReadFile(filepath.Join(dir, projectFile))
	if os.IsNotExist(err) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("project of board %s: %w", board, err)
	}
	h := strings.TrimSpace(string(data))
	if h == "" || len(h) > maxProjectHandle || strings.ContainsAny(h, "\n\r\x00") {
		return "", nil
	}
	return h, nil
}

// recordProject writes the store's project into boardDir unless the board
// already has one.
func (s *Store) recordProject(boardDir string) error {
	if s.project == "" {
		return nil
	}
	path := filepath.Join(boardDir, projectFile)
	if _, err := os.Lstat(path); err == nil {
		return nil
	}
	if err := atomicfile.WriteFile(path, []byte(s.project+"\n"), 0o644); err != nil {
		return fmt.Errorf("record the board's project: %w", err)
	}
	return nil
}
