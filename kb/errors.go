package kb

import (
	"errors"
	"fmt"
	"strings"
)

// Error codes of the mistakes a model can correct. Anything else a tool
// returns is an infrastructure failure.
const (
	CodeInvalidArgument = "invalidArgument"
	CodeNotFound        = "notFound"
	CodeForbidden       = "forbidden"
	CodeConflict        = "conflict"
	CodeVersionConflict = "versionConflict"
)

// ToolError is a mistake in a tool call that the caller can fix: its message
// says what to do next. The MCP layer returns it as an error result.
type ToolError struct {
	Code    string
	Message string
	// CLI, when set, is the same advice in the command line's words:
	// what ForPerson shows instead of Message (a person at `yagent kb`
	// has no get_my_projects to call).
	CLI string
}

// ForPerson is err as the command line shows it: a tool error's advice
// in `yagent kb`'s words where it has them, the rest of the chain's
// context kept.
func ForPerson(err error) string {
	var te *ToolError
	if errors.As(err, &te) && te.CLI != "" {
		return strings.Replace(err.Error(), te.Message, te.CLI, 1)
	}
	return err.Error()
}

// withCLI gives a tool error its advice in the command line's words.
func withCLI(err error, format string, args ...any) error {
	if te, ok := err.(*ToolError); ok {
		te.CLI = fmt.Sprintf(format, args...)
	}
	return err
}

func (e *ToolError) Error() string { return e.Message }

// ErrorCode reports the error's code.
func (e *ToolError) ErrorCode() string { return e.Code }

// ConflictError is returned when a write names a versionToken that is no
// longer the note's current one. Nothing was changed.
type ConflictError struct {
	NoteID       string
	CurrentToken string
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("versionConflict: note %s changed since you read it (current versionToken %s); call get_note, reapply your change to the new text and retry with the new versionToken", e.NoteID, e.CurrentToken)
}

// ErrorCode reports CodeVersionConflict.
func (e *ConflictError) ErrorCode() string { return CodeVersionConflict }

// ErrorCode returns the code of a tool error anywhere in err's chain, or ""
// when err is an infrastructure failure (or nil).
func ErrorCode(err error) string {
	var c interface{ ErrorCode() string }
	if errors.As(err, &c) {
		return c.ErrorCode()
	}
	return ""
}

func invalidf(format string, args ...any) error {
	return &ToolError{Code: CodeInvalidArgument, Message: fmt.Sprintf(format, args...)}
}

func notFoundf(format string, args ...any) error {
	return &ToolError{Code: CodeNotFound, Message: fmt.Sprintf(format, args...)}
}

func forbiddenf(format string, args ...any) error {
	return &ToolError{Code: CodeForbidden, Message: fmt.Sprintf(format, args...)}
}

func conflictf(format string, args ...any) error {
	return &ToolError{Code: CodeConflict, Message: fmt.Sprintf(format, args...)}
}
