package config

import (
	"encoding/json"
	"maps"
	"net/url"
	"regexp"
	"strings"
	"sync"
)

// What `config show` (YAML and JSON) prints is masked where a value may be
// a secret: every DSN's and URL's password, every header value other than
// a "${VAR}" reference, and mcp_servers env values whose name or shape
// says secret. A masked value reads "xxxxx", so the output still says it
// is set; an empty one stays empty. The types marshal masked, so no printer
// can forget; nothing reads a configuration back from this output.

// masked replaces a secret that is set.
const masked = "xxxxx"

// MaskURL hides the password of a URL (user:password@, or a password
// query parameter); anything else is returned as is.
func MaskURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		if strings.Contains(s, "@") && strings.Contains(s, "://") {
			return MaskDSN(s)
		}
		return s
	}
	_, hasPassword := u.User.Password()
	q := u.Query()
	if !hasPassword && !q.Has("password") {
		return s
	}
	if q.Has("password") {
		q.Set("password", masked)
		u.RawQuery = q.Encode()
	}
	return u.Redacted()
}

// maskHeaders masks every header value but a "${VAR}" reference (the
// variable's name is not the secret).
func maskHeaders(h map[string]string) map[string]string {
	if h == nil {
		return nil
	}
	out := maps.Clone(h)
	for k, v := range out {
		if v != "" && !envRef().MatchString(v) {
			out[k] = masked
		}
	}
	return out
}

var (
	envRef     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\$\{[A-Za-z_][A-Za-z0-9_]*\}$`) })
	secretName = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)key|token|secret|pass|pwd|auth|credential|private|cookie|session|signature`)
	})
	secretPrefix = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(sk-|sk_|rk_|pk_live|gh[pousr]_|github_pat_|glpat-|xox[abposr]-|AKIA|ASIA|AIza|ya29\.|eyJ|Bearer |Basic )`)
	})
	longMixed = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_+/=.-]{32,}$`) })
)

// secretLooking reports an environment entry that may hold a secret: by
// its name (…_KEY, …_TOKEN, PASSWORD…) or its value (a known token
// prefix, a URL with a password, a long string of letters and digits).
func secretLooking(name, value string) bool {
	if value == "" || envRef().MatchString(value) {
		return false
	}
	return secretName().MatchString(name) || secretPrefix().MatchString(value) || MaskURL(value) != value ||
		longMixed().MatchString(value) && strings.ContainsAny(value, "0123456789") && strings.ToLower(value) != value && strings.ToUpper(value) != value
}

// MarshalYAML masks the DSN's password: `config show` never prints it.
func (k KB) MarshalYAML() (any, error) {
	type plain KB
	p := plain(k)
	p.DSN = MaskDSN(k.DSN)
	return p, nil
}

// MarshalJSON masks the DSN's password as MarshalYAML does.
func (k KB) MarshalJSON() ([]byte, error) {
	type plain KB
	p := plain(k)
	p.DSN = MaskDSN(k.DSN)
	return json.Marshal(p)
}

func (m Model) masked() any {
	type plain Model
	p := plain(m)
	p.BaseURL = MaskURL(m.BaseURL)
	p.ExtraHeaders = maskHeaders(m.ExtraHeaders)
	return p
}

// MarshalYAML masks header values and a password in base_url.
func (m Model) MarshalYAML() (any, error) { return m.masked(), nil }

// MarshalJSON masks as MarshalYAML does.
func (m Model) MarshalJSON() ([]byte, error) { return json.Marshal(m.masked()) }

func (t Telemetry) masked() any {
	type plain Telemetry
	p := plain(t)
	p.Endpoint = MaskURL(t.Endpoint)
	p.Headers = maskHeaders(t.Headers)
	return p
}

// MarshalYAML masks header values and a password in the endpoint.
func (t Telemetry) MarshalYAML() (any, error) { return t.masked(), nil }

// MarshalJSON masks as MarshalYAML does.
func (t Telemetry) MarshalJSON() ([]byte, error) { return json.Marshal(t.masked()) }

func (s MCPServer) masked() any {
	type plain MCPServer
	p := plain(s)
	p.URL = MaskURL(s.URL)
	if s.Env != nil {
		p.Env = maps.Clone(s.Env)
		for k, v := range p.Env {
			if secretLooking(k, v) {
				p.Env[k] = masked
			}
		}
	}
	return p
}

// MarshalYAML masks env values that look like secrets and a password in
// the URL.
func (s MCPServer) MarshalYAML() (any, error) { return s.masked(), nil }

// MarshalJSON masks as MarshalYAML does.
func (s MCPServer) MarshalJSON() ([]byte, error) { return json.Marshal(s.masked()) }
