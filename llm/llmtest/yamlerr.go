package llmtest

import (
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
)

// lineOf returns the line of the node at path, or of its deepest existing
// ancestor; 0 without a document.
func lineOf(root *yaml.Node, path []any) int {
	n := docRoot(root)
	if n == nil {
		return 0
	}
	line := n.Line
	for _, el := range path {
		n = deref(n)
		switch k := el.(type) {
		case string:
			if n.Kind != yaml.MappingNode {
				return line
			}
			found := false
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == k {
					line, n, found = n.Content[i].Line, n.Content[i+1], true
					break
				}
			}
			if !found {
				return line
			}
		case int:
			if n.Kind != yaml.SequenceNode || k >= len(n.Content) {
				return line
			}
			n = n.Content[k]
			line = n.Line
		}
	}
	return line
}

func docRoot(root *yaml.Node) *yaml.Node {
	if root == nil || root.Kind == 0 {
		return nil
	}
	if root.Kind == yaml.DocumentNode {
		if len(root.Content) == 0 {
			return nil
		}
		return root.Content[0]
	}
	return root
}

func deref(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// findPath returns the path of the mapping key named key on line, or of the
// value scalar equal to value on line, or of the first key on line.
func findPath(root *yaml.Node, line int, key, value string) []any {
	var first, hit []any
	var walk func(n *yaml.Node, path []any, depth int)
	walk = func(n *yaml.Node, path []any, depth int) {
		if hit != nil || n == nil || depth > 64 {
			return
		}
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				p := append(append([]any(nil), path...), k.Value)
				if k.Line == line {
					if first == nil {
						first = p
					}
					if (key != "" && k.Value == key) || (value != "" && v.Kind == yaml.ScalarNode && v.Value == value && v.Line == line) {
						hit = p
						return
					}
				}
				walk(v, p, depth+1)
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				walk(c, append(append([]any(nil), path...), i), depth+1)
			}
		}
	}
	walk(docRoot(root), nil, 0)
	if hit != nil {
		return hit
	}
	return first
}

var (
	yamlLineRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`) })
	unknownRe  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^field (\S+) not found in type (\S+)$`) })
	cannotRe   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("^cannot unmarshal !!(\\w+) `(.*)` into (\\S+)$") })
)

// yamlErrors rewrites the decoder's errors so each names its line and field
// in the scenario's own vocabulary rather than Go's.
func yamlErrors(err error, root *yaml.Node) []string {
	var lines []string
	if te, ok := err.(*yaml.TypeError); ok {
		lines = te.Errors
	} else {
		lines = []string{parserLine(strings.TrimPrefix(err.Error(), "yaml: "))}
	}
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		m := yamlLineRe().FindStringSubmatch(l)
		if m == nil {
			out = append(out, l)
			continue
		}
		line, _ := strconv.Atoi(m[1])
		msg, key, value := m[2], "", ""
		if u := unknownRe().FindStringSubmatch(msg); u != nil {
			key = u[1]
			msg = fmt.Sprintf("unknown field %q", u[1])
			if known := fieldSets(Scenario{}, Step{}, Match{}, Reply{}, ToolCall{}, Usage{}, Fault{})[u[2]]; known != "" {
				msg += " (known: " + known + ")"
			}
		} else if c := cannotRe().FindStringSubmatch(msg); c != nil {
			value = c[2]
			msg = fmt.Sprintf("cannot use %q here: want %s", c[2], humanType(c[3]))
		}
		if path := findPath(root, line, key, value); path != nil {
			if key != "" {
				path = path[:len(path)-1]
			}
			out = append(out, fmt.Sprintf("line %d: %s: %s", line, pathString(path), msg))
			continue
		}
		out = append(out, fmt.Sprintf("line %d: %s", line, msg))
	}
	return out
}

var parserErrRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^line (\d+): (did not find expected (?:',' or '\]'|',' or '\}'|'-' indicator|key|node content))$`)
})

// parserLine corrects yaml.v3's line for parser (not scanner) errors: it
// reports the 0-based line where the enclosing block starts.
func parserLine(msg string) string {
	m := parserErrRe().FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	n, _ := strconv.Atoi(m[1])
	return fmt.Sprintf("line %d: %s (in the block starting on this line)", n+1, m[2])
}

func humanType(goType string) string {
	switch strings.TrimPrefix(goType, "*") {
	case "time.Duration":
		return "a duration such as 20ms or 3s"
	case "int":
		return "an integer"
	case "bool":
		return "true or false"
	case "string":
		return "a string"
	case "map[string]string":
		return "a mapping of names to regexps"
	case "[]llmtest.Step":
		return "a list of steps"
	case "[]llmtest.ToolCall":
		return "a list of tool calls"
	}
	if t, ok := strings.CutPrefix(strings.TrimPrefix(goType, "*"), "llmtest."); ok {
		return "a mapping (" + strings.ToLower(t) + ")"
	}
	return goType
}

// fieldSets maps "llmtest.T" to T's YAML field names, for error messages.
func fieldSets(vs ...any) map[string]string {
	m := map[string]string{}
	for _, v := range vs {
		t := reflect.TypeOf(v)
		var names []string
		for i := range t.NumField() {
			name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
			if name != "" && name != "-" {
				names = append(names, name)
			}
		}
		m[t.String()] = strings.Join(names, ", ")
	}
	return m
}
