package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// nodeJSON renders YAML as JSON, keeping mapping key order, and passes every
// string scalar through subst (when not nil).
func nodeJSON(n *yaml.Node, subst func(string) string) (string, error) {
	var b bytes.Buffer
	budget := maxArgNodes
	if err := writeNodeJSON(&b, n, subst, 0, &budget); err != nil {
		return "", err
	}
	return b.String(), nil
}

// maxArgNodes bounds the nodes rendered for one arguments value, so aliases
// that expand exponentially ("billion laughs") fail instead of hanging.
const maxArgNodes = 100_000

func writeNodeJSON(b *bytes.Buffer, n *yaml.Node, subst func(string) string, depth int, budget *int) error {
	if depth > 100 {
		return fmt.Errorf("arguments nest too deeply")
	}
	if *budget--; *budget < 0 {
		return fmt.Errorf("arguments expand to more than %d values (aliases?)", maxArgNodes)
	}
	n = deref(n)
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			b.WriteString("null")
			return nil
		}
		return writeNodeJSON(b, n.Content[0], subst, depth+1, budget)
	case yaml.MappingNode:
		b.WriteByte('{')
		for i := 0; i+1 < len(n.Content); i += 2 {
			if i > 0 {
				b.WriteByte(',')
			}
			k := deref(n.Content[i])
			if k.Kind != yaml.ScalarNode {
				return fmt.Errorf("line %d: argument keys must be scalars", k.Line)
			}
			writeString(b, k.Value, subst)
			b.WriteByte(':')
			if err := writeNodeJSON(b, n.Content[i+1], subst, depth+1, budget); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case yaml.SequenceNode:
		b.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeNodeJSON(b, c, subst, depth+1, budget); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case yaml.ScalarNode:
		writeScalar(b, n, subst)
	default:
		return fmt.Errorf("line %d: unsupported YAML in arguments", n.Line)
	}
	return nil
}

func writeScalar(b *bytes.Buffer, n *yaml.Node, subst func(string) string) {
	switch n.ShortTag() {
	case "!!null":
		b.WriteString("null")
		return
	case "!!bool":
		if v, err := strconv.ParseBool(strings.ToLower(n.Value)); err == nil {
			b.WriteString(strconv.FormatBool(v))
			return
		}
	case "!!int":
		if v, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64); err == nil {
			b.WriteString(strconv.FormatInt(v, 10))
			return
		}
	case "!!float":
		if v, err := strconv.ParseFloat(n.Value, 64); err == nil && !math.IsInf(v, 0) && !math.IsNaN(v) {
			b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
			return
		}
	}
	writeString(b, n.Value, subst)
}

func writeString(b *bytes.Buffer, s string, subst func(string) string) {
	if subst != nil {
		s = subst(s)
	}
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	b.Truncate(b.Len() - 1) // Encode appends a newline
}

// walkScalars calls f with every scalar value under n.
func walkScalars(n *yaml.Node, f func(string)) {
	var walk func(n *yaml.Node, depth int)
	walk = func(n *yaml.Node, depth int) {
		if n == nil || depth > 100 {
			return
		}
		if n.Kind == yaml.ScalarNode {
			f(n.Value)
		}
		for _, c := range n.Content {
			walk(c, depth+1)
		}
	}
	walk(n, 0)
}
