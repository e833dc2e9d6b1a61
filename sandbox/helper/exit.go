package helper

// Exit codes of a helper that could not run the command (as a shell's).
const (
	exitCannotConfine = 126
	exitNotFound      = 127
)
