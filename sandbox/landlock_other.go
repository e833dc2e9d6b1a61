//go:build !linux

package sandbox

// There is no OS sandbox outside Linux: InForce is Off and Describe warns.
const osSupported = false

func probeABI() int { return 0 }
