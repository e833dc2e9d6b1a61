package blackboard

import (
	"math"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// HandoffVersion is the on-disk version of notes written by this package.
const HandoffVersion = 2

// MaxRenderRunes is the largest budget of a rendering: what a budget of 0
// ("no limit") stands for inside this package.
const MaxRenderRunes = math.MaxInt32

// Status of a handoff. ok and partial are self-reported by the model, error
// is set when a delegation fails, degraded by the replay side on resume.
// There is deliberately no "paused": an abandoned delegation writes nothing.
type Status string

const (
	StatusOK       Status = "ok"
	StatusPartial  Status = "partial"
	StatusError    Status = "error"
	StatusDegraded Status = "degraded"
)

// Valid reports whether s is in the vocabulary.
func (s Status) Valid() bool {
	switch s {
	case StatusOK, StatusPartial, StatusError, StatusDegraded:
		return true
	}
	return false
}

// Succeeded reports whether a delegation with this status counts as done:
// ok or partial. A batch runs a dependant after it and --resume reuses its
// note; error and degraded do neither.
func (s Status) Succeeded() bool { return s == StatusOK || s == StatusPartial }

// Degraded says how far ParseHandoff had to fall back. It is computed on
// read and never stored.
type Degraded string

const (
	DegradedNone    Degraded = ""
	DegradedV1      Degraded = "v1"      // legacy note: synthesised from its summary
	DegradedPartial Degraded = "partial" // front matter readable only field by field
	DegradedAbsent  Degraded = "absent"  // no usable front matter at all
)

// Handoff is the structured front matter of a note.
type Handoff struct {
	Version    int       `yaml:"version" json:"version"`
	Status     Status    `yaml:"status" json:"status"`
	Agent      string    `yaml:"agent" json:"agent"`
	Task       string    `yaml:"task" json:"task"`
	Conclusion string    `yaml:"conclusion" json:"conclusion"`
	Reason     string    `yaml:"reason,omitempty" json:"reason,omitempty"`
	Facts      []string  `yaml:"facts" json:"facts"`
	Artifacts  []string  `yaml:"artifacts" json:"artifacts"`
	Created    time.Time `yaml:"created" json:"created"`
	// Key is an optional stable name a writer gives its note so that it
	// can find it again (a batch plan's "batch:<id>", for --resume).
	Key string `yaml:"key,omitempty" json:"key,omitempty"`
	// Change is what an isolated delegation changed (issue 28): its
	// branch, diffstat and state; the diff is the note's patch.
	Change *NoteChange `yaml:"change,omitempty" json:"change,omitempty"`
	// Usage is what the delegation's own model calls used and cost
	// (issue 29 item 4); absent from notes written before it, by hand or
	// without a model call.
	Usage *NoteUsage `yaml:"usage,omitempty" json:"usage,omitempty"`
	// Session is the sub-agent session whose rollout holds the
	// delegation's history (issue 30): a follow-up continues it. Absent
	// from notes written without one (by hand, on a queue worker).
	Session string `yaml:"session,omitempty" json:"session,omitempty"`
	// Supersedes is the ref of the note a follow-up continued: this note
	// replaces it (notes are written once; the first stays as it was).
	Supersedes string `yaml:"supersedes,omitempty" json:"supersedes,omitempty"`
	// Extra are front matter keys the handoff does not own (a person's
	// tags, aliases, …), kept verbatim and in order; they never make a
	// note degraded.
	Extra Fields `yaml:"-" json:"extra,omitzero"`
	// Degraded is computed by ParseHandoff, never stored.
	Degraded Degraded `yaml:"-" json:"degraded,omitempty"`
}

// ParseHandoff reads the handoff of a note file. It never fails and never
// returns nil; it falls back through three tiers:
//  1. the front matter decodes strictly as a current Handoff;
//  2. the front matter is a YAML mapping: known fields are salvaged one by
//     one (a legacy note's summary becomes the conclusion, Degraded=v1;
//     anything else Degraded=partial);
//  3. no usable front matter: Degraded=absent, the first line of text
//     becomes the conclusion.
func ParseHandoff(data []byte) *Handoff {
	h, _ := parseNote(data)
	return h
}

// parseNote splits a note into its handoff and body.
func parseNote(data []byte) (*Handoff, []byte) {
	fm, body, ok := SplitFrontMatter(data)
	return parseHandoff(fm, body, ok), body
}

// parseHandoff decodes front matter fm (ok: there was one) tier by tier;
// body serves the last tier.
func parseHandoff(fm, body []byte, ok bool) *Handoff {
	if !ok {
		return absentHandoff(body)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(fm, &doc); err != nil || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return absentHandoff(body)
	}
	own, extra := splitFields(doc.Content[0])
	var strict Handoff
	if err := own.Decode(&strict); err == nil && strict.Version >= HandoffVersion && strict.Status.Valid() {
		strict.Extra = extra
		return &strict
	}
	var raw map[string]any
	if err := own.Decode(&raw); err != nil {
		return absentHandoff(body)
	}
	h := salvageHandoff(raw)
	h.Extra = extra
	return h
}

// SplitFrontMatter cuts "---\n<yaml>\n---\n<body>"; without front matter
// the whole of data is the body. It splits every file as adrg/frontmatter
// does (FuzzFrontMatterBoundsMatchesAdrg); agent definitions are split with
// it too, so no process links adrg/frontmatter and its YAML v2 and TOML
// parsers.
func SplitFrontMatter(data []byte) (fm, body []byte, ok bool) {
	fmStart, fmEnd, bodyStart, st := frontMatterBounds(data, true)
	if st != fmFound {
		return nil, data, false
	}
	return data[fmStart:fmEnd], data[bodyStart:], true
}

func absentHandoff(body []byte) *Handoff {
	return &Handoff{Status: StatusDegraded, Conclusion: firstLine(string(body)), Degraded: DegradedAbsent}
}

func salvageHandoff(raw map[string]any) *Handoff {
	h := &Handoff{Degraded: DegradedPartial}
	h.Version, _ = raw["version"].(int)
	h.Status = Status(str(raw["status"]))
	h.Agent = str(raw["agent"])
	h.Task = str(raw["task"])
	h.Conclusion = str(raw["conclusion"])
	h.Reason = str(raw["reason"])
	h.Key = str(raw["key"])
	h.Session = str(raw["session"])
	h.Supersedes = str(raw["supersedes"])
	h.Facts = strs(raw["facts"])
	h.Usage = usageField(raw["usage"])
	h.Artifacts = strs(raw["artifacts"])
	switch c := raw["created"].(type) {
	case time.Time:
		h.Created = c
	case string:
		h.Created, _ = time.Parse(time.RFC3339, c)
	}
	if summary := str(raw["summary"]); summary != "" && h.Conclusion == "" {
		h.Conclusion = summary
		h.Degraded = DegradedV1
		if h.Version == 0 {
			h.Version = 1
		}
	}
	if !h.Status.Valid() {
		if h.Degraded == DegradedV1 && h.Status == "" {
			h.Status = StatusOK
		} else {
			h.Status = StatusDegraded
		}
	}
	return h
}

// usageField salvages a usage mapping: its numbers that read as numbers;
// nil when nothing does.
func usageField(v any) *NoteUsage {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	num := func(k string) (float64, bool) {
		switch n := m[k].(type) {
		case int:
			return float64(n), true
		case float64:
			return n, true
		}
		return 0, false
	}
	var u NoteUsage
	found := false
	for k, p := range map[string]*int{"requests": &u.Requests, "prompt_tokens": &u.PromptTokens, "cached_tokens": &u.CachedTokens, "completion_tokens": &u.CompletionTokens} {
		if n, ok := num(k); ok && n >= 0 && n < 1<<53 {
			*p, found = int(n), true
		}
	}
	if c, ok := num("cost_usd"); ok && c >= 0 {
		u.CostUSD, found = &c, true
	}
	if !found {
		return nil
	}
	return &u
}

func str(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case nil:
		return ""
	case int, int64, float64, bool:
		b, _ := yaml.Marshal(v)
		return strings.TrimSpace(string(b))
	}
	return ""
}

func strs(v any) []string {
	switch v := v.(type) {
	case []any:
		out := make([]string, 0, len(v))
		for _, e := range v {
			if s := str(e); s != "" {
				out = append(out, s)
			}
		}
		return out
	case string:
		if v != "" {
			return []string{v}
		}
	}
	return nil
}

func firstLine(s string) string {
	for line := range strings.Lines(s) {
		line = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "#"))
		if line != "" && line != "---" {
			return line
		}
	}
	return ""
}
