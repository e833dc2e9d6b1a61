package config

import (
	"net/url"
	"strings"
)

// DSNPasswords returns the passwords a PostgreSQL address holds, in
// either form PostgreSQL accepts: a URL's user password and its password
// and sslpassword parameters, or key=value pairs (quoted or not). An error
// built from a failed connection is scrubbed of them; MaskDSN is how the
// address itself is shown.
func DSNPasswords(dsn string) []string {
	var out []string
	if u, err := url.Parse(dsn); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		if pw, ok := u.User.Password(); ok {
			out = append(out, pw)
		}
		q := u.Query()
		return append(append(out, q["password"]...), q["sslpassword"]...)
	}
	if scheme, rest, ok := strings.Cut(dsn, "://"); ok && scheme != "" {
		// A URL that does not parse: what lies between the first : and the
		// last @ of its authority.
		if at := strings.LastIndex(rest, "@"); at >= 0 {
			if _, pw, ok := strings.Cut(rest[:at], ":"); ok {
				out = append(out, pw)
			}
		}
		return out
	}
	for _, m := range kvPassword().FindAllStringSubmatch(dsn, -1) {
		out = append(out, strings.ReplaceAll(strings.Trim(m[2], "'"), `\'`, "'"))
	}
	return out
}
