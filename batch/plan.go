package batch

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/budget"
	"github.com/yagent/yagent/internal/yamlstrict"
)

// Plan is a batch plan (SPEC §4, `yagent batch plan.yaml`): delegations
// with dependencies that run without a director deciding in between.
type Plan struct {
	// Board is the board the handoffs land on; "" leaves it to the caller
	// (--board, else a new id).
	Board string `yaml:"board"`
	// Parallel bounds the sub-agents running at once; 0 leaves it to the
	// caller.
	Parallel int `yaml:"parallel"`
	// Merge is manual (the default: changes stay pending on the board)
	// or auto: after each dependency level, that level's pending changes
	// are applied in plan order (app.Changes, as `yagent changes apply`),
	// stopping the batch at the first conflict (issue 28).
	Merge string `yaml:"merge"`
	// Budget caps what the whole plan spends on models (max_cost in US
	// dollars, max_tokens); it narrows --max-cost, --max-tokens and
	// budget.* (app.RunBudget). Nil: none of its own.
	Budget *budget.Limits `yaml:"budget"`
	// Until is the check (a shell command) every delegation's work must
	// pass, followed up while it fails (until.go); an entry's until
	// overrides it. MaxRounds bounds the delegations per entry (0: the
	// default, app.DefaultMaxRounds).
	Until       string           `yaml:"until"`
	MaxRounds   int              `yaml:"max_rounds"`
	Delegations []PlanDelegation `yaml:"delegations"`

	// Name is the file the plan came from, for errors and reports.
	Name string `yaml:"-"`
	root *yaml.Node
}

// PlanDelegation is one delegation of a plan.
type PlanDelegation struct {
	ID    string `yaml:"id"`
	Agent string `yaml:"agent"`
	Task  string `yaml:"task"`
	// DependsOn names delegations that must succeed (ok or partial) first.
	DependsOn []string `yaml:"depends_on"`
	// ContextRefs are ids of delegations this one depends on (replaced by
	// their notes' refs once they ran) or {agent}/{stem} refs of notes on
	// the board; their full text goes into the sub-agent's context pack.
	ContextRefs []string `yaml:"context_refs"`
	// Model and MaxSteps override the agent definition's when set.
	Model    string `yaml:"model"`
	MaxSteps int    `yaml:"max_steps"`
	// Isolation (none or worktree) overrides the agent definition's and
	// agents.isolation (issue 28).
	Isolation string `yaml:"isolation"`
	// Budget caps what this delegation and its subtree spend, within the
	// plan's; never above it (Validate).
	Budget *budget.Limits `yaml:"budget"`
	// Until and MaxRounds override the plan's (until.go).
	Until     string `yaml:"until" json:",omitempty"`
	MaxRounds int    `yaml:"max_rounds" json:",omitempty"`
}

// ReadPlan reads and decodes the plan file at path. A file that cannot be
// read is a *PlanError too: the person named it, and nothing was started.
func ReadPlan(path string) (*Plan, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &PlanError{File: path, Problems: []PlanProblem{{Msg: "cannot read it: " + planReadReason(err)}}}
	}
	return ParsePlan(data, path)
}

// planReadReason is the cause of a read error without the path, which
// PlanError already names.
func planReadReason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// ParsePlan decodes a plan. Decoding is strict: unknown keys, wrong types,
// YAML syntax errors and more than one document are errors naming name, the
// line and the field. Whether the plan makes sense (ids, agents,
// dependencies, refs) is Validate's job, which lists every problem at once.
func ParsePlan(data []byte, name string) (*Plan, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, decodeError(name, nil, err)
	}
	root := docRoot(&doc)
	if root == nil || root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return nil, &PlanError{File: name, Problems: []PlanProblem{{Msg: "empty plan: want delegations (see README.md, \"Batch plans\")"}}}
	}
	if root.Kind != yaml.MappingNode {
		return nil, &PlanError{File: name, Problems: []PlanProblem{{Line: root.Line, Msg: "the top level must be a mapping with board, parallel and delegations"}}}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var p Plan
	if err := dec.Decode(&p); err != nil {
		return nil, decodeError(name, root, err)
	}
	// yaml.v3 truncates a float decoded into an integer (2.5 → 2): refused.
	if floats := yamlstrict.FloatsInIntegers(root, reflect.TypeFor[Plan]()); len(floats) > 0 {
		pe := &PlanError{File: name}
		for _, f := range floats {
			pe.Problems = append(pe.Problems, PlanProblem{Line: f.Line, Field: f.Path.String(), Msg: fmt.Sprintf("want an integer, got %s", f.Value)})
		}
		return nil, pe
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, &PlanError{File: name, Problems: []PlanProblem{{Line: extra.Line, Msg: "more than one YAML document: keep one plan per file"}}}
	}
	p.Name, p.root = name, root
	return &p, nil
}

