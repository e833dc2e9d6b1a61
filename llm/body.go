package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
)

// object is a JSON object that keeps its keys in insertion order, so a
// request body is byte-identical from call to call.
type object struct {
	keys []string
	vals []json.RawMessage
}

// set puts key (replacing it in place when present) with v marshalled.
func (o *object) set(key string, v any) error {
	raw, err := marshal(v)
	if err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	o.setRaw(key, raw)
	return nil
}

func (o *object) setRaw(key string, raw json.RawMessage) {
	if i := slices.Index(o.keys, key); i >= 0 {
		o.vals[i] = raw
		return
	}
	o.keys, o.vals = append(o.keys, key), append(o.vals, raw)
}

func (o *object) has(key string) bool { return slices.Contains(o.keys, key) }

func (o *object) del(key string) {
	if i := slices.Index(o.keys, key); i >= 0 {
		o.keys = slices.Delete(o.keys, i, i+1)
		o.vals = slices.Delete(o.vals, i, i+1)
	}
}

// setArray puts key with the JSON array of elems, written as set would
// write it (each element compacted, nil as null) but without encoding the
// elements a second time: a request's messages and tools are most of its
// bytes, and every copy of them is fresh memory before the first request.
// Like set's callers, it leaves the key unset when an element is not JSON.
func (o *object) setArray(key string, elems []json.RawMessage) {
	if elems == nil {
		o.setRaw(key, json.RawMessage("null"))
		return
	}
	n := 2 + len(elems)
	for _, e := range elems {
		n += max(len(e), len("null"))
	}
	b := bytes.NewBuffer(make([]byte, 0, n))
	b.WriteByte('[')
	for i, e := range elems {
		if i > 0 {
			b.WriteByte(',')
		}
		if e == nil {
			b.WriteString("null")
		} else if json.Compact(b, e) != nil {
			return
		}
	}
	b.WriteByte(']')
	o.setRaw(key, b.Bytes())
}

// MarshalJSON writes the object in key order.
func (o *object) MarshalJSON() ([]byte, error) {
	n := 2
	for i, k := range o.keys {
		n += len(k) + 4 + len(o.vals[i])
	}
	b := bytes.NewBuffer(make([]byte, 0, n))
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		writeJSONString(b, k)
		b.WriteByte(':')
		b.Write(o.vals[i])
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// marshal encodes v compactly without HTML escaping (a prompt full of
// "<" and "&" stays readable and short on the wire).
func marshal(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil // RawMessage comes out compacted
}

func writeJSONString(b *bytes.Buffer, s string) {
	raw, _ := marshal(s)
	b.Write(raw)
}

// bodyOptions are the request-wide knobs both wires share.
type bodyOptions struct {
	extraBody  map[string]any
	dropParams []string
}

// finish applies extra_body (replacing or adding top-level fields), then
// drops the fields the profile (omit) and drop_params name.
func (o bodyOptions) finish(body *object, omit []string) error {
	for _, k := range sortedKeys(o.extraBody) {
		if err := body.set(k, o.extraBody[k]); err != nil {
			return fmt.Errorf("extra_body.%w", err)
		}
	}
	for _, k := range omit {
		body.del(k)
	}
	for _, k := range o.dropParams {
		body.del(k)
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
