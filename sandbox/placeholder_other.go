//go:build !linux

package sandbox

// There are no views outside Linux, hence no placeholders.
func (p *Policy) hold([]string) (func(), error) { return func() {}, nil }

func flushPlaceholders() {}

func ownPlaceholders([]string) []string { return nil }
