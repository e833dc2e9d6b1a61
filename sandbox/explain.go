package sandbox

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// maxExplained bounds the refused lines an explanation quotes.
const maxExplained = 5

// denied finds the lines of a command's output that report a refusal:
// EACCES, EPERM and EROFS in their usual spellings, and failed connections
// and name lookups (which under a confining mode are always the sandbox's
// doing).
var denied = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)permission denied|operation not permitted|read-only file system|\bEACCES\b|\bEPERM\b|\bEROFS\b|errno 13\b|errno 1\b|errno 30\b|failed to connect|couldn't connect|could not connect|network is unreachable|\bENETUNREACH\b|temporary failure in name resolution|could not resolve host|no such host`)
})

// missing finds lines reporting a path that does not exist, or a
// directory where a file was meant: explained only when the path is one
// the sandbox hides or holds (a placeholder).
var missing = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)no such file or directory|directory nonexistent|nonexistent directory|is a directory|\bENOENT\b|\bEISDIR\b`)
})

// reason texts the model gets for one refused line.
const (
	whyNetwork     = "network sockets (IPv4, IPv6: connecting, listening, UDP) are refused in this mode"
	whyNetworkView = "the sandbox has no network but the command's own loopback (127.0.0.1, ::1: a local test server works); nothing outside is reachable, names do not resolve"
	whyGit         = "is inside %s, which the sandbox keeps read-only (git add/commit and hooks need the person, or --sandbox off)"
	whyYagent      = "is inside %s, which the sandbox keeps read-only (yagent's workspace settings and agent definitions: the person edits them)"
	whyProtected   = "is inside %s, which the sandbox keeps read-only (another tool runs what it says: the person edits it)"
	whyMissing     = "is a protected name (%s) the workspace does not have, and the sandbox keeps commands from creating it: the person creates it"
	whyHidden      = "is inside %s, which the sandbox hides from commands (credentials, sessions, daemons' sockets); the person can list it in agents.sandbox_visible"
	whyHostTemp    = "is outside the writable roots, in the system temp dir, which commands do not see: their /tmp is a private one ($TMPDIR), removed when the session or delegation ends"
	whyRO          = "the read-only sandbox lets commands write nowhere but their private /tmp"
	whySplit       = "entries directly in %s cannot be created, removed or renamed in the sandbox (without user namespaces it is granted entry by entry to keep .git and .yagent read-only): use a subdirectory, or the write_file tool"
	whyInside      = "is writable in the sandbox, so this refusal comes from the file's own permissions, not the sandbox"
	whyOutside     = "is outside the writable roots"
)

// Explain returns text to append to a confined command's output when the
// output reports a refusal: each refused path or connection, why the
// sandbox refused it, and how the person can allow it. It returns "" when
// the mode in force is off or nothing was refused. dir is the command's
// working directory (relative paths in the output are resolved against it).
func (p *Policy) Explain(output, dir string) string {
	if p.InForce() == Off || p.Err() != nil {
		return ""
	}
	tmp, err := p.tempDir(context.Background())
	if err != nil {
		return ""
	}
	pl, err := p.plan(tmp)
	if err != nil {
		return ""
	}
	return p.explain(pl, output, dir)
}

// Explain is Policy.Explain for this command's own sandbox.
func (c *Cmd) Explain(output string) string {
	if c.pl == nil {
		return ""
	}
	return c.p.explain(c.pl, output, c.Dir)
}

func (p *Policy) explain(pl *plan, output, dir string) string {
	mode := p.InForce()
	var lines, whys []string
	for l := range strings.Lines(output) {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "[sandbox") {
			continue
		}
		switch {
		case denied().MatchString(l):
			lines, whys = append(lines, l), append(whys, p.why(pl, l, dir))
		case pl.mech == View && missing().MatchString(l):
			if why, ok := p.whyMissing(pl, l, dir); ok {
				lines, whys = append(lines, l), append(whys, why)
			}
		}
	}
	if len(lines) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n[sandbox %s] the OS sandbox refused what these lines report:\n", mode)
	for i, l := range lines {
		if i == maxExplained {
			fmt.Fprintf(&b, "- … and %d more such lines\n", len(lines)-i)
			break
		}
		fmt.Fprintf(&b, "- %s — %s\n", clip(l, 200), whys[i])
	}
	if mode == WorkspaceWrite {
		fmt.Fprintf(&b, "Writable here: %s. ", strings.Join(p.writableList(pl), ", "))
	}
	if pl.mech == View {
		b.WriteString("Reading is allowed outside the hidden paths; the network is the command's own loopback only. ")
	} else {
		b.WriteString("Reading is allowed everywhere; there is no network (no IPv4 or IPv6 socket). ")
	}
	b.WriteString("Do not retry the same way: tell the person. To allow more, they can add a directory to agents.sandbox_writable in the configuration, or run yagent with --sandbox off (no confinement).\n")
	return b.String()
}

// target is the absolute path a refusal line names ("" for none) and
// whether the line is about a connection.
func target(line, dir string) (string, bool) {
	t, network := refusedTarget(line)
	if t == "" {
		return "", network
	}
	if !filepath.IsAbs(t) {
		t = filepath.Join(dir, t)
	}
	return resolveExisting(filepath.Clean(t)), false
}

// whyMissing explains a "no such file" (or "is a directory") line when its
// path is hidden, in the system temp dir a view replaces, or a protected
// name the sandbox holds.
func (p *Policy) whyMissing(pl *plan, line, dir string) (string, bool) {
	t, _ := target(line, dir)
	if t == "" {
		return "", false
	}
	if slices.ContainsFunc(pl.protected, func(prot string) bool { return within(prot, t) }) {
		return p.why(pl, line, dir), true // a placeholder or a protected path
	}
	if pl.mech == View && within("/tmp", t) && !slices.ContainsFunc(pl.writable, func(w string) bool { return within(w, t) }) {
		return t + " " + whyHostTemp, true
	}
	for _, h := range pl.hidden {
		if within(h, t) && !slices.ContainsFunc(p.Visible, func(v string) bool { return within(resolved(v), t) }) {
			return t + " " + fmt.Sprintf(whyHidden, h), true
		}
	}
	return "", false
}

// why classifies one refused line.
func (p *Policy) why(pl *plan, line, dir string) string {
	t, network := target(line, dir)
	if t == "" {
		switch {
		case pl.mech == View:
			if network || netWords().MatchString(line) || !strings.Contains(strings.ToLower(line), "denied") {
				return whyNetworkView
			}
			return "a write outside the writable roots, or a connection (" + whyNetworkView + ")"
		case network:
			return whyNetwork
		}
		return "a write outside the writable roots, or a connection (" + whyNetwork + ")"
	}
	for _, ph := range pl.placeholders {
		if within(ph, t) {
			return t + " " + fmt.Sprintf(whyMissing, filepath.Base(ph))
		}
	}
	for _, prot := range pl.protected {
		if within(prot, t) {
			switch strings.ToLower(filepath.Base(prot)) {
			case ".yagent":
				return t + " " + fmt.Sprintf(whyYagent, prot)
			case ".git":
				return t + " " + fmt.Sprintf(whyGit, prot)
			}
			if strings.HasSuffix(prot, "/.git") || strings.Contains(prot, "/.git/") {
				return t + " " + fmt.Sprintf(whyGit, prot)
			}
			return t + " " + fmt.Sprintf(whyProtected, prot)
		}
	}
	if h, ok := p.whyMissing(pl, line, dir); ok {
		return h
	}
	if p.InForce() == ReadOnly && !within(pl.tmp, t) {
		return t + ": " + whyRO
	}
	if pl.rules != nil {
		for _, s := range pl.rules.Split {
			if filepath.Dir(t) == s {
				return t + ": " + fmt.Sprintf(whySplit, s)
			}
		}
		for _, d := range pl.rules.Dirs {
			if within(d, t) {
				return t + " " + whyInside
			}
		}
		for _, f := range pl.rules.Files {
			if f == t {
				return t + " " + whyInside
			}
		}
		return t + " " + whyOutside
	}
	for _, w := range pl.writable {
		if within(w, t) {
			return t + " " + whyInside
		}
	}
	return t + " " + whyOutside
}

var (
	quoted   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("'([^']+)'|\"([^\"]+)\"|‘([^’]+)’|`([^`']+)'") })
	netWords = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(connect|bind|listen|socket|dial|tcp|port|network)\b`)
	})
	phrase = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i):?\s*(permission denied|operation not permitted|read-only file system|no such file or directory|directory nonexistent|is a directory)`)
	})
)

// refusedTarget extracts the path a refusal line names ("" if none) and
// whether the line is about a connection instead.
func refusedTarget(line string) (string, bool) {
	loc := phrase().FindStringIndex(line)
	before, after := line, ""
	if loc != nil {
		before, after = line[:loc[0]], line[loc[1]:]
	}
	// Python: "Permission denied: '/x'".
	if m := quoted().FindStringSubmatch(after); m != nil {
		return firstGroup(m), false
	}
	seg := before
	if i := strings.LastIndex(before, ": "); i >= 0 && !insideQuotes(before, i) {
		seg = before[i+2:]
	}
	seg = strings.TrimSpace(seg)
	// "cannot copy 'a' to 'b'": the last quoted name is the one refused.
	if ms := quoted().FindAllStringSubmatch(seg, -1); ms != nil {
		return firstGroup(ms[len(ms)-1]), false
	}
	if seg == "" || netWords().MatchString(seg) || loc == nil {
		return "", netWords().MatchString(line)
	}
	// "cannot create /etc/x", "open /etc/x": the last word.
	if i := strings.LastIndexByte(seg, ' '); i >= 0 {
		seg = seg[i+1:]
	}
	if strings.ContainsAny(seg, "/.") || !strings.Contains(before, " ") {
		return seg, false
	}
	return "", netWords().MatchString(line)
}

// insideQuotes reports whether byte i of s sits inside a '…' pair (a
// quoted name may contain ": ").
func insideQuotes(s string, i int) bool {
	return strings.Count(s[:i], "'")%2 == 1
}

func firstGroup(m []string) string {
	for _, g := range m[1:] {
		if g != "" {
			return g
		}
	}
	return ""
}

// resolveExisting resolves symlinks in the longest existing prefix of p.
func resolveExisting(p string) string {
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	parent := filepath.Dir(p)
	if parent == p {
		return p
	}
	return filepath.Join(resolveExisting(parent), filepath.Base(p))
}

// writableList names the writable roots for an explanation.
func (p *Policy) writableList(pl *plan) []string {
	var out []string
	for _, w := range pl.writable {
		label := ""
		switch w {
		case pl.tmp:
			label = " (the commands' private temp dir, $TMPDIR"
			if pl.mech == View {
				label += ", seen as /tmp"
			}
			label += ")"
		case pl.cache:
			label = " (the workspace's cache for commands, $XDG_CACHE_HOME)"
		}
		var except []string
		for _, prot := range pl.protected {
			if within(w, prot) && w != pl.tmp {
				except = append(except, prot)
			}
		}
		if len(except) > 0 {
			label += " (except " + strings.Join(except, ", ")
			if pl.rules != nil {
				var split []string
				for _, s := range pl.rules.Split {
					if within(w, s) {
						split = append(split, s)
					}
				}
				if len(split) > 0 {
					label += "; nothing created or removed directly in " + strings.Join(split, " or ")
				}
			}
			label += ")"
		}
		out = append(out, w+label)
	}
	return out
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
