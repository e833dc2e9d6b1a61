//go:build cgo && linux && (amd64 || arm64 || riscv64)

package helper

// int yagent_nsexec_active(void);
import "C"

// CHelper reports whether this binary's helper is the C one (nsexec.c),
// which takes the process over in a constructor, before Go's runtime
// starts; this package's init then never sees a helper's command line.
func CHelper() bool { return C.yagent_nsexec_active() != 0 }
