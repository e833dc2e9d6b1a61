package config

import (
	"encoding/json"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestMaskDSN: a queue address shown to a person (config show, errors)
// never carries its password, in either form PostgreSQL accepts.
func TestMaskDSN(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"postgres://yagent:s3cret@db.internal:5432/yagent", "postgres://yagent:xxxxx@db.internal:5432/yagent"},
		{"postgresql://yagent@db/yagent?sslmode=require", "postgresql://yagent@db/yagent?sslmode=require"},
		{"postgres://db/yagent?user=y&password=s3cret", "postgres://db/yagent?password=xxxxx&user=y"},
		{"postgres://db/yagent?sslpassword=s3cret", "postgres://db/yagent?sslpassword=xxxxx"},
		{"host=db sslpassword=s3cret", "host=db sslpassword=xxxxx"},
		{"host=db user=yagent password=s3cret dbname=yagent", "host=db user=yagent password=xxxxx dbname=yagent"},
		{"host=db password='s3 cret' dbname=yagent", "host=db password=xxxxx dbname=yagent"},
		{"postgres://yagent:s3cret@[::1", "postgres://xxxxx@[::1"},
		{"", ""},
	} {
		if got := MaskDSN(tc.in); got != tc.want {
			t.Errorf("MaskDSN(%q) = %q; want %q", tc.in, got, tc.want)
		}
	}
	q := Queue{DSN: "postgres://yagent:s3cret@db/yagent"}
	y, _ := yaml.Marshal(q)
	j, _ := json.Marshal(q)
	for _, out := range []string{string(y), string(j)} {
		if strings.Contains(out, "s3cret") || !strings.Contains(out, "xxxxx") {
			t.Errorf("config show prints %q; want the password masked", out)
		}
	}
}
