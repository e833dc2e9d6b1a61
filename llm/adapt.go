package llm

import (
	"encoding/json"
	"slices"
	"strings"
)

// An endpoint whose provider nobody named and whose base URL reveals none
// (a gateway, a proxy, a local port) is spoken to with the generic profile
// adapted by what its own answers taught the client:
//
//   - the reasoning it streams (reasoning_content or reasoning) goes back
//     on assistant messages in the same field; reasoning_details and a
//     tool call's extra_content, when it sends them, go back verbatim;
//   - a 400 or 422 whose JSON body names stream_options, the order of
//     roles, a missing reasoning_content, the reasoning field sent back
//     or (as Gemini does) a schema keyword it does not know is resent
//     once, at once, with the request changed accordingly.
//
// What was learned is remembered per endpoint (see [Adaptations]), so the
// next request starts adapted.

// Adaptation is what one endpoint taught the client. The zero value is
// the generic profile as it is.
type Adaptation struct {
	// ReasoningField is the field the endpoint streams reasoning in;
	// assistant messages send their reasoning back in it.
	ReasoningField string `json:"reasoning_field,omitempty"`
	// ReasoningAlways sends reasoning_content on every assistant message,
	// empty when there was none: the endpoint refused one without it
	// (DeepSeek's and Kimi's thinking modes).
	ReasoningAlways bool `json:"reasoning_always,omitempty"`
	// NoReasoningBack: the endpoint refused the reasoning field sent back;
	// it is never sent again, whatever the answers stream.
	NoReasoningBack bool `json:"no_reasoning_back,omitempty"`
	// NoStreamOptions: the endpoint refused stream_options (Mistral).
	NoStreamOptions bool `json:"no_stream_options,omitempty"`
	// MergeTail: the endpoint refused the transient tail as a message of
	// its own after a tool or user message (Mistral's role order).
	MergeTail bool `json:"merge_tail,omitempty"`
	// GeminiSchema: the endpoint refused a tool schema the way Gemini
	// does; schemas are shaped as the gemini profile shapes them.
	GeminiSchema bool `json:"gemini_schema,omitempty"`
}

// reasoningFields are the fields an answer's reasoning may stream in and
// go back in, as the assembler reads them.
var reasoningFields = []string{"reasoning_content", "reasoning"}

// valid reports an adaptation a file may hold.
func (a Adaptation) valid() bool {
	return a.ReasoningField == "" || slices.Contains(reasoningFields, a.ReasoningField)
}

// adaptiveProfile is the profile an adapting client starts from: generic,
// keeping the opaque fields some gateways stream and want back unmodified
// (OpenRouter's reasoning_details, Gemini's extra_content with its
// thought_signature). They are only sent back when an answer brought them.
func adaptiveProfile(p Profile) Profile {
	p.KeepMessage = []string{"reasoning_details"}
	p.KeepToolCall = []string{"extra_content"}
	return p
}

// apply returns p as the adaptation changes it.
func (a Adaptation) apply(p Profile) Profile {
	if !a.NoReasoningBack {
		if a.ReasoningField != "" {
			p.ReasoningField = a.ReasoningField
		}
		if a.ReasoningAlways {
			p.ReasoningField, p.ReasoningAlways = "reasoning_content", true
		}
	}
	if a.NoStreamOptions {
		p.Omit = append(slices.Clip(p.Omit), "stream_options")
	}
	if a.MergeTail {
		p.Tail = TailMergeIntoLast
	}
	if a.GeminiSchema {
		p.ShapeSchema = shapeGeminiSchema
	}
	return p
}

// learnReasoning returns a after an answer streamed its reasoning in field
// ("" when it streamed none).
func (a Adaptation) learnReasoning(field string) Adaptation {
	if field != "" && !a.NoReasoningBack && !a.ReasoningAlways {
		a.ReasoningField = field
	}
	return a
}

