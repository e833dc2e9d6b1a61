package config

import (
	"slices"
	"testing"
)

// TestDSNPasswords pins what a failed connection's error is scrubbed of
// (kb and queue): every password a PostgreSQL address holds, in each form.
func TestDSNPasswords(t *testing.T) {
	for _, tc := range []struct {
		dsn  string
		want []string
	}{
		{"postgres://kb:s3cret@db:5432/team", []string{"s3cret"}},
		{"postgresql://kb@db/team?password=p1&sslpassword=p2", []string{"p1", "p2"}},
		{"postgres://kb:s3cret@[::1", []string{"s3cret"}},
		{"host=db password='s3 cret' sslpassword=k2", []string{"s3 cret", "k2"}},
		{`host=db password='a\'b'`, []string{"a'b"}},
		{"postgres://kb@db/team", nil},
		{"", nil},
	} {
		if got := DSNPasswords(tc.dsn); !slices.Equal(got, tc.want) {
			t.Errorf("DSNPasswords(%q) = %q; want %q", tc.dsn, got, tc.want)
		}
	}
}
