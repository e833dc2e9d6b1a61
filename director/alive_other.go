//go:build !unix

package director

// alive cannot tell here: the request is written, and the wait for the
// note says when nothing answered it.
func alive(int) bool { return true }
