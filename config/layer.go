package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/yagent/yagent/internal/yamlstrict"
)

// Error is a problem in a configuration file. It names the file, the line
// and the dotted key.
type Error struct {
	File string
	Line int
	Key  string
	Msg  string
}

func (e *Error) Error() string {
	loc := e.File
	if e.Line > 0 {
		loc += ":" + strconv.Itoa(e.Line)
	}
	if e.Key != "" {
		return fmt.Sprintf("%s: %s: %s", loc, e.Key, e.Msg)
	}
	return fmt.Sprintf("%s: %s", loc, e.Msg)
}

// Errors lists every problem found in one file.
type Errors []*Error

func (es Errors) Error() string {
	msgs := make([]string, len(es))
	for i, e := range es {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "\n")
}

// parseLayer validates one file strictly (unknown keys, wrong types) and
// returns its root mapping node, or nil for an empty file.
func parseLayer(file string, data []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, syntaxError(file, err)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, nil
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return nil, nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, &Error{File: file, Line: root.Line, Msg: "the top level must be a mapping of sections (models, blackboard, …)"}
	}
	aliasErrs, aliasLines := checkAliases(file, root)
	// yaml.v3 truncates a float decoded into an integer (2.5 → 2): refused.
	for _, f := range yamlstrict.FloatsInIntegers(root, reflect.TypeFor[Config]()) {
		aliasErrs = append(aliasErrs, &Error{File: file, Line: f.Line, Key: f.Path.String(), Msg: fmt.Sprintf("want an integer, got the number %s", f.Value)})
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var probe Config
	if err := dec.Decode(&probe); err != nil && !errors.Is(err, io.EOF) {
		var te *yaml.TypeError
		if !errors.As(err, &te) {
			return nil, syntaxError(file, err)
		}
		// models.aliases decodes as a model and fails as one; it is
		// checked on its own above.
		te.Errors = slices.DeleteFunc(te.Errors, func(msg string) bool {
			m := lineRe().FindStringSubmatch(msg)
			n := 0
			if m != nil {
				n, _ = strconv.Atoi(m[1])
			}
			return aliasLines[n]
		})
		if len(te.Errors) > 0 {
			errs := typeErrors(file, root, te)
			if es, ok := errs.(Errors); ok {
				return nil, append(es, aliasErrs...)
			}
			return nil, errs
		}
	}
	if len(aliasErrs) > 0 {
		return nil, aliasErrs
	}
	return root, nil
}

// checkAliases checks models.aliases (a mapping of names to model names or
// ids) and returns the lines it covers.
func checkAliases(file string, root *yaml.Node) (Errors, map[int]bool) {
	lines := map[int]bool{}
	aliases := lookup(root, "models", ModelAliasesKey)
	if aliases == nil {
		return nil, lines
	}
	var mark func(n *yaml.Node)
	mark = func(n *yaml.Node) {
		lines[n.Line] = true
		for _, c := range n.Content {
			mark(c)
		}
	}
	mark(aliases)
	if aliases.Kind != yaml.MappingNode {
		return Errors{{File: file, Line: aliases.Line, Key: "models.aliases", Msg: "want a mapping of alias: model (a name under models: or a model id)"}}, lines
	}
	var errs Errors
	for i := 0; i+1 < len(aliases.Content); i += 2 {
		k, v := aliases.Content[i], aliases.Content[i+1]
		if v.Kind != yaml.ScalarNode || v.Tag == "!!null" || strings.TrimSpace(v.Value) == "" {
			errs = append(errs, &Error{File: file, Line: v.Line, Key: "models.aliases." + k.Value, Msg: "want a model: a name under models: or a model id"})
		}
	}
	return errs, lines
}

// takeAliases removes models.aliases from the merged tree and returns it.
func takeAliases(merged *yaml.Node) (map[string]string, error) {
	models := lookup(merged, "models")
	if models == nil || models.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(models.Content); i += 2 {
		if models.Content[i].Value != ModelAliasesKey {
			continue
		}
		var out map[string]string
		if err := models.Content[i+1].Decode(&out); err != nil {
			return nil, fmt.Errorf("models.aliases: %w", err)
		}
		models.Content = slices.Delete(models.Content, i, i+2)
		return out, nil
	}
	return nil, nil
}

var (
	lineRe    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^line (\d+): (.*)$`) })
	unknownRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^field (\S+) not found in type \S+$`) })
	typeRe    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("^cannot unmarshal !!(\\w+) `(.*)` into (\\S+)$") })
)

