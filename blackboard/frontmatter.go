package blackboard

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/yagent/yagent/internal/yamlstrict"
)

// handoffKeys are the front matter keys Handoff owns; every other key is
// someone else's (a person's tags, aliases, …) and kept in Handoff.Extra.
// "summary" is the legacy v1 conclusion.
var handoffKeys = map[string]bool{
	"version": true, "status": true, "agent": true, "task": true, "conclusion": true, "reason": true,
	"facts": true, "artifacts": true, "created": true, "key": true, "summary": true, "change": true,
	"usage": true, "session": true, "supersedes": true,
}

// Fields are front matter keys kept verbatim: the key and value nodes of a
// YAML mapping in file order. Notes are written with them unchanged, so a
// field a person or another tool added survives.
type Fields struct {
	nodes []*yaml.Node // key, value, key, value, …
}

// Len is the number of fields.
func (f Fields) Len() int { return len(f.nodes) / 2 }

// IsZero reports whether there are no fields (for json omitzero).
func (f Fields) IsZero() bool { return len(f.nodes) == 0 }

// Keys returns the field names in file order.
func (f Fields) Keys() []string {
	out := make([]string, 0, f.Len())
	for i := 0; i+1 < len(f.nodes); i += 2 {
		out = append(out, f.nodes[i].Value)
	}
	return out
}

// Equal reports whether f and g hold the same keys with the same values
// in the same order.
func (f Fields) Equal(g Fields) bool {
	if len(f.nodes) != len(g.nodes) {
		return false
	}
	for i := range f.nodes {
		a, errA := yaml.Marshal(f.nodes[i])
		b, errB := yaml.Marshal(g.nodes[i])
		if errA != nil || errB != nil || !bytes.Equal(a, b) {
			return false
		}
	}
	return true
}

// Get decodes the value of key into v; ok is false when there is no such
// field.
func (f Fields) Get(key string, v any) (ok bool, err error) {
	for i := 0; i+1 < len(f.nodes); i += 2 {
		if f.nodes[i].Value == key {
			return true, f.nodes[i+1].Decode(v)
		}
	}
	return false, nil
}

// MarshalJSON renders the fields as one object; a value JSON cannot hold
// (a mapping with non-string keys) becomes its YAML text.
func (f Fields) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i := 0; i+1 < len(f.nodes); i += 2 {
		if i > 0 {
			buf.WriteByte(',')
		}
		k, _ := json.Marshal(f.nodes[i].Value)
		buf.Write(k)
		buf.WriteByte(':')
		var v any
		var b []byte
		err := f.nodes[i+1].Decode(&v)
		if err == nil {
			b, err = json.Marshal(yamlstrict.JSONValue(v))
		}
		if err != nil {
			text, _ := yaml.Marshal(f.nodes[i+1])
			b, _ = json.Marshal(strings.TrimSpace(string(text)))
		}
		buf.Write(b)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// splitFields separates a front matter mapping into the handoff's own keys
// (returned as a mapping node) and everyone else's.
func splitFields(m *yaml.Node) (own *yaml.Node, extra Fields) {
	own = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Kind == yaml.ScalarNode && handoffKeys[k.Value] {
			own.Content = append(own.Content, k, v)
			continue
		}
		if k.Kind == yaml.ScalarNode && !extraHas(extra, k.Value) {
			extra.nodes = append(extra.nodes, k, v)
		}
	}
	return own, extra
}

func extraHas(f Fields, key string) bool {
	for i := 0; i < len(f.nodes); i += 2 {
		if f.nodes[i].Value == key {
			return true
		}
	}
	return false
}

// encodeFrontMatter renders h and its extra fields as YAML, keeping text as
// UTF-8. yaml.v3 escapes every character beyond U+FFFF (emoji) as
// \UXXXXXXXX and loses some strings of control characters and newlines
// ("\n" alone, "\t\n"), so every string that is not plain one-line text is
// written by quoteYAML instead, through a placeholder the encoder leaves
// alone.
func encodeFrontMatter(h *Handoff) ([]byte, error) {
	var nonce [8]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		return nil, err
	}
	prefix := "yagent-quoted-" + hex.EncodeToString(nonce[:]) + "-"
	var quoted []string
	hold := func(s string) string {
		if plainText(s) {
			return s
		}
		quoted = append(quoted, quoteYAML(s))
		return fmt.Sprintf("%s%dx", prefix, len(quoted)-1)
	}
	holdAll := func(in []string) []string {
		if in == nil {
			return nil
		}
		out := make([]string, len(in))
		for i, s := range in {
			out[i] = hold(s)
		}
		return out
	}
	c := *h
	c.Agent, c.Task, c.Conclusion, c.Reason, c.Key = hold(h.Agent), hold(h.Task), hold(h.Conclusion), hold(h.Reason), hold(h.Key)
	c.Session, c.Supersedes = hold(h.Session), hold(h.Supersedes)
	c.Facts, c.Artifacts = holdAll(h.Facts), holdAll(h.Artifacts)
	if h.Change != nil {
		ch := *h.Change
		ch.Files = holdAll(h.Change.Files)
		c.Change = &ch
	}
	var doc yaml.Node
	if err := doc.Encode(&c); err != nil {
		return nil, err
	}
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" && !plainText(n.Value) {
			n.Value, n.Style = hold(n.Value), 0
		}
		for _, e := range n.Content {
			walk(e)
		}
	}
	for i := 0; i+1 < len(h.Extra.nodes); i += 2 {
		if !handoffKeys[h.Extra.nodes[i].Value] {
			k, v := copyNode(h.Extra.nodes[i]), copyNode(h.Extra.nodes[i+1])
			walk(k)
			walk(v)
			doc.Content = append(doc.Content, k, v)
		}
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	out := buf.Bytes()
	for i, q := range quoted {
		out = bytes.Replace(out, fmt.Appendf(nil, "%s%dx", prefix, i), []byte(q), 1)
	}
	return out, nil
}

func copyNode(n *yaml.Node) *yaml.Node {
	c := *n
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, e := range n.Content {
		c.Content[i] = copyNode(e)
	}
	if n.Alias != nil {
		c.Alias = copyNode(n.Alias)
	}
	return &c
}

// plainText reports whether yaml.v3 writes s faithfully and readably: valid
// UTF-8 on one line, without control characters, line separators, a BOM
// or characters beyond U+FFFF.
func plainText(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7F || r > 0x7F && r < 0xA0 || r == 0x2028 || r == 0x2029 || r == 0xFEFF || r >= 0xFFFE {
			return false
		}
	}
	return true
}

// quoteYAML writes s as a YAML double-quoted scalar on one line, escaping
// only what YAML requires (quotes, backslashes, control and non-printable
// characters) and keeping every other character as UTF-8.
func quoteYAML(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == 0x85:
			b.WriteString(`\N`)
		case r == 0x2028:
			b.WriteString(`\L`)
		case r == 0x2029:
			b.WriteString(`\P`)
		case r < 0x20 || r == 0x7F || r > 0x7F && r < 0xA0:
			fmt.Fprintf(&b, `\x%02X`, r)
		case r >= 0xD800 && r <= 0xDFFF || r == 0xFEFF || r == 0xFFFE || r == 0xFFFF:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
