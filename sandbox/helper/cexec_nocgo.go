//go:build !cgo || !linux || !(amd64 || arm64 || riscv64)

package helper

// CHelper reports whether this binary's helper is the C one: not in a
// build without cgo, where this package's init is the helper.
func CHelper() bool { return false }
