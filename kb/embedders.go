package kb

import (
	"context"
	"fmt"
	"slices"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// OpenAIEmbedder calls an OpenAI-compatible /embeddings endpoint.
type OpenAIEmbedder struct {
	embeddings openai.EmbeddingService
	model      string
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
	// The embeddings service alone, with the defaults openai.NewClient
	// would read from the environment: NewClient builds every service of
	// the API, which keeps the code of all of them in the yagent binary
	// (realtime, assistants, admin…: 0.14 MB of it, 2026-12-01).
	return &OpenAIEmbedder{embeddings: openai.NewEmbeddingService(append(openai.DefaultClientOptions(), opts...)...), model: model}
}

// Model names the embedding model; vectors from another model are remade.
func (e *OpenAIEmbedder) Model() string { return e.model }

// Embed returns one vector per text, in order.
func (e *OpenAIEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	res, err := e.embeddings.New(ctx, openai.EmbeddingNewParams{
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
