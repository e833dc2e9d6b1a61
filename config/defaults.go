package config

import (
	"bytes"
	"fmt"

	"gopkg.in/yaml.v3"
)

// parseDefaults parses the embedded defaults.yaml for Load. Its comments
// are the documentation of every key, and yaml.v3 keeps a comment on every
// node: dropped before parsing, they no longer cost most of the parse (about
// 1 ms of every start). The file is ours, so the known-fields probe that
// user files get is left to TestDefaultsParsedFast, which also checks that
// this gives what the full parse gives.
func parseDefaults() (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(withoutComments(defaultsYAML), &doc); err != nil {
		return nil, fmt.Errorf("built-in defaults: %w", err)
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("built-in defaults: the top level is not a mapping")
	}
	return doc.Content[0], nil
}

// withoutComments drops YAML comments: lines that are only a comment, and
// a "#" after a blank outside quotes to the end of its line.
func withoutComments(data []byte) []byte {
	var out bytes.Buffer
	out.Grow(len(data) / 3)
	for line := range bytes.Lines(data) {
		if t := bytes.TrimSpace(line); len(t) == 0 || t[0] == '#' {
			continue
		}
		out.Write(bytes.TrimRight(line[:commentAt(line)], " \t\r\n"))
		out.WriteByte('\n')
	}
	return out.Bytes()
}

// commentAt is where a line's comment starts (len(line) when it has none).
func commentAt(line []byte) int {
	var quote byte
	for i, c := range line {
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '#' && i > 0 && (line[i-1] == ' ' || line[i-1] == '\t'):
			return i
		}
	}
	return len(line)
}
