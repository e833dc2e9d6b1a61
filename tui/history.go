package tui

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// historyMax is how many prompts a directory's history keeps.
const historyMax = 1000

// history is the prompt history of one directory: one JSON string per
// line (a prompt may span lines), appended as prompts are sent. A torn or
// damaged line is skipped.
type history struct {
	path   string
	lines  []string
	failed bool
	mu     sync.Mutex
}

func loadHistory(path string) *history {
	h := &history{path: path}
	if path == "" {
		return h
	}
	f, err := os.Open(path)
	if err != nil {
		return h
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var s string
		if json.Unmarshal(sc.Bytes(), &s) == nil && s != "" {
			h.lines = append(h.lines, s)
		}
	}
	if len(h.lines) > historyMax {
		h.lines = h.lines[len(h.lines)-historyMax:]
	}
	return h
}

// add appends a prompt; the first failure to save is reported once.
func (h *history) add(s string, warn func(string)) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if s == "" || len(h.lines) > 0 && h.lines[len(h.lines)-1] == s {
		return
	}
	h.lines = append(h.lines, s)
	if h.path == "" {
		return
	}
	if err := h.save(s); err != nil && !h.failed {
		h.failed = true
		if warn != nil {
			warn(fmt.Sprintf("the prompt history is not saved: %v", err))
		}
	}
}

func (h *history) save(s string) error {
	line, err := json.Marshal(s)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(h.path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(h.path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(append(line, '\n'))
	return errors.Join(err, f.Close())
}

// histPrev shows the previous prompt (↑ on the first line).
func (m *model) histPrev() bool {
	n := len(m.hist.lines)
	if n == 0 || m.histAt == 0 {
		return m.histAt == 0
	}
	if m.histAt < 0 {
		m.draft = m.ta.Value()
		m.histAt = n
	}
	m.histAt--
	m.ta.SetValue(m.hist.lines[m.histAt])
	return true
}

// histNext shows the next prompt, then the draft (↓ on the last line).
func (m *model) histNext() bool {
	if m.histAt < 0 {
		return false
	}
	m.histAt++
	if m.histAt >= len(m.hist.lines) {
		m.histAt = -1
		m.ta.SetValue(m.draft)
		return true
	}
	m.ta.SetValue(m.hist.lines[m.histAt])
	return true
}
