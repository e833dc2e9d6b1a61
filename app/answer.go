package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/internal/atomicfile"
)

// Answer is what a headless run does with its final answer besides
// printing it (issue 32 item 4, as `codex exec` does): File
// (--output-last-message, -o) receives the answer; SchemaFile
// (--output-schema) is a JSON Schema the answer must match — the model
// is asked for JSON of that shape, and an answer that does not match
// gets one more turn naming what is wrong, then fails (exit 1).
type Answer struct {
	File       string
	SchemaFile string

	schema *jsonschema.Resolved
	text   string // the schema as given, for the prompt
	// stdout takes the answer that matched the schema (Write): with a
	// schema the printer holds answers back (printer.Human.HoldAnswers),
	// so stdout carries nothing a script's JSON parser would trip on.
	stdout  io.Writer
	matched string
}

// SchemaMismatchError is a final answer that still does not match
// --output-schema after the retry.
type SchemaMismatchError struct {
	File   string
	Reason string
}

func (e *SchemaMismatchError) Error() string {
	return fmt.Sprintf("the answer does not match the schema of %s after one retry: %s; the whole answer is in the session (yagent resume), or loosen the schema", e.File, e.Reason)
}

// Load reads and compiles SchemaFile; an error names the file (a usage
// error: the run never starts). stdout is where Write prints the answer
// that matched the schema.
func (a *Answer) Load(stdout io.Writer) error {
	if a == nil || a.SchemaFile == "" {
		return nil
	}
	a.stdout = stdout
	data, err := os.ReadFile(a.SchemaFile)
	if err != nil {
		return fmt.Errorf("--output-schema %s: %w", a.SchemaFile, err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("--output-schema %s: not a JSON Schema: %v", a.SchemaFile, err)
	}
	if a.schema, err = s.Resolve(nil); err != nil {
		return fmt.Errorf("--output-schema %s: %v", a.SchemaFile, err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, data); err != nil {
		return fmt.Errorf("--output-schema %s: %v", a.SchemaFile, err)
	}
	a.text = compact.String()
	return nil
}

// Prompt is the person's prompt, with the schema asked for when there is
// one.
func (a *Answer) Prompt(p string) string {
	if a == nil || a.schema == nil {
		return p
	}
	return p + "\n\nGive your final answer as one JSON value matching this JSON Schema, and nothing else (no prose, no code fence):\n" + a.text
}

// Turn runs turn on prompt and, with a schema, checks the final answer;
// one that does not match gets one more turn saying why, then is a
// *SchemaMismatchError.
func (a *Answer) Turn(ctx context.Context, prompt string, turn func(context.Context, string) (*agents.Outcome, error)) (*agents.Outcome, error) {
	out, err := turn(ctx, prompt)
	if err != nil || a == nil || a.schema == nil {
		return out, err
	}
	bad := a.check(out.Final)
	if bad == "" {
		a.matched = out.Final
		return out, nil
	}
	out, err = turn(ctx, "Your answer does not match the JSON Schema: "+bad+". Answer again with only the JSON value, matching the schema.")
	if err != nil {
		return out, err
	}
	if bad := a.check(out.Final); bad != "" {
		return out, &SchemaMismatchError{File: a.SchemaFile, Reason: bad}
	}
	a.matched = out.Final
	return out, nil
}

// HoldsAnswers reports whether the printer must hold the turns' answers
// back from stdout: with a schema, Write prints the one that matched.
func (a *Answer) HoldsAnswers() bool { return a != nil && a.SchemaFile != "" }

// check is why answer does not match the schema ("" when it does). A
// single ```json fence around the value is taken off.
func (a *Answer) check(answer string) string {
	s := strings.TrimSpace(answer)
	if body, ok := strings.CutPrefix(s, "```"); ok && strings.HasSuffix(body, "```") {
		body = strings.TrimSuffix(body, "```")
		if nl := strings.IndexByte(body, '\n'); nl >= 0 && !strings.ContainsAny(body[:nl], "{[\"") {
			body = body[nl+1:] // the fence's language tag
		}
		s = strings.TrimSpace(body)
	}
	var v any
	dec := json.NewDecoder(strings.NewReader(s))
	if err := dec.Decode(&v); err != nil {
		return "it is not JSON (" + err.Error() + ")"
	}
	if dec.More() {
		return "it holds more than one JSON value"
	}
	if err := a.schema.Validate(v); err != nil {
		return err.Error()
	}
	return ""
}

// Write puts the final answer into File (atomically, with a newline), when
// there is a file and an answer.
func (a *Answer) Write(out *agents.Outcome) error {
	if a == nil {
		return nil
	}
	if a.matched != "" && a.stdout != nil {
		if _, err := io.WriteString(a.stdout, withNewline(a.matched)); err != nil {
			return fmt.Errorf("print the answer: %w", err)
		}
	}
	if a.File == "" || out == nil || out.Final == "" {
		return nil
	}
	text := withNewline(out.Final)
	if err := atomicfile.WriteFile(a.File, []byte(text), 0o644); err != nil {
		return fmt.Errorf("--output-last-message %s: %w", a.File, err)
	}
	return nil
}

func withNewline(s string) string {
	if !strings.HasSuffix(s, "\n") {
		return s + "\n"
	}
	return s
}
