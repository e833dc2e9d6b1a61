package kb

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
)

// HashEmbedder is a deterministic, offline embedder for this package's
// tests and benchmarks: each word is cut to a crude stem, the stem seeds a
// pseudo-random ±1 vector of Dims components, and a text is the normalised
// sum of its words' vectors (random indexing). Texts sharing stems point the
// same way; its "semantics" are only shared word stems. Like real
// embeddings its vectors are dense, so their sign bits approximate cosine.
type HashEmbedder struct {
	Dims int
}

var _ Embedder = HashEmbedder{}

// Model names the embedder and its size.
func (h HashEmbedder) Model() string { return fmt.Sprintf("hash-ri-%d", h.dims()) }

func (h HashEmbedder) dims() int {
	if h.Dims <= 0 {
		return 256
	}
	return h.Dims
}

// Embed never fails.
func (h HashEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, h.dims())
		for _, w := range textWords(t) {
			if stopWords()[w] {
				continue
			}
			f := fnv.New64a()
			f.Write([]byte(crudeStem(w)))
			r := rand.New(rand.NewPCG(f.Sum64(), 0x9e3779b97f4a7c15))
			for j := range v {
				if r.Uint64()&1 == 1 {
					v[j]++
				} else {
					v[j]--
				}
			}
		}
		var norm float64
		for _, x := range v {
			norm += float64(x) * float64(x)
		}
		if norm > 0 {
			n := float32(math.Sqrt(norm))
			for j := range v {
				v[j] /= n
			}
		}
		out[i] = v
	}
	return out, nil
}

// crudeStem: the Russian stem, or the first five letters of other words.
func crudeStem(w string) string {
	if isCyrillic(w) {
		return russianStem(w)
	}
	r := []rune(w)
	if len(r) > 5 {
		return string(r[:5])
	}
	return w
}
