package llmtest

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"net/http"
	"strings"
	"unicode"
)

// DefaultDims is the size of the vectors /v1/embeddings returns unless the
// request asks for dimensions.
const DefaultDims = 256

// HashEmbedding is the deterministic vector the server returns for text: a
// signed hashed bag of lower-cased words, L2-normalised. Texts sharing words
// are close; texts sharing none are near orthogonal. Empty text gives the
// zero vector.
func HashEmbedding(text string, dims int) []float64 {
	v := make([]float64, dims)
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		h := fnv.New64a()
		h.Write([]byte(w))
		sum := h.Sum64()
		sign := 1.0
		if sum>>63 == 1 {
			sign = -1
		}
		v[sum%uint64(dims)] += sign
	}
	var norm float64
	for _, x := range v {
		norm += x * x
	}
	if norm > 0 {
		norm = math.Sqrt(norm)
		for i := range v {
			v[i] /= norm
		}
	}
	return v
}

func (s *Server) handleEmbeddings(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 64<<20))
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "bad_body", "llmtest: read request body: "+err.Error())
		return
	}
	var req struct {
		Model          string          `json:"model"`
		Input          json.RawMessage `json:"input"`
		Dimensions     int             `json:"dimensions"`
		EncodingFormat string          `json:"encoding_format"`
	}
	var inputs []string
	if err := json.Unmarshal(body, &req); err == nil {
		inputs, err = embeddingInputs(req.Input)
		if err != nil {
			writeError(w, http.StatusBadRequest, "invalid_request_error", "bad_input", "llmtest: "+err.Error())
			return
		}
	} else {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "bad_json", "llmtest: request body is not an embeddings request: "+err.Error())
		return
	}
	dims := req.Dimensions
	if dims <= 0 || dims > 4096 {
		dims = DefaultDims
	}
	s.mu.Lock()
	s.reqs = append(s.reqs, Recorded{
		N: len(s.reqs) + 1, Path: r.URL.Path, Body: body, Time: s.opts.now(), Model: req.Model, Status: http.StatusOK,
		Header: r.Header.Clone(),
	})
	s.mu.Unlock()

	type item struct {
		Object    string `json:"object"`
		Index     int    `json:"index"`
		Embedding any    `json:"embedding"`
	}
	resp := struct {
		Object string `json:"object"`
		Data   []item `json:"data"`
		Model  string `json:"model"`
		Usage  struct {
			PromptTokens int `json:"prompt_tokens"`
			TotalTokens  int `json:"total_tokens"`
		} `json:"usage"`
	}{Object: "list", Model: req.Model, Data: []item{}}
	for i, text := range inputs {
		vec := HashEmbedding(text, dims)
		var enc any = vec
		if req.EncodingFormat == "base64" {
			enc = base64Floats(vec)
		}
		resp.Data = append(resp.Data, item{Object: "embedding", Index: i, Embedding: enc})
		resp.Usage.PromptTokens += (len(text) + 3) / 4
	}
	resp.Usage.TotalTokens = resp.Usage.PromptTokens
	writeJSON(w, http.StatusOK, resp)
}

func embeddingInputs(raw json.RawMessage) ([]string, error) {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}, nil
	}
	var many []string
	if json.Unmarshal(raw, &many) == nil {
		return many, nil
	}
	return nil, fmt.Errorf("input must be a string or a list of strings (token arrays are not supported)")
}

// base64Floats encodes little-endian float32s, OpenAI's base64 format.
func base64Floats(v []float64) string {
	var b bytes.Buffer
	for _, x := range v {
		_ = binary.Write(&b, binary.LittleEndian, float32(x))
	}
	return base64.StdEncoding.EncodeToString(b.Bytes())
}

func (s *Server) handleModels(w http.ResponseWriter, r *http.Request) {
	names := s.opts.models
	if len(names) == 0 && len(s.opts.cards) == 0 {
		names = []string{"llmtest"}
	}
	type pricing struct {
		Prompt     string `json:"prompt"`
		Completion string `json:"completion"`
	}
	type model struct {
		ID            string   `json:"id"`
		Object        string   `json:"object"`
		Created       int64    `json:"created"`
		OwnedBy       string   `json:"owned_by"`
		ContextLength int      `json:"context_length,omitempty"`
		Pricing       *pricing `json:"pricing,omitempty"`
	}
	resp := struct {
		Object string  `json:"object"`
		Data   []model `json:"data"`
	}{Object: "list"}
	for _, n := range names {
		resp.Data = append(resp.Data, model{ID: n, Object: "model", OwnedBy: "llmtest"})
	}
	for _, c := range s.opts.cards {
		m := model{ID: c.ID, Object: "model", OwnedBy: "llmtest", ContextLength: c.ContextLength}
		if c.Prompt != "" || c.Completion != "" {
			m.Pricing = &pricing{c.Prompt, c.Completion}
		}
		resp.Data = append(resp.Data, m)
	}
	writeJSON(w, http.StatusOK, resp)
}
