package kb

import (
	"testing"
)

func TestSmoke(t *testing.T) {
	f := newFixture(t, Options{})
	a := f.create(t, "acme/web", "# Deploy guide\n\nWe deploy the service with [[Runbook]] and kubectl.")
	n := f.get(t, a.ID)
	t.Logf("%+v", n)
	out, err := f.s.Search(t.Context(), f.agent, SearchInput{Query: "how do we deploy the service?"})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", out)
}
