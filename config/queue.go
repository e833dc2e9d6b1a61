package config

import (
	"encoding/json"
	"net/url"
	"regexp"
	"strings"
	"sync"
)

// Queue configures distributed batches (`yagent batch --queue`, `yagent
// worker`): River jobs on PostgreSQL.
type Queue struct {
	// DSN is the database; "" runs batches in-process.
	DSN         string   `yaml:"dsn" json:"dsn"`
	RescueAfter Duration `yaml:"rescue_after" json:"rescue_after"`
	MaxAttempts int      `yaml:"max_attempts" json:"max_attempts"`
	Concurrency int      `yaml:"concurrency" json:"concurrency"`
	// Lease is how long a batch's coordinator owns its plan run without
	// renewing it (in-process batches too).
	Lease Duration `yaml:"lease" json:"lease"`
	// WorkerTimeout is how long a worker may miss its heartbeats before
	// its running jobs are handed to another worker (below RescueAfter).
	WorkerTimeout Duration `yaml:"worker_timeout" json:"worker_timeout"`
}

// MarshalYAML masks the DSN's password: `config show` never prints it.
func (q Queue) MarshalYAML() (any, error) {
	type plain Queue
	p := plain(q)
	p.DSN = MaskDSN(q.DSN)
	return p, nil
}

// MarshalJSON masks the DSN's password as MarshalYAML does.
func (q Queue) MarshalJSON() ([]byte, error) {
	type plain Queue
	p := plain(q)
	p.DSN = MaskDSN(q.DSN)
	return json.Marshal(p)
}

var kvPassword = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)(password\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)`) })

// MaskDSN returns a PostgreSQL address with its password replaced by
// xxxxx, in either form PostgreSQL accepts (URL or key=value).
func MaskDSN(dsn string) string {
	if u, err := url.Parse(dsn); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		if q := u.Query(); q.Has("password") || q.Has("sslpassword") {
			for _, k := range []string{"password", "sslpassword"} {
				if q.Has(k) {
					q.Set(k, "xxxxx")
				}
			}
			u.RawQuery = q.Encode()
		}
		return u.Redacted()
	}
	if scheme, rest, ok := strings.Cut(dsn, "://"); ok {
		// A URL that does not parse: keep what follows the last @.
		if at := strings.LastIndex(rest, "@"); at >= 0 {
			rest = "xxxxx@" + rest[at+1:]
		}
		return scheme + "://" + rest
	}
	return kvPassword().ReplaceAllString(dsn, "${1}xxxxx")
}