func syntaxError(file string, err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if m := lineRe().FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &Error{File: file, Line: line, Msg: "YAML syntax: " + m[2]}
	}
	return &Error{File: file, Msg: "YAML syntax: " + msg}
}

func typeErrors(file string, root *yaml.Node, te *yaml.TypeError) error {
	var out Errors
	for _, raw := range te.Errors {
		e := &Error{File: file, Msg: raw}
		if m := lineRe().FindStringSubmatch(raw); m != nil {
			e.Line, _ = strconv.Atoi(m[1])
			e.Msg = m[2]
			if u := unknownRe().FindStringSubmatch(m[2]); u != nil {
				e.Key = keyAt(root, e.Line, u[1])
				e.Msg = "unknown key (see `yagent config show` for the valid ones)"
			} else {
				e.Key = keyAt(root, e.Line, "")
				if t := typeRe().FindStringSubmatch(m[2]); t != nil {
					e.Msg = fmt.Sprintf("want %s, got %s %q", goTypeWord(t[3]), yamlTypeWord(t[1]), t[2])
				}
			}
		}
		out = append(out, e)
	}
	return out
}

// keyAt finds the dotted path of the mapping key on line (named want when
// given) in the tree under n.
func keyAt(n *yaml.Node, line int, want string) string {
	var walk func(n *yaml.Node, path []string) string
	walk = func(n *yaml.Node, path []string) string {
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				p := append(append([]string(nil), path...), k.Value)
				if k.Line == line && (want == "" || k.Value == want) {
					return strings.Join(p, ".")
				}
				if want == "" && v.Line == line && v.Kind == yaml.ScalarNode {
					return strings.Join(p, ".")
				}
				if got := walk(v, p); got != "" {
					return got
				}
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				if c.Kind == yaml.ScalarNode && c.Line == line && want == "" {
					return strings.Join(path, ".") + "[" + strconv.Itoa(i) + "]"
				}
				if got := walk(c, append(append([]string(nil), path...), "["+strconv.Itoa(i)+"]")); got != "" {
					return got
				}
			}
		}
		return ""
	}
	return walk(n, nil)
}

func goTypeWord(t string) string {
	switch {
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"):
		return "an integer"
	case t == "bool":
		return "true or false"
	case t == "string":
		return "a string"
	case strings.HasPrefix(t, "float"):
		return "a number"
	case strings.HasPrefix(t, "[]"):
		return "a list"
	case strings.HasPrefix(t, "map"), strings.HasPrefix(t, "config."):
		return "a mapping"
	}
	return t
}

func yamlTypeWord(t string) string {
	switch t {
	case "str":
		return "the string"
	case "int":
		return "the integer"
	case "bool":
		return "the boolean"
	case "seq":
		return "a list"
	case "map":
		return "a mapping"
	case "float":
		return "the number"
	}
	return t
}

// lookup returns the node at a path of mapping keys, or nil.
func lookup(n *yaml.Node, path ...string) *yaml.Node {
	for _, key := range path {
		if n == nil || n.Kind != yaml.MappingNode {
			return nil
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				next = n.Content[i+1]
			}
		}
		n = next
	}
	return n
}

// mergeNodes merges src over dst: mappings merge key by key, everything
// else (scalars, lists) is replaced.
func mergeNodes(dst, src *yaml.Node) {
	for i := 0; i+1 < len(src.Content); i += 2 {
		k, v := src.Content[i], src.Content[i+1]
		found := false
		for j := 0; j+1 < len(dst.Content); j += 2 {
			if dst.Content[j].Value != k.Value {
				continue
			}
			found = true
			if d := dst.Content[j+1]; d.Kind == yaml.MappingNode && v.Kind == yaml.MappingNode {
				mergeNodes(d, v)
			} else {
				dst.Content[j+1] = v
			}
		}
		if !found {
			dst.Content = append(dst.Content, k, v)
		}
	}
}

// seedModels gives a model that a layer introduces the fields of the
// built-in default model first, so `models: {fast: {model: x}}` still gets a
// context window, timeout and retries.
func seedModels(merged, layer, template *yaml.Node) {
	models := lookup(layer, "models")
	have := lookup(merged, "models")
	if models == nil || have == nil || template == nil || models.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(models.Content); i += 2 {
		if name := models.Content[i].Value; name != ModelAliasesKey && lookup(have, name) == nil {
			have.Content = append(have.Content, models.Content[i], deepCopy(template))
		}
	}
}

func deepCopy(n *yaml.Node) *yaml.Node {
	c := *n
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, child := range n.Content {
		c.Content[i] = deepCopy(child)
	}
	return &c
}
