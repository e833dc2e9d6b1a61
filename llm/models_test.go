package llm_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/llm/llmtest"
)

// TestListModels pins what GET /models gives: every model by id, sorted,
// with the window and price (per million tokens) when the answer says
// them, in the shapes providers use.
func TestListModels(t *testing.T) {
	sc, err := llmtest.Parse([]byte("steps: [{optional: true}]"), "models")
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.New(sc, llmtest.WithModels("plain"),
		llmtest.WithModelCards(llmtest.ModelCard{ID: "routed/big", ContextLength: 200000, Prompt: "0.000003", Completion: "0.000015"}))
	defer srv.Close()
	got, err := llm.ListModels(t.Context(), llm.EndpointConfig{BaseURL: srv.URL(), APIKey: "sk-test"})
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.ModelInfo{
		{ID: "plain"},
		{ID: "routed/big", ContextWindow: 200000, Input: 3, Output: 15, HasPrice: true},
	}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 })); diff != "" {
		t.Errorf("ListModels (-want +got):\n%s", diff)
	}

	// The other shapes: Groq's context_window, vLLM's max_model_len,
	// Mistral's max_context_length, Together's price per million, and
	// OpenRouter's "-1" (a price that varies: not known).
	shapes := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"data": [
			{"id": "g", "context_window": 131072},
			{"id": "v", "max_model_len": 32768},
			{"id": "m", "max_context_length": 128000},
			{"id": "t", "context_length": 8192, "pricing": {"input": 0.88, "output": 0.9}},
			{"id": "r", "pricing": {"prompt": "-1", "completion": "-1"}},
			{"object": "no id"}]}`))
	}))
	defer shapes.Close()
	got, err = llm.ListModels(t.Context(), llm.EndpointConfig{BaseURL: shapes.URL + "/v1/"})
	if err != nil {
		t.Fatal(err)
	}
	want = []llm.ModelInfo{
		{ID: "g", ContextWindow: 131072},
		{ID: "m", ContextWindow: 128000},
		{ID: "r"},
		{ID: "t", ContextWindow: 8192, Input: 0.88, Output: 0.9, HasPrice: true},
		{ID: "v", ContextWindow: 32768},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ListModels of the other shapes (-want +got):\n%s", diff)
	}

	// The key goes as a bearer token; a refusal names the URL and never
	// the key.
	refuse := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer sk-secret" {
			http.Error(w, "no key", http.StatusInternalServerError)
			return
		}
		http.Error(w, "bad key sk-secret", http.StatusUnauthorized)
	}))
	defer refuse.Close()
	_, err = llm.ListModels(t.Context(), llm.EndpointConfig{BaseURL: refuse.URL, APIKey: "sk-secret"})
	if err == nil || !strings.Contains(err.Error(), refuse.URL+"/models") || !strings.Contains(err.Error(), "401") || strings.Contains(err.Error(), "sk-secret") {
		t.Errorf("ListModels refused: err = %v; want the URL and 401, no key", err)
	}
}