// sent is what a refused request carried that a refusal may name.
type sent struct {
	streamOptions bool   // the body had stream_options
	tailOwn       bool   // the transient tail went as its own message after a user or tool message
	reasoning     string // the reasoning field assistant messages carried ("" = none)
	assistant     bool   // the request had an assistant message
	schemas       bool   // the request declared tools with schemas as given
}

// sentBy reads what the request req, built under p into body, carried.
func sentBy(req Request, p *Profile, body *object) sent {
	var s sent
	s.streamOptions = body.has("stream_options")
	s.schemas = len(req.Tools) > 0 && p.ShapeSchema == nil
	n := len(req.Messages)
	if n >= 2 && req.Messages[n-1].Transient && p.Tail == TailOwnMessage {
		r := req.Messages[n-2].Role
		s.tailOwn = r == RoleUser || r == RoleTool
	}
	for _, m := range req.Messages {
		if m.Role != RoleAssistant {
			continue
		}
		s.assistant = true
		if p.ReasoningField != "" && (m.Reasoning != "" || p.ReasoningAlways) && !keeps(p, m, "reasoning_details") {
			s.reasoning = p.ReasoningField
		}
	}
	return s
}

// roleOrderRefusals are wordings of a refused order of roles.
var roleOrderRefusals = []string{
	// Mistral: {"message":"Unexpected role 'user' after role 'tool'","type":"invalid_request_message_order","code":"3230"}
	"unexpected role",
	"invalid_request_message_order",
	// Hugging Face chat templates, raised through vLLM, TGI and llama.cpp:
	// "Conversation roles must alternate user/assistant/user/assistant/..."
	"roles must alternate",
}

// learnRefusal returns a after the endpoint refused a request that
// carried s with the error body body (scrubbed). It changes nothing, so
// that nothing is retried, unless body is JSON that names what s carried:
// a web page or a garbage body is never a cue.
func (a Adaptation) learnRefusal(body []byte, s sent) Adaptation {
	if !json.Valid(body) {
		return a
	}
	text := strings.ToLower(string(body))
	if s.streamOptions && strings.Contains(text, "stream_options") {
		a.NoStreamOptions = true
	}
	if s.tailOwn && containsAny(text, roleOrderRefusals) {
		a.MergeTail = true
	}
	// Gemini: [{"error":{"code":400,"message":"Invalid JSON payload
	// received. Unknown name \"additionalProperties\" at
	// 'tools[0].function_declarations[0].parameters': Cannot find field."…
	if s.schemas && strings.Contains(text, "unknown name") && strings.Contains(text, "function_declarations") {
		a.GeminiSchema = true
	}
	// Kimi: "thinking is enabled but reasoning_content is missing in
	// assistant tool call message at index 2"; DeepSeek: "Missing
	// reasoning_content field in the assistant message at message index
	// 2", "The `reasoning_content` in the thinking mode must be passed
	// back to the API."
	wantsReasoning := strings.Contains(text, "reasoning_content") && containsAny(text, []string{"missing", "passed back"})
	switch {
	case wantsReasoning:
		// Once sent always, or refused, a demand changes nothing more.
		if s.assistant && !a.ReasoningAlways && !a.NoReasoningBack {
			a.ReasoningAlways, a.ReasoningField = true, "reasoning_content"
		}
	case s.reasoning != "" && namesField(text, s.reasoning):
		// Groq: "property 'reasoning' is unsupported"; pydantic servers:
		// "loc":[…,"reasoning_content"],"msg":"Extra inputs are not permitted".
		a.NoReasoningBack, a.ReasoningField, a.ReasoningAlways = true, "", false
	}
	return a
}

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// namesField reports whether text names field as a whole word: "reasoning"
// is not named by reasoning_effort or reasoning_content.
func namesField(text, field string) bool {
	word := func(b byte) bool { return b == '_' || b >= 'a' && b <= 'z' || b >= '0' && b <= '9' }
	for i := 0; ; {
		j := strings.Index(text[i:], field)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(field)
		if (start == 0 || !word(text[start-1])) && (end == len(text) || !word(text[end])) {
			return true
		}
		i = start + 1
	}
}
