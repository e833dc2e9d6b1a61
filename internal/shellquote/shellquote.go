// Package shellquote writes a command given as argv the way a POSIX shell
// reads it back, so a person (an approval question) or a script (a hook
// reading tool_input.command) sees where each argument begins and ends.
package shellquote

import "strings"

// Join quotes each word that is not plain and joins them with spaces:
// ["sh", "-c", "ls; rm x"] is `sh -c 'ls; rm x'`.
func Join(words ...string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = Quote(w)
	}
	return strings.Join(quoted, " ")
}

// Quote quotes w for a POSIX shell unless it is plain (letters, digits and
// @%+=:,./_- only), as Python's shlex.quote does.
func Quote(w string) string {
	plain := w != "" && strings.IndexFunc(w, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("@%+=:,./_-", r))
	}) < 0
	if plain {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}
