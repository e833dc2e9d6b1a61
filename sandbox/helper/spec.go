package helper

// Arg, as the first argument, marks a re-executed helper. It is not a
// command of the CLI and never shows in --help.
const Arg = "__yagent-sandbox-exec"

// Mechanism is how the helper confines a command.
type Mechanism string

const (
	// View: the namespaces the parent created at fork (user, mount, pid,
	// ipc, network) hold a filesystem view built from Ops; Landlock (at
	// ABI, when above 0) and seccomp are a second layer inside it.
	View Mechanism = "view"
	// Landlock: no namespaces; Landlock rules (Ops of kind RW and
	// RWFile) and seccomp only, no network.
	Landlock Mechanism = "landlock"
	// Probe: in the namespaces, try every step the view needs on a
	// scratch view, then exit 0 (or 126 naming the step that failed).
	Probe Mechanism = "probe"
)

// OpKind is one step of building the view.
type OpKind string

const (
	// Tmp binds Path (the private temp dir) at /tmp.
	Tmp OpKind = "tmp"
	// RW binds Path, as the host has it, writable at Path (a directory
	// with everything beneath it; a file in place under Landlock).
	RW OpKind = "rw"
	// RWFile is a file writable in place (Landlock only).
	RWFile OpKind = "rwfile"
	// RO binds Path, as the host has it, read-only at Path: a protected
	// path, or one named visible inside a hidden one.
	RO OpKind = "ro"
	// Hide masks Path: an empty read-only directory, or an empty file.
	Hide OpKind = "hide"
	// Bind binds Path, as the host has it, writable at At (View only).
	Bind OpKind = "bind"
)

// Op is one step; the view applies them in order.
type Op struct {
	Kind OpKind
	Path string
	// At is where a Bind lands in the view.
	At string
}

// Spec is everything the helper needs besides the command.
type Spec struct {
	Mechanism Mechanism
	// ABI is the Landlock ABI to apply (0 = none, View only).
	ABI int
	// Ops build the view (View) or are the writable rules (Landlock).
	Ops []Op
	// Dir is where the command runs, entered again once the view is
	// built.
	Dir string
	// Argv is the command.
	Argv []string
	// Filter is the seccomp program the helper loads (View and Landlock),
	// built by the parent (Program) so that the Go helper and the C one
	// load the same instructions: 8 bytes per instruction, as struct
	// sock_filter lies in memory (little-endian). Args fills it in when
	// nil.
	Filter []byte
}

// maxFilter is the most instructions a Filter may hold (the kernel's
// BPF_MAXINSNS is 4096; the filter has about 60).
const maxFilter = 1024

// Args encodes s as the helper's arguments, HelperArg first: one value per
// argument, so no quoting and no length limit per string to hit.
func (s *Spec) Args() []string {
	a := []string{Arg, "-m", string(s.Mechanism), "-abi", itoa(s.ABI)}
	if s.Dir != "" {
		a = append(a, "-cd", s.Dir)
	}
	for _, op := range s.Ops {
		a = append(a, "-"+string(op.Kind), op.Path)
		if op.Kind == Bind {
			a = append(a, op.At)
		}
	}
	prog := s.Filter
	if prog == nil && (s.Mechanism == View || s.Mechanism == Landlock) {
		prog = Program(s.Mechanism)
	}
	if prog != nil {
		a = append(a, "-bpf", toHex(prog))
	}
	a = append(a, "--")
	return append(a, s.Argv...)
}

// Parse is the inverse of Args, without the leading Arg.
func Parse(a []string) (*Spec, error) {
	s := &Spec{}
	for len(a) > 0 {
		if a[0] == "--" {
			s.Argv = a[1:]
			if len(s.Argv) == 0 && s.Mechanism != Probe {
				return nil, errorString("no command after --")
			}
			if s.Mechanism == "" {
				return nil, errorString("no -m")
			}
			return s, nil
		}
		if len(a) < 2 {
			return nil, errorString(a[0] + " without a value")
		}
		flag, v := a[0], a[1]
		a = a[2:]
		switch flag {
		case "-m":
			switch m := Mechanism(v); m {
			case View, Landlock, Probe:
				s.Mechanism = m
			default:
				return nil, errorString("-m " + quote(v) + ": want view, landlock or probe")
			}
		case "-abi":
			n, ok := atoi(v)
			if !ok {
				return nil, errorString("-abi " + quote(v) + ": want a number")
			}
			s.ABI = n
		case "-cd":
			s.Dir = v
		case "-bpf":
			b, ok := fromHex(v)
			if !ok || len(b) == 0 || len(b)%8 != 0 || len(b)/8 > maxFilter {
				return nil, errorString("-bpf: want the hex of 1 to " + itoa(maxFilter) + " BPF instructions")
			}
			s.Filter = b
		case "-tmp", "-rw", "-rwfile", "-ro", "-hide", "-bind":
			if v == "" || v[0] != '/' {
				return nil, errorString(flag + " " + quote(v) + ": want an absolute path")
			}
			op := Op{Kind: OpKind(flag[1:]), Path: v}
			if op.Kind == Bind {
				if len(a) == 0 || a[0] == "" || a[0][0] != '/' {
					return nil, errorString("-bind " + quote(v) + ": want the absolute path it lands at")
				}
				op.At, a = a[0], a[1:]
			}
			s.Ops = append(s.Ops, op)
		default:
			return nil, errorString("unknown argument " + quote(flag))
		}
	}
	return nil, errorString("no command (want -- ARGV)")
}

// errorString is an error without the errors package.
type errorString string

func (e errorString) Error() string { return string(e) }

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

func atoi(s string) (int, bool) {
	if s == "" || len(s) > 9 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

const hexDigits = "0123456789abcdef"

func toHex(b []byte) string {
	out := make([]byte, 2*len(b))
	for i, c := range b {
		out[2*i], out[2*i+1] = hexDigits[c>>4], hexDigits[c&15]
	}
	return string(out)
}

// fromHex decodes lower-case hex (what toHex writes, nothing else).
func fromHex(s string) ([]byte, bool) {
	if len(s)%2 != 0 {
		return nil, false
	}
	out := make([]byte, len(s)/2)
	for i := range out {
		hi, lo := unhex(s[2*i]), unhex(s[2*i+1])
		if hi < 0 || lo < 0 {
			return nil, false
		}
		out[i] = byte(hi<<4 | lo)
	}
	return out, true
}

func unhex(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	}
	return -1
}

// quote is a plain "…" around s (messages only).
func quote(s string) string { return `"` + s + `"` }