// line returns the line of the node at path (mapping keys and sequence
// indexes) or of its deepest existing ancestor; 0 when unknown.
func (p *Plan) line(path ...any) int {
	line, _ := p.find(path...)
	return line
}

// hasNode reports whether the plan's file holds the node at path (a key
// given, even with an empty value).
func (p *Plan) hasNode(path ...any) bool {
	_, ok := p.find(path...)
	return ok
}

// find is line's walk: the line of the node at path, or of its deepest
// existing ancestor, and whether the whole path exists.
func (p *Plan) find(path ...any) (int, bool) {
	n := p.root
	if n == nil {
		return 0, false
	}
	line := n.Line
	for _, el := range path {
		for n.Kind == yaml.AliasNode && n.Alias != nil {
			n = n.Alias
		}
		switch k := el.(type) {
		case string:
			if n.Kind != yaml.MappingNode {
				return line, false
			}
			var next *yaml.Node
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == k {
					line, next = n.Content[i].Line, n.Content[i+1]
				}
			}
			if next == nil {
				return line, false
			}
			n = next
		case int:
			if n.Kind != yaml.SequenceNode || k < 0 || k >= len(n.Content) {
				return line, false
			}
			n = n.Content[k]
			line = n.Line
		}
	}
	return line, true
}

func docRoot(doc *yaml.Node) *yaml.Node {
	if doc.Kind == yaml.DocumentNode {
		if len(doc.Content) == 0 {
			return nil
		}
		return doc.Content[0]
	}
	if doc.Kind == 0 {
		return nil
	}
	return doc
}

var (
	yamlLineRe    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`) })
	yamlUnknownRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^field (\S+) not found in type (\S+)$`) })
	yamlTypeRe    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("^cannot unmarshal !!(\\w+) `(.*)` into (\\S+)$") })
	yamlKindRe    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^cannot unmarshal !!(seq|map) into (\S+)$`) })
	yamlParserRe  = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^did not find expected (?:',' or '\]'|',' or '\}'|'-' indicator|key|node content)$`)
	})
)

// decodeError turns yaml.v3's errors into problems in the plan's own
// vocabulary: the line, the field path (delegations[1].depends_on) and
// what to write instead.
func decodeError(name string, root *yaml.Node, err error) error {
	var raw []string
	var te *yaml.TypeError
	if errors.As(err, &te) {
		raw = te.Errors
	} else {
		raw = []string{err.Error()}
	}
	pe := &PlanError{File: name}
	for _, r := range raw {
		m := yamlLineRe().FindStringSubmatch(strings.TrimPrefix(r, "yaml: "))
		if m == nil {
			pe.Problems = append(pe.Problems, PlanProblem{Msg: "YAML: " + strings.TrimPrefix(r, "yaml: ")})
			continue
		}
		line, _ := strconv.Atoi(m[1])
		msg := m[2]
		if te == nil {
			if yamlParserRe().MatchString(msg) {
				// yaml.v3 reports the 0-based line where the enclosing
				// block starts for these parser errors.
				line++
				msg += " (in the block starting on this line)"
			}
			pe.Problems = append(pe.Problems, PlanProblem{Line: line, Msg: "YAML syntax: " + msg})
			continue
		}
		prob := PlanProblem{Line: line, Msg: msg}
		if u := yamlUnknownRe().FindStringSubmatch(msg); u != nil {
			prob.Field = fieldAt(root, line, u[1])
			prob.Msg = fmt.Sprintf("unknown key %q (known: %s)", u[1], knownKeys(u[2]))
		} else {
			prob.Field = fieldAt(root, line, "")
			if t := yamlTypeRe().FindStringSubmatch(msg); t != nil {
				prob.Msg = fmt.Sprintf("want %s, got %q", wantWord(t[3]), t[2])
				if f := typedField(root, line, t[3], func(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Value == t[2] }); f != "" {
					prob.Field = f
				}
			} else if k := yamlKindRe().FindStringSubmatch(msg); k != nil {
				got := map[string]string{"seq": "a list", "map": "a mapping"}[k[1]]
				prob.Msg = fmt.Sprintf("want %s, got %s", wantWord(k[2]), got)
				kind := map[string]yaml.Kind{"seq": yaml.SequenceNode, "map": yaml.MappingNode}[k[1]]
				if f := typedField(root, line, k[2], func(n *yaml.Node) bool { return n.Kind == kind }); f != "" {
					prob.Field = f
				}
			}
		}
		pe.Problems = append(pe.Problems, prob)
	}
	return pe
}

