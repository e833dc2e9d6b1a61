package shellquote

import "testing"

func TestJoin(t *testing.T) {
	for _, c := range []struct {
		words []string
		want  string
	}{
		{[]string{"go", "test", "./..."}, "go test ./..."},
		{[]string{"sh", "-c", "ls; rm x"}, "sh -c 'ls; rm x'"},
		{[]string{"echo", "it's", "", "a.go"}, `echo 'it'\''s' '' a.go`},
		{[]string{"a b", "$HOME", "*.go", "x\ny"}, "'a b' '$HOME' '*.go' 'x\ny'"},
		{[]string{"--opt=a,b:c@d%e+f"}, "--opt=a,b:c@d%e+f"},
		{nil, ""},
	} {
		if got := Join(c.words...); got != c.want {
			t.Errorf("Join(%q) = %q; want %q", c.words, got, c.want)
		}
	}
}
