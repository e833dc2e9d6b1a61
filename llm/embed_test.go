package llm_test

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/yagent/yagent/llm/llmtest"
)

func cosine(a, b []float64) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += a[i] * b[i]
		na += a[i] * a[i]
		nb += b[i] * b[i]
	}
	return dot / math.Sqrt(na*nb)
}

func TestEmbeddingsDeterministicAndSimilar(t *testing.T) {
	srv := inlineServer(t, "steps: [{optional: true, reply: {text: unused}}]")
	c := newClient(t, srv.URL(), nil)
	texts := []string{
		"the blackboard stores handoff notes on disk",
		"handoff notes are stored on the blackboard",
		"sqlite write ahead log tuning for concurrency",
	}
	first, err := c.Embed(t.Context(), "embed-small", texts)
	if err != nil {
		t.Fatal(err)
	}
	again, err := c.Embed(t.Context(), "embed-small", texts)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(first, again); diff != "" {
		t.Errorf("embeddings differ between calls (-first +again):\n%s", diff)
	}
	for i, v := range first {
		if len(v) != llmtest.DefaultDims {
			t.Fatalf("vector %d has %d dims; want %d", i, len(v), llmtest.DefaultDims)
		}
		var norm float64
		for _, x := range v {
			norm += x * x
		}
		if math.Abs(norm-1) > 1e-9 {
			t.Errorf("vector %d is not normalised", i)
		}
	}
	similar, unrelated := cosine(first[0], first[1]), cosine(first[0], first[2])
	if similar <= unrelated+0.3 {
		t.Errorf("cosine(similar) = %.3f, cosine(unrelated) = %.3f; want similar texts clearly closer", similar, unrelated)
	}
	if rec := srv.Requests(); len(rec) != 2 || rec[0].Path != "/v1/embeddings" || rec[0].Model != "embed-small" {
		t.Errorf("recorded %+v; want two embeddings requests for embed-small", rec)
	}
}
