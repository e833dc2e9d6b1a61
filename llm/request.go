package llm

import (
	"encoding/json"
	"fmt"
	"net/url"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
)

// emptySchema is sent for a tool declared without parameters.
const emptySchema = `{"type":"object","properties":{}}`

// chatParams converts a Request to the SDK's parameters. The conversion is
// deterministic: the same Request gives the same bytes on the wire, which
// keeps the provider's prompt cache warm.
func (c *OpenAIClient) chatParams(req Request, model string) (openai.ChatCompletionNewParams, error) {
	p := openai.ChatCompletionNewParams{
		Model:         model,
		Messages:      make([]openai.ChatCompletionMessageParamUnion, 0, len(req.Messages)),
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: param.NewOpt(true)},
	}
	for i, m := range req.Messages {
		msg, err := messageParam(m)
		if err != nil {
			return p, fmt.Errorf("message %d: %w", i, err)
		}
		p.Messages = append(p.Messages, msg)
	}
	for _, t := range req.Tools {
		tool, err := toolParam(t)
		if err != nil {
			return p, err
		}
		p.Tools = append(p.Tools, tool)
	}
	if err := setToolChoice(&p, req); err != nil {
		return p, err
	}
	if req.MaxTokens > 0 {
		// OpenAI's reasoning models refuse max_tokens; most local servers
		// only know max_tokens.
		if c.isOpenAI {
			p.MaxCompletionTokens = param.NewOpt(int64(req.MaxTokens))
		} else {
			p.MaxTokens = param.NewOpt(int64(req.MaxTokens))
		}
	}
	if req.Temperature != nil {
		p.Temperature = param.NewOpt(*req.Temperature)
	}
	return p, nil
}

func messageParam(m Message) (openai.ChatCompletionMessageParamUnion, error) {
	switch m.Role {
	case RoleSystem:
		return openai.SystemMessage(m.Content), nil
	case RoleUser:
		return openai.UserMessage(m.Content), nil
	case RoleTool:
		if m.ToolCallID == "" {
			return openai.ChatCompletionMessageParamUnion{}, fmt.Errorf("tool message without tool_call_id")
		}
		return openai.ToolMessage(m.Content, m.ToolCallID), nil
	case RoleAssistant:
		var a openai.ChatCompletionAssistantMessageParam
		if m.Content != "" || len(m.ToolCalls) == 0 {
			a.Content.OfString = param.NewOpt(m.Content)
		}
		for _, tc := range m.ToolCalls {
			a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
					ID: tc.ID,
					Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{
						Name:      tc.Name,
						Arguments: tc.Arguments,
					},
				},
			})
		}
		return openai.ChatCompletionMessageParamUnion{OfAssistant: &a}, nil
	}
	return openai.ChatCompletionMessageParamUnion{}, fmt.Errorf("unknown role %q", m.Role)
}

// toolParam sends the tool as raw JSON so its schema keeps the key order it
// was written with (the SDK's typed parameters are a map and would sort it).
func toolParam(t ToolDef) (openai.ChatCompletionToolUnionParam, error) {
	if t.Name == "" {
		return openai.ChatCompletionToolUnionParam{}, fmt.Errorf("tool without a name")
	}
	schema := t.Parameters
	if len(schema) == 0 {
		schema = json.RawMessage(emptySchema)
	}
	type function struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters"`
	}
	raw, err := json.Marshal(struct {
		Type     string   `json:"type"`
		Function function `json:"function"`
	}{"function", function{t.Name, t.Description, schema}})
	if err != nil {
		return openai.ChatCompletionToolUnionParam{}, fmt.Errorf("tool %s: parameters are not valid JSON: %w", t.Name, err)
	}
	fn := param.Override[openai.ChatCompletionFunctionToolParam](json.RawMessage(raw))
	return openai.ChatCompletionToolUnionParam{OfFunction: &fn}, nil
}

func setToolChoice(p *openai.ChatCompletionNewParams, req Request) error {
	switch req.ToolChoice {
	case "":
		return nil
	case "auto", "none", "required":
		p.ToolChoice.OfAuto = param.NewOpt(req.ToolChoice)
		return nil
	}
	for _, t := range req.Tools {
		if t.Name == req.ToolChoice {
			p.ToolChoice = openai.ToolChoiceOptionFunctionToolChoice(
				openai.ChatCompletionNamedToolChoiceFunctionParam{Name: t.Name})
			return nil
		}
	}
	return fmt.Errorf("tool choice %q: not auto, none, required or a declared tool", req.ToolChoice)
}

// isOpenAIHost reports whether baseURL is OpenAI's own API.
func isOpenAIHost(u *url.URL) bool { return u.Hostname() == "api.openai.com" }
