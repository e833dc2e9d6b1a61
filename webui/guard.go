package webui

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// NewToken returns a fresh access token (256 random bits, hex).
// crypto/rand.Read never fails (it crashes the program rather than return
// predictable bytes), so there is no error to return.
func NewToken() string {
	var b [32]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// IsLoopback reports whether addr (host:port) listens on this machine
// only: localhost, 127.0.0.0/8 or ::1. An empty host (all interfaces) is
// not loopback.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	return isLoopbackName(host)
}

// isLoopbackName reports whether a host name or address is this machine's
// loopback: localhost (and *.localhost, RFC 6761), 127.0.0.0/8, ::1.
func isLoopbackName(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

// hostOnly is the host of a Host header, without port or brackets.
func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return strings.Trim(hostport, "[]")
}

// localAddr is the address a request came in on (zero in handler tests
// without a listener).
func localAddr(r *http.Request) (netip.AddrPort, bool) {
	a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || a == nil {
		return netip.AddrPort{}, false
	}
	ap, err := netip.ParseAddrPort(a.String())
	if err != nil {
		return netip.AddrPort{}, false
	}
	return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port()), true
}

// cookieName carries the port: cookies are not kept apart by port, and two
// servers on one machine must not overwrite each other's.
func cookieName(r *http.Request) string {
	if ap, ok := localAddr(r); ok {
		return fmt.Sprintf("yagent_ui_%d", ap.Port())
	}
	return "yagent_ui"
}

// hostAllowed: a loopback name, the literal address the request came in on
// (an address cannot be rebound, a name can), or a host the caller named.
func (s *Server) hostAllowed(r *http.Request) bool {
	host := strings.ToLower(hostOnly(r.Host))
	if host == "" {
		return false
	}
	if isLoopbackName(host) {
		return true
	}
	for _, h := range s.o.Hosts {
		if strings.EqualFold(h, host) {
			return true
		}
	}
	ip, err := netip.ParseAddr(host)
	ap, ok := localAddr(r)
	return err == nil && ok && ip.Unmap() == ap.Addr()
}

// guard is the door of every page: security headers, GET/HEAD only, the
// Host and Origin checks, then the token (from the URL once, which sets
// the cookie and redirects) or the cookie.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Cache-Control", "no-store")
		if !s.hostAllowed(r) {
			s.refuse(w, http.StatusForbidden, fmt.Sprintf("Host %q is not this machine (DNS-rebinding guard). Open the address yagent ui printed.", r.Host))
			return
		}
		if o := r.Header.Get("Origin"); o != "" && o != "http://"+r.Host {
			s.refuse(w, http.StatusForbidden, fmt.Sprintf("Origin %q may not read this page (DNS-rebinding guard).", o))
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			s.refuse(w, http.StatusMethodNotAllowed, "This view is read-only: only GET and HEAD are answered.")
			return
		}
		q := r.URL.Query()
		if tok := q.Get("token"); tok != "" {
			if !s.tokenOK(tok) {
				s.refuse(w, http.StatusForbidden, "The token in this address is not this server's: open the address yagent ui printed when it started.")
				return
			}
			// Lax, not Strict: Strict drops the cookie on the redirect below
			// when the address was clicked in a web page (a chat, an
			// issue), and the view answers only GET, so a cross-site
			// navigation that carries the cookie can change nothing (and
			// cannot read the page).
			http.SetCookie(w, &http.Cookie{Name: cookieName(r), Value: s.o.Token, Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode})
			q.Del("token")
			u := *r.URL
			u.RawQuery = q.Encode()
			// The token leaves the address bar and the history at once.
			http.Redirect(w, r, u.RequestURI(), http.StatusSeeOther)
			return
		}
		if c, err := r.Cookie(cookieName(r)); err != nil || !s.tokenOK(c.Value) {
			s.refuse(w, http.StatusUnauthorized, "Open the address yagent ui printed when it started (it carries ?token=…); this browser has no access yet.")
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) tokenOK(tok string) bool {
	return s.o.Token != "" && subtle.ConstantTimeCompare([]byte(tok), []byte(s.o.Token)) == 1
}
