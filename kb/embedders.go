package kb

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// OpenAIEmbedder calls an OpenAI-compatible /embeddings endpoint.
type OpenAIEmbedder struct {
	client openai.Client
	model  string
}

var _ Embedder = (*OpenAIEmbedder)(nil)

// NewOpenAIEmbedder talks to baseURL (e.g. "http://localhost:11434/v1"; ""
// for the client's default or OPENAI_BASE_URL) with model. An empty apiKey
// leaves the client's default (OPENAI_API_KEY).
func NewOpenAIEmbedder(baseURL, apiKey, model string) *OpenAIEmbedder {
	opts := []option.RequestOption{option.WithMaxRetries(2)}
	if baseURL != "" {
		opts = append(opts, option.WithBaseURL(baseURL))
	}
	if apiKey != "" {
		opts = append(opts, option.WithAPIKey(apiKey))
	}
	return &OpenAIEmbedder{client: openai.NewClient(opts...), model: model}
}

// Model names the embedding model; vectors from another model are remade.
func (e *OpenAIEmbedder) Model() string { return e.model }

// Embed returns one vector per text, in order.
func (e *OpenAIEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	res, err := e.client.Embeddings.New(ctx, openai.EmbeddingNewParams{
		Input:          openai.EmbeddingNewParamsInputUnion{OfArrayOfStrings: texts},
		Model:          e.model,
		EncodingFormat: openai.EmbeddingNewParamsEncodingFormatFloat,
	})
	if err != nil {
		return nil, fmt.Errorf("embeddings with model %s: %w", e.model, err)
	}
	if len(res.Data) != len(texts) {
		return nil, fmt.Errorf("embeddings with model %s: got %d vectors for %d texts", e.model, len(res.Data), len(texts))
	}
	data := slices.Clone(res.Data)
	slices.SortFunc(data, func(a, b openai.Embedding) int { return int(a.Index - b.Index) })
	out := make([][]float32, len(data))
	for i, d := range data {
		v := make([]float32, len(d.Embedding))
		for j, f := range d.Embedding {
			v[j] = float32(f)
		}
		out[i] = v
	}
	return out, nil
}

// HashEmbedder is a deterministic, offline embedder for tests and
// benchmarks: each word is cut to a crude stem, the stem seeds a
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
