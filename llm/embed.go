package llm

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// Embed returns one vector per input from the endpoint's /embeddings, in
// input order, with the same retry policy as Stream. Each attempt is bounded
// by the configured timeout as a whole (the answer is not streamed).
func (c *OpenAIClient) Embed(ctx context.Context, model string, inputs []string) ([][]float64, error) {
	if model == "" {
		return nil, errors.New("no embedding model set")
	}
	if len(inputs) == 0 {
		return nil, nil
	}
	params := openai.EmbeddingNewParams{
		Model:          model,
		Input:          openai.EmbeddingNewParamsInputUnion{OfArrayOfStrings: inputs},
		EncodingFormat: openai.EmbeddingNewParamsEncodingFormatFloat,
	}
	var vecs [][]float64
	_, err := c.retry(ctx, func(Event) {}, func(ctx context.Context, n int) (time.Duration, error) {
		actx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		_, stop := c.watchdog(func() { cancel(errIdle) })
		defer stop()
		var out httpOutcome
		res, err := c.embeddings.New(actx, params, option.WithMiddleware(out.middleware))
		if err != nil {
			return c.classify(actx, err, &out, model)
		}
		if len(res.Data) != len(inputs) {
			return 0, fmt.Errorf("embeddings from %s: got %d vectors for %d inputs", c.baseURL, len(res.Data), len(inputs))
		}
		vecs = make([][]float64, len(inputs))
		for _, d := range res.Data {
			if d.Index < 0 || int(d.Index) >= len(inputs) {
				return 0, fmt.Errorf("embeddings from %s: index %d out of range", c.baseURL, d.Index)
			}
			vecs[d.Index] = d.Embedding
		}
		return 0, nil
	})
	if err != nil {
		return nil, fmt.Errorf("embed %d inputs with %s: %w", len(inputs), model, err)
	}
	return vecs, nil
}
