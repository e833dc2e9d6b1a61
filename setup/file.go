package setup

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"gopkg.in/yaml.v3"

	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/internal/atomicfile"
)

// modelEntry is what a setup writes under models.default.
type modelEntry struct {
	BaseURL, Model, Provider string
	KeyEnv, KeyFile          string
	Facts                    config.ModelFacts
}

// readConfig reads the person's config.yaml as a YAML document, so that
// writing models.default keeps every other key (and its comments); an
// absent file is an empty document. A file that is no YAML mapping is
// refused: setup never replaces what it cannot read.
func readConfig(file string) (*yaml.Node, error) {
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && len(bytes.TrimSpace(data)) == 0) {
		return &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode}}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s does not parse (%v): setup keeps a file's other keys, so it changes none it cannot read; fix it or move it away, then run yagent setup again", file, err)
	}
	if len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s is not a YAML mapping: fix it or move it away, then run yagent setup again", file)
	}
	if m := child(doc.Content[0], "models"); m != nil && m.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: models is not a mapping: fix it or move it away, then run yagent setup again", file)
	}
	return &doc, nil
}

// writeConfig sets models.default's endpoint, model, key, window and
// price in doc (the entry's other keys and every other section kept) and
// replaces file atomically, keeping its mode (0600 for a new file).
func writeConfig(file string, doc *yaml.Node, e modelEntry) error {
	root := doc.Content[0]
	def := mapping(mapping(root, "models"), "default")
	set(def, "base_url", e.BaseURL)
	set(def, "model", e.Model)
	set(def, "api_key_env", e.KeyEnv)
	if e.KeyFile != "" {
		set(def, "api_key_file", e.KeyFile)
	} else {
		remove(def, "api_key_file")
	}
	if e.Provider != "" {
		set(def, "provider", e.Provider)
	} else {
		remove(def, "provider")
	}
	set(def, "context_window", strconv.Itoa(e.Facts.ContextWindow))
	remove(def, "price")
	if e.Facts.PriceFrom != "" {
		price := mapping(def, "price")
		set(price, "input", strconv.FormatFloat(e.Facts.Price.Input, 'g', -1, 64))
		set(price, "cached_input", strconv.FormatFloat(e.Facts.Price.CachedInput, 'g', -1, 64))
		set(price, "output", strconv.FormatFloat(e.Facts.Price.Output, 'g', -1, 64))
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("write %s: %w", file, err)
	}
	if err := enc.Close(); err != nil {
		return fmt.Errorf("write %s: %w", file, err)
	}
	mode := os.FileMode(0o600)
	if fi, err := os.Stat(file); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return fmt.Errorf("write %s: %w", file, err)
	}
	return atomicfile.WriteFile(file, b.Bytes(), mode)
}

// current says what models.default of doc is ("" when it names no model
// and no base URL).
func current(doc *yaml.Node) string {
	def := child(doc.Content[0], "models")
	if def != nil {
		def = child(def, "default")
	}
	var model, base string
	if def != nil && def.Kind == yaml.MappingNode {
		if n := child(def, "model"); n != nil {
			model = n.Value
		}
		if n := child(def, "base_url"); n != nil {
			base = n.Value
		}
	}
	if model == "" && base == "" {
		return ""
	}
	return fmt.Sprintf("%q at %q", model, base)
}

func child(m *yaml.Node, key string) *yaml.Node {
	if m == nil {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// mapping returns m's mapping under key, made when absent.
func mapping(m *yaml.Node, key string) *yaml.Node {
	if c := child(m, key); c != nil && c.Kind == yaml.MappingNode {
		return c
	}
	remove(m, key)
	c := &yaml.Node{Kind: yaml.MappingNode}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key}, c)
	return c
}

// set gives key the scalar value (a string quoted only where YAML needs).
func set(m *yaml.Node, key, value string) {
	v := &yaml.Node{Kind: yaml.ScalarNode, Value: value}
	if _, err := strconv.ParseFloat(value, 64); err != nil {
		v.Tag = "!!str"
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			v.LineComment = m.Content[i+1].LineComment
			m.Content[i+1] = v
			return
		}
	}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key}, v)
}

func remove(m *yaml.Node, key string) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content = append(m.Content[:i], m.Content[i+2:]...)
			return
		}
	}
}
