//go:build !linux

package sandbox

import (
	"errors"
	"runtime"
)

// There is no OS sandbox outside Linux: InForce is Off and Describe warns.
const osSupported = false

func probeABI() int { return 0 }

func confineAndExec(*rules, []string) (int, error) {
	return exitCannotConfine, errors.New("no OS sandbox on " + runtime.GOOS)
}
