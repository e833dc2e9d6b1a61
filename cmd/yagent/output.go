package main

import (
	"encoding/json"
	"io"
)

// writeJSON prints v as indented JSON (the --json output of the
// inspection commands).
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// nonNil makes an empty list print as [] rather than null: every --json
// field is always present.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
