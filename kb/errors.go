package kb

import (
	"errors"
	"fmt"
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
