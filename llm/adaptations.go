package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"

	"github.com/yagent/yagent/internal/atomicfile"
)

// adaptationsVersion is the version of the file format OpenAdaptations
// reads and writes.
const adaptationsVersion = 1

// adaptationsFile is the file's format: {"version":1,"endpoints":{URL:
// Adaptation}}, keyed by the base URL with its credentials scrubbed.
type adaptationsFile struct {
	Version   int                   `json:"version"`
	Endpoints map[string]Adaptation `json:"endpoints"`
}

// Adaptations remembers, per endpoint (base URL), what endpoints taught
// the clients that adapt to them (see [Adaptation]). It is safe for
// concurrent use; clients built with the same Adaptations share it.
//
// Backed by a file (OpenAdaptations), every change is written at once,
// atomically (internal/atomicfile: a temp file, fsync, rename, fsync of the
// directory), after merging what other processes wrote meanwhile: per
// endpoint the last writer wins. A file that cannot be read or is damaged
// is ignored with a notice, never fatal: endpoints adapt again from their
// answers. A failed write is a notice too; the memory still holds.
type Adaptations struct {
	mu     sync.Mutex
	path   string // "" = in memory only
	notice func(string)
	byURL  map[string]Adaptation
}

// NewAdaptations returns an empty Adaptations kept in memory only.
func NewAdaptations() *Adaptations {
	return &Adaptations{byURL: map[string]Adaptation{}}
}

// OpenAdaptations returns the Adaptations kept in the file at path (its
// directory must exist), reporting through notice (nil: nothing is
// reported) a file it ignores or a write that failed.
func OpenAdaptations(path string, notice func(string)) *Adaptations {
	s := &Adaptations{path: path, notice: notice}
	s.byURL = s.load()
	return s
}

// load reads the file: a missing one is empty, a damaged one is ignored
// with a notice, and so is an entry that is not an adaptation.
func (s *Adaptations) load() map[string]Adaptation {
	out := map[string]Adaptation{}
	data, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return out
	}
	if err != nil {
		s.say("read endpoint adaptations: %v: ignored, endpoints adapt again from their answers", err)
		return out
	}
	var f adaptationsFile
	if err := json.Unmarshal(data, &f); err != nil || f.Version != adaptationsVersion {
		why := fmt.Sprintf("version %d, want %d", f.Version, adaptationsVersion)
		if err != nil {
			why = err.Error()
		}
		s.say("endpoint adaptations %s is damaged (%s): ignored, endpoints adapt again from their answers", s.path, why)
		return out
	}
	for url, a := range f.Endpoints {
		if !a.valid() {
			s.say("endpoint adaptations %s: the entry of %s is damaged (reasoning_field %q): ignored", s.path, url, a.ReasoningField)
			continue
		}
		out[url] = a
	}
	return out
}

func (s *Adaptations) say(format string, args ...any) {
	if s.notice != nil {
		s.notice(fmt.Sprintf(format, args...))
	}
}

// get returns what the endpoint url taught so far.
func (s *Adaptations) get(url string) Adaptation {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.byURL[url]
}

// update records what change makes of url's adaptation and, when that
// changed it and a file backs s, writes the file.
func (s *Adaptations) update(url string, change func(Adaptation) Adaptation) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := change(s.byURL[url])
	if s.byURL[url] == a {
		return
	}
	s.byURL[url] = a
	if s.path == "" {
		return
	}
	all := s.load()
	all[url] = a
	data, err := json.MarshalIndent(adaptationsFile{Version: adaptationsVersion, Endpoints: all}, "", "  ")
	if err == nil {
		err = atomicfile.WriteFile(s.path, append(data, '\n'), 0o600)
	}
	if err != nil {
		s.say("save endpoint adaptations: %v: kept in memory for this process", err)
	}
}
