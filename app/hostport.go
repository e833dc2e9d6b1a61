package app

import (
	"net"
	"strings"
)

// HostPort reads an address flag: HOST:PORT, and PORT or :PORT mean
// 127.0.0.1:PORT; typed is the flag as read (trimmed, a bare PORT as
// :PORT).
func HostPort(flag string) (addr, typed string, ok bool) {
	s := strings.TrimSpace(flag)
	if !strings.Contains(s, ":") {
		s = ":" + s
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil || port == "" {
		return "", s, false
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port), s, true
}
