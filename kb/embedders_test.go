package kb

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestOpenAIEmbedder(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		var gotModel string
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/v1/embeddings" || r.Header.Get("Authorization") != "Bearer sk-test" {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				w.Write([]byte(`{"error":{"message":"bad key"}}`))
				return
			}
			var req struct {
				Input []string `json:"input"`
				Model string   `json:"model"`
			}
			json.NewDecoder(r.Body).Decode(&req)
			gotModel = req.Model
			w.Header().Set("Content-Type", "application/json")
			// Answer out of order: the embedder must sort by index.
			var data []map[string]any
			for i := len(req.Input) - 1; i >= 0; i-- {
				data = append(data, map[string]any{"object": "embedding", "index": i, "embedding": []float64{float64(i), float64(len(req.Input[i]))}})
			}
			json.NewEncoder(w).Encode(map[string]any{"object": "list", "model": req.Model, "data": data,
				"usage": map[string]int{"prompt_tokens": 1, "total_tokens": 1}})
		}))
		defer srv.Close()

		e := NewOpenAIEmbedder(srv.URL+"/v1", "sk-test", "embed-small")
		vs, err := e.Embed(t.Context(), []string{"a", "bbb"})
		if err != nil {
			t.Fatal(err)
		}
		if gotModel != "embed-small" || len(vs) != 2 || vs[0][0] != 0 || vs[0][1] != 1 || vs[1][0] != 1 || vs[1][1] != 3 {
			t.Errorf("Embed = %v (model %q); want [[0 1] [1 3]] from embed-small", vs, gotModel)
		}
		if e.Model() != "embed-small" {
			t.Errorf("Model() = %q", e.Model())
		}

		bad := NewOpenAIEmbedder(srv.URL+"/v1", "wrong-key", "embed-small")
		if _, err := bad.Embed(t.Context(), []string{"a"}); err == nil || !strings.Contains(err.Error(), "embed-small") {
			t.Errorf("Embed with a rejected key = %v; want an error naming the model", err)
		}
		// Search through a failing endpoint still answers, on full text.
		f := newFixture(t, be, Options{Embedder: bad})
		f.create(t, "acme/web", "# Deploy\n\ndeploy steps")
		out, err := f.s.Search(t.Context(), f.reader, SearchInput{Query: "deploy"})
		if err != nil || out.Mode != "fts" || len(out.Results) != 1 {
			t.Errorf("search with a failing endpoint = %+v, %v; want fts results", out, err)
		}
	})
}
