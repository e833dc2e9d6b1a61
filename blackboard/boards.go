package blackboard

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// BoardInfo summarises one board.
type BoardInfo struct {
	ID     string    `json:"id"`
	Notes  int       `json:"notes"`
	Newest time.Time `json:"newest"`
	Bytes  int64     `json:"bytes"`
}

// Boards lists the boards under the root, most recently active first.
func (s *Store) Boards() ([]BoardInfo, error) {
	if !s.Enabled() {
		return nil, ErrDisabled
	}
	entries, err := os.ReadDir(s.root)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list boards in %s: %w", s.root, err)
	}
	var out []BoardInfo
	for _, e := range entries {
		dir := filepath.Join(s.root, e.Name())
		fi, err := os.Lstat(dir)
		if err != nil || !fi.IsDir() || e.Name()[0] == '.' {
			continue
		}
		files, err := s.listFiles(dir, "")
		if err != nil {
			return nil, err
		}
		info := BoardInfo{ID: e.Name(), Notes: len(files), Newest: fi.ModTime().UTC()}
		for _, f := range files {
			if fi, err := os.Lstat(f.path(dir)); err == nil {
				info.Bytes += fi.Size()
			}
		}
		if len(files) > 0 {
			if t, ok := stemTime(files[len(files)-1].stem()); ok {
				info.Newest = t
			}
		}
		out = append(out, info)
	}
	slices.SortFunc(out, func(a, b BoardInfo) int { return b.Newest.Compare(a.Newest) })
	return out, nil
}