// fieldAt returns the path of the mapping key on line (named key when
// given), or of the value on line, in the plan's notation.
func fieldAt(root *yaml.Node, line int, key string) string {
	var walk func(n *yaml.Node, path string, depth int) (string, bool)
	walk = func(n *yaml.Node, path string, depth int) (string, bool) {
		if n == nil || depth > 32 {
			return "", false
		}
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				p := k.Value
				if path != "" {
					p = path + "." + k.Value
				}
				if k.Line == line && (key == "" || k.Value == key) {
					if key != "" {
						return path, true
					}
					return p, true
				}
				if got, ok := walk(v, p, depth+1); ok {
					return got, true
				}
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				p := path + "[" + strconv.Itoa(i) + "]"
				if key == "" && c.Kind == yaml.ScalarNode && c.Line == line {
					return p, true
				}
				if got, ok := walk(c, p, depth+1); ok {
					return got, true
				}
			}
		}
		return "", false
	}
	got, _ := walk(root, "", 0)
	return got
}

// typedField finds the field of the value on line that decodes into the Go
// type yaml.v3 named (goType, e.g. "[]string") and that is, so that a
// flow mapping ({id: b, depends_on: a}) names depends_on rather than the
// first key on the line; "" when none is.
func typedField(root *yaml.Node, line int, goType string, is func(*yaml.Node) bool) string {
	found := ""
	yamlstrict.Walk(root, reflect.TypeFor[Plan](), func(p yamlstrict.Path, n *yaml.Node, t reflect.Type) {
		if found == "" && n.Line == line && t.String() == strings.TrimPrefix(goType, "*") && is(n) {
			found = p.String()
		}
	})
	return found
}

// knownKeys lists the YAML keys of the plan type named by yaml.v3
// ("batch.PlanDelegation": compared with reflect's name of it, so a move
// of the type keeps the list).
func knownKeys(goType string) string {
	var t reflect.Type
	for _, c := range []reflect.Type{reflect.TypeFor[Plan](), reflect.TypeFor[PlanDelegation]()} {
		if c.String() == strings.TrimPrefix(goType, "*") {
			t = c
		}
	}
	if t == nil {
		return "see README.md, \"Batch plans\""
	}
	var names []string
	for f := range t.Fields() {
		if name, _, _ := strings.Cut(f.Tag.Get("yaml"), ","); name != "" && name != "-" {
			names = append(names, name)
		}
	}
	return strings.Join(names, ", ")
}

func wantWord(goType string) string {
	switch t := strings.TrimPrefix(goType, "*"); {
	case t == "int":
		return "an integer"
	case t == "string":
		return "a string"
	case t == "[]string":
		return "a list such as [scan, review]"
	case strings.HasPrefix(t, "[]"):
		return "a list"
	}
	return "a mapping"
}

// BoardChoiceError is a plan that names one board and a --board flag
// that names another: the person's mistake.
type BoardChoiceError struct{ Plan, Flag string }

func (e *BoardChoiceError) Error() string {
	return fmt.Sprintf("the plan names board %q and --board names %q: drop one", e.Plan, e.Flag)
}

// ChooseBoard is the board a run of p writes: the plan's, else flag (the
// command's --board), else the session's own scope.
func (p *Plan) ChooseBoard(flag, sessionID string) (string, error) {
	if flag != "" {
		if err := blackboard.CheckBoardID(flag); err != nil {
			return "", err
		}
	}
	switch {
	case p.Board != "" && flag != "" && flag != p.Board:
		return "", &BoardChoiceError{Plan: p.Board, Flag: flag}
	case p.Board != "":
		return p.Board, nil
	case flag != "":
		return flag, nil
	}
	return agents.SetBoardScope(sessionID, "")
}
