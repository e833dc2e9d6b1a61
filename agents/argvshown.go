package agents

import "strings"

// shownArgv is how a question shows a command given as argv: as a shell
// would read it back (each word that is not plain is single-quoted), so
// the person sees where each argument begins and ends — exactly what
// will run. ["sh", "-c", "ls; rm x"] shows as `sh -c 'ls; rm x'`.
func shownArgv(argv []string) string {
	words := make([]string, len(argv))
	for i, w := range argv {
		words[i] = shellQuote(w)
	}
	return strings.Join(words, " ")
}

// shellQuote quotes w for a POSIX shell unless it is plain (letters,
// digits and @%+=:,./_- only), as Python's shlex.quote does.
func shellQuote(w string) string {
	plain := w != "" && strings.IndexFunc(w, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("@%+=:,./_-", r))
	}) < 0
	if plain {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}
