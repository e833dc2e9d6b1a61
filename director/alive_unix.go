//go:build unix

package director

import (
	"errors"
	"syscall"
)

// alive reports whether process pid exists (signal 0; a process of
// another user counts).
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
