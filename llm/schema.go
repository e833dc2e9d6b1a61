package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// jsonNode is a JSON value that keeps the key order of its objects, so a
// reshaped tool schema is still byte-stable from call to call (the prompt
// cache depends on it).
type jsonNode struct {
	kind   byte // '{', '[', or 0 for a scalar
	keys   []string
	vals   []*jsonNode
	scalar json.RawMessage
}

// parseJSONNode reads one JSON value.
func parseJSONNode(data []byte) (*jsonNode, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	n, err := readNode(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("trailing data after the JSON value")
	}
	return n, nil
}

func readNode(dec *json.Decoder, depth int) (*jsonNode, error) {
	if depth > 200 {
		return nil, errors.New("JSON nests too deeply")
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n := &jsonNode{kind: '{'}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := readNode(dec, depth+1)
				if err != nil {
					return nil, err
				}
				n.keys, n.vals = append(n.keys, k), append(n.vals, v)
			}
			_, err := dec.Token() // '}'
			return n, err
		case '[':
			n := &jsonNode{kind: '['}
			for dec.More() {
				v, err := readNode(dec, depth+1)
				if err != nil {
					return nil, err
				}
				n.vals = append(n.vals, v)
			}
			_, err := dec.Token() // ']'
			return n, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	default:
		raw, err := json.Marshal(t)
		return &jsonNode{scalar: raw}, err
	}
}

func (n *jsonNode) write(b *bytes.Buffer) {
	switch n.kind {
	case '{':
		b.WriteByte('{')
		for i, k := range n.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSONString(b, k)
			b.WriteByte(':')
			n.vals[i].write(b)
		}
		b.WriteByte('}')
	case '[':
		b.WriteByte('[')
		for i, v := range n.vals {
			if i > 0 {
				b.WriteByte(',')
			}
			v.write(b)
		}
		b.WriteByte(']')
	default:
		b.Write(n.scalar)
	}
}

func (n *jsonNode) bytes() []byte {
	var b bytes.Buffer
	n.write(&b)
	return b.Bytes()
}

// str returns a string scalar's value and whether n is one.
func (n *jsonNode) str() (string, bool) {
	var s string
	if n.kind != 0 || json.Unmarshal(n.scalar, &s) != nil {
		return "", false
	}
	return s, true
}

// shapeGeminiSchema rewrites a schema into the subset Gemini's
// OpenAI-compatible endpoint accepts: no additionalProperties anywhere, and
// a type list such as ["null","array"] becomes the one non-null type.
func shapeGeminiSchema(n *jsonNode) {
	switch n.kind {
	case '{':
		keys, vals := n.keys[:0:0], n.vals[:0:0]
		for i, k := range n.keys {
			v := n.vals[i]
			if k == "additionalProperties" {
				continue
			}
			if k == "type" && v.kind == '[' {
				v = singleType(v)
			}
			shapeGeminiSchema(v)
			keys, vals = append(keys, k), append(vals, v)
		}
		n.keys, n.vals = keys, vals
	case '[':
		for _, v := range n.vals {
			shapeGeminiSchema(v)
		}
	}
}

// singleType turns a type list into its first non-null type; a list of
// null alone stays as it is.
func singleType(list *jsonNode) *jsonNode {
	for _, v := range list.vals {
		if s, ok := v.str(); ok && s != "null" {
			return v
		}
	}
	return list
}
