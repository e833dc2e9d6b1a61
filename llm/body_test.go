package llm

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestSetArrayIsSet: a body's messages and tools are written without being
// encoded a second time, byte for byte as set writes them: each element
// compacted (a provider's extras may carry white space), nil as null, no
// HTML escaping, a nil slice as null; an element that is not JSON leaves
// the key unset, as set's error did.
func TestSetArrayIsSet(t *testing.T) {
	for _, elems := range [][]json.RawMessage{
		nil,
		{},
		{json.RawMessage(`{"a":1}`)},
		{json.RawMessage(`{ "a" : [1, 2] ,"b":"<&>\u2028"}`), nil, json.RawMessage(`"x"`), json.RawMessage("\n[ ]\t")},
		{json.RawMessage(`{"a":1}`), json.RawMessage(`{"a":`)},
		{json.RawMessage(``)},
	} {
		var want, got object
		_ = want.set("k", elems)
		got.setArray("k", elems)
		w, _ := want.MarshalJSON()
		g, _ := got.MarshalJSON()
		if !bytes.Equal(g, w) {
			t.Errorf("setArray(%q) wrote %s; set writes %s", elems, g, w)
		}
	}
}
