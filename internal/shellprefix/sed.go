package shellprefix

import "strings"

// sedCommand: GNU sed runs a shell command with its e command and the e
// flag of s (`sed 's/x/y/e'`, `sed -e '1e id'`); a script read from a file
// (-f) cannot be seen here.
func sedCommand(name string, args []string) string {
	var scripts []string
	explicit, operands, ended := false, 0, false
	for i := 0; i < len(args); i++ {
		w := args[i]
		next := func() string {
			i++
			if i < len(args) {
				return args[i]
			}
			return ""
		}
		switch {
		case w == "--" && !ended:
			ended = true
		case ended || w == "-" || !strings.HasPrefix(w, "-"):
			operands++
			if !explicit && operands == 1 {
				scripts = append(scripts, w)
			}
		case strings.HasPrefix(w, "--"):
			opt, val, hasVal := strings.Cut(w[2:], "=")
			switch {
			case strings.HasPrefix("file", opt):
				return name + " -f reads its script from a file, which may hold the e command (runs a shell command)"
			case strings.HasPrefix("expression", opt):
				explicit = true
				if !hasVal {
					val = next()
				}
				scripts = append(scripts, val)
			case strings.HasPrefix("line-length", opt) && !hasVal:
				i++
			}
		default:
		cluster:
			for j := 1; j < len(w); j++ {
				switch w[j] {
				case 'f':
					return name + " -f reads its script from a file, which may hold the e command (runs a shell command)"
				case 'e':
					explicit = true
					s := w[j+1:]
					if s == "" {
						s = next()
					}
					scripts = append(scripts, s)
					break cluster
				case 'l':
					if j == len(w)-1 {
						i++
					}
					break cluster
				case 'i':
					break cluster // -i[SUFFIX]: the rest is the suffix
				}
			}
		}
	}
	if sedRuns(strings.Join(scripts, "\n")) {
		return name + " runs shell commands with its e command or the e flag of s"
	}
	return ""
}

// sedRuns reports whether a sed script may run a shell command: it holds
// the e command or an s command with the e flag, or it cannot be read.
func sedRuns(s string) bool {
	i, n := 0, len(s)
	skipBlank := func() {
		for i < n && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
	}
	toEOL := func(stopAtSemicolon bool) {
		for i < n && s[i] != '\n' && !(stopAtSemicolon && s[i] == ';') {
			i++
		}
	}
	// delimited skips text up to an unescaped delim; false when none.
	delimited := func(delim byte) bool {
		for i < n {
			switch s[i] {
			case '\\':
				i += 2
				continue
			case delim:
				i++
				return true
			}
			i++
		}
		return false
	}
	// twoParts skips the two parts of s/…/…/ and y/…/…/ (the opening
	// delimiter already read).
	twoParts := func(delim byte) bool {
		for range 2 {
			if !delimited(delim) {
				return false
			}
		}
		return true
	}
	address := func() bool {
		switch {
		case i < n && s[i] >= '0' && s[i] <= '9':
			for i < n && (s[i] >= '0' && s[i] <= '9' || s[i] == '~') {
				i++
			}
		case i < n && s[i] == '$':
			i++
		case i < n && s[i] == '/':
			i++
			if !delimited('/') {
				return false
			}
		case i+1 < n && s[i] == '\\':
			d := s[i+1]
			i += 2
			if !delimited(d) {
				return false
			}
		case i < n && (s[i] == '+' || s[i] == '~'):
			i++
			for i < n && s[i] >= '0' && s[i] <= '9' {
				i++
			}
		}
		for i < n && (s[i] == 'I' || s[i] == 'M') {
			i++
		}
		return true
	}
	for i < n {
		switch s[i] {
		case ' ', '\t', '\n', ';':
			i++
			continue
		}
		if !address() {
			return true
		}
		skipBlank()
		if i < n && s[i] == ',' {
			i++
			skipBlank()
			if !address() {
				return true
			}
		}
		skipBlank()
		for i < n && s[i] == '!' {
			i++
			skipBlank()
		}
		if i >= n {
			return false
		}
		cmd := s[i]
		i++
		switch cmd {
		case '{', '}', '=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F':
		case 'e':
			return true
		case 's':
			if i >= n || s[i] == '\n' || s[i] == '\\' {
				return true
			}
			d := s[i]
			i++
			if !twoParts(d) {
				return true
			}
		flags:
			for i < n {
				switch c := s[i]; {
				case c == 'e':
					return true
				case c == 'w':
					toEOL(false)
					break flags
				case strings.IndexByte("gpiImM0123456789", c) >= 0:
					i++
				default:
					break flags
				}
			}
		case 'y':
			if i >= n || s[i] == '\n' || s[i] == '\\' {
				return true
			}
			d := s[i]
			i++
			if !twoParts(d) {
				return true
			}
		case 'a', 'i', 'c':
			// Text to the end of the line; a backslash continues it.
			for i < n && s[i] != '\n' {
				if s[i] == '\\' {
					i++
				}
				i++
			}
		case 'r', 'R', 'w', 'W', '#':
			toEOL(false)
		case 'b', 't', 'T', ':', 'v':
			toEOL(true)
		case 'q', 'Q', 'l', 'L':
			skipBlank()
			for i < n && s[i] >= '0' && s[i] <= '9' {
				i++
			}
		default:
			return true
		}
	}
	return false
}
