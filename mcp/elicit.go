package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yagent/yagent/agents"
)

// elicitSchema is the part of an elicitation's requestedSchema yagent
// asks: a flat object of strings, numbers, integers, booleans and enums.
type elicitSchema struct {
	Properties map[string]elicitField `json:"properties"`
	Required   []string               `json:"required"`
}

type elicitField struct {
	Type        string   `json:"type"`
	Title       string   `json:"title"`
	Description string   `json:"description"`
	Enum        []string `json:"enum"`
	OneOf       []struct {
		Const string `json:"const"`
		Title string `json:"title"`
	} `json:"oneOf"`
	Default any `json:"default"`
}

// setAsker keeps the asker elicitations go to: the session's (nil
// headless). The latest session that asked for tools wins.
func (s *Servers) setAsker(ask agents.Asker) {
	s.askMu.Lock()
	s.ask = ask
	s.askMu.Unlock()
}

func (s *Servers) asker() agents.Asker {
	s.askMu.Lock()
	defer s.askMu.Unlock()
	return s.ask
}

var (
	declined = &sdk.ElicitResult{Action: "decline"}
	canceled = &sdk.ElicitResult{Action: "cancel"}
)

// elicit answers server's elicitation/create: the message as a question
// to the person (the approval asker: the plain prompt or the TUI's
// modal), then the requested fields one by one — booleans as yes/no,
// enums one choice at a time unless the asker takes text, strings and
// numbers as a line (LineAsker). Headless, or a field the asker cannot
// take, is a decline; a URL-mode request is declined.
func (s *Servers) elicit(server string) func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
	return func(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		p := req.Params
		ask := s.asker()
		if ask == nil {
			s.notify(fmt.Sprintf("mcp server %s asked a question (%s); declined: nobody can answer it here (no terminal)", server, oneLine(p.Message)))
			return declined, nil
		}
		if p.Mode == "url" {
			s.notify(fmt.Sprintf("mcp server %s asked to open %s; declined: yagent does not open pages for servers", server, p.URL))
			return declined, nil
		}
		var schema elicitSchema
		if p.RequestedSchema != nil {
			b, err := json.Marshal(p.RequestedSchema)
			if err != nil || json.Unmarshal(b, &schema) != nil {
				return declined, nil
			}
		}
		names := slices.Sorted(maps.Keys(schema.Properties))
		var fields []string
		for _, n := range names {
			fields = append(fields, fieldLabel(n, schema.Properties[n]))
		}
		var line agents.LineAsker
		if agents.TakesLines(ask) {
			line, _ = ask.(agents.LineAsker)
		}
		for _, n := range names { // decline before asking what cannot be answered here
			if f := schema.Properties[n]; line == nil && f.Type != "boolean" && len(f.Enum) == 0 && len(f.OneOf) == 0 {
				s.notify(fmt.Sprintf("mcp server %s asked a question (%s); declined: %s needs typed text and this prompt takes none (the plain chat does)", server, oneLine(p.Message), n))
				return declined, nil
			}
		}
		a, err := ask.Ask(ctx, agents.Question{Action: fmt.Sprintf("mcp server %s asks: %s", server, p.Message), Args: strings.Join(fields, "\n")})
		if err != nil {
			return canceled, nil
		}
		if a == agents.Deny {
			return declined, nil
		}
		content := map[string]any{}
		for _, n := range names {
			v, ok, err := askField(ctx, ask, line, n, schema.Properties[n], slices.Contains(schema.Required, n))
			if errors.Is(err, agents.ErrNoLine) { // a wrapper over an asker without lines (the TUI's)
				line = nil
				v, ok, err = askField(ctx, ask, nil, n, schema.Properties[n], slices.Contains(schema.Required, n))
			}
			if err != nil {
				s.notify(fmt.Sprintf("mcp server %s's question declined: %v", server, err))
				return declined, nil
			}
			if ok {
				content[n] = v
			}
		}
		return &sdk.ElicitResult{Action: "accept", Content: content}, nil
	}
}

func (s *Servers) notify(msg string) {
	if s.opts.Notify != nil {
		s.opts.Notify(msg)
	}
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}

func fieldLabel(name string, f elicitField) string {
	l := name
	if f.Title != "" {
		l = f.Title
	}
	if f.Description != "" {
		l += " — " + f.Description
	}
	return l
}

// choices are an enum field's values and how each is shown.
func (f elicitField) choices() (values, titles []string) {
	if len(f.Enum) > 0 {
		return f.Enum, f.Enum
	}
	for _, o := range f.OneOf {
		t := o.Title
		if t == "" {
			t = o.Const
		}
		values, titles = append(values, o.Const), append(titles, t)
	}
	return values, titles
}

// askField asks one field; ok false leaves an optional field out.
func askField(ctx context.Context, ask agents.Asker, line agents.LineAsker, name string, f elicitField, required bool) (v any, ok bool, err error) {
	label := fieldLabel(name, f)
	values, titles := f.choices()
	switch {
	case f.Type == "boolean":
		a, err := ask.Ask(ctx, agents.Question{Action: label + "?"})
		return a != agents.Deny, true, err
	case len(values) > 0 && line == nil:
		for i, v := range values {
			a, err := ask.Ask(ctx, agents.Question{Action: fmt.Sprintf("%s: %s?", label, titles[i])})
			if err != nil {
				return nil, false, err
			}
			if a != agents.Deny {
				return v, true, nil
			}
		}
		if required {
			return nil, false, fmt.Errorf("no choice for %s", name)
		}
		return nil, false, nil
	case line == nil:
		return nil, false, fmt.Errorf("%s needs typed text and this prompt takes none", name)
	}
	prompt := label
	if len(values) > 0 {
		var opts []string
		for i, t := range titles {
			opts = append(opts, fmt.Sprintf("%d) %s", i+1, t))
		}
		prompt += " [" + strings.Join(opts, ", ") + "]"
	}
	if f.Default != nil {
		prompt += fmt.Sprintf(" (default %v)", f.Default)
	}
	for range 3 {
		s, err := line.AskLine(ctx, prompt)
		if err != nil {
			return nil, false, err
		}
		if s == "" {
			if f.Default != nil || !required {
				return nil, false, nil // the server's default applies
			}
			continue
		}
		if len(values) > 0 {
			if i, err := strconv.Atoi(s); err == nil && i >= 1 && i <= len(values) {
				return values[i-1], true, nil
			}
			if slices.Contains(values, s) {
				return s, true, nil
			}
			continue
		}
		switch f.Type {
		case "integer":
			if n, err := strconv.ParseInt(s, 10, 64); err == nil {
				return n, true, nil
			}
		case "number":
			if n, err := strconv.ParseFloat(s, 64); err == nil {
				return n, true, nil
			}
		default:
			return s, true, nil
		}
	}
	return nil, false, fmt.Errorf("no valid answer for %s", name)
}
