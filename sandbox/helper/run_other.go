//go:build !linux || !(amd64 || arm64 || riscv64)

package helper

// run refuses: there is no helper on this system (the parent never starts
// one here; see sandbox.Policy.InForce).
func run([]string) int {
	say("this system has no OS sandbox for yagent's helper")
	return exitCannotConfine
}

// Program is nil: no seccomp here.
func Program(Mechanism) []byte { return nil }
