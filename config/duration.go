package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Duration is a time.Duration written as "90s", "2m", "36h" or "14d"; "0"
// means zero (for ttl: never).
type Duration time.Duration

// ParseDuration parses the forms Duration accepts.
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "0" {
		return 0, nil
	}
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseFloat(days, 64)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("bad duration %q: want e.g. 14d, 36h, 90s or \"0\"", s)
		}
		return time.Duration(n * float64(24*time.Hour)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("bad duration %q: want e.g. 14d, 36h, 90s or \"0\"", s)
	}
	return d, nil
}

// UnmarshalYAML implements yaml.Unmarshaler.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: want a duration such as 14d, 36h or 90s", n.Line)}}
	}
	v, err := ParseDuration(n.Value)
	if err != nil {
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: %v", n.Line, err)}}
	}
	*d = Duration(v)
	return nil
}

// MarshalYAML implements yaml.Marshaler.
func (d Duration) MarshalYAML() (any, error) { return d.String(), nil }

// MarshalText implements encoding.TextMarshaler (for JSON).
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// String prints whole days as "14d", zero as "0", else Go's form.
func (d Duration) String() string {
	td := time.Duration(d)
	switch {
	case td == 0:
		return "0"
	case td%(24*time.Hour) == 0:
		return fmt.Sprintf("%dd", td/(24*time.Hour))
	}
	return td.String()
}

// D returns the value as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }
