package sandbox

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// maxExplained bounds the refused lines an explanation quotes.
const maxExplained = 5

// denied finds the lines of a command's output that report a refusal:
// EACCES and EPERM in their usual spellings, and failed TCP connects (which
// under a confining mode are always the sandbox's doing).
var denied = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)permission denied|operation not permitted|\bEACCES\b|\bEPERM\b|errno 13\b|errno 1\b|failed to connect|couldn't connect|could not connect`)
})

// reason texts the model gets for one refused line.
const (
	whyNetwork = "network sockets (IPv4, IPv6: connecting, listening, UDP) are refused in this mode"
	whyGit     = "is inside %s, which the sandbox keeps read-only (git add/commit and hooks need the person, or --sandbox off)"
	whyYagent  = "is inside %s, which the sandbox keeps read-only (yagent's workspace settings and agent definitions: the person edits them)"
	whyRO      = "the read-only sandbox lets commands write nowhere"
	whySplit   = "entries directly in %s cannot be created, removed or renamed in the sandbox (it is granted entry by entry to keep .git and .yagent read-only): use a subdirectory, or the write_file tool"
	whyInside  = "is writable in the sandbox, so this refusal comes from the file's own permissions, not the sandbox"
	whyOutside = "is outside the writable roots"
)

// Explain returns text to append to a confined command's output when the
// output reports a refusal: each refused path or connection, why the
// sandbox refused it, and how the person can allow it. It returns "" when
// the mode in force is off or nothing was refused. dir is the command's
// working directory (relative paths in the output are resolved against it).
func (p *Policy) Explain(output, dir string) string {
	mode := p.InForce()
	if mode == Off || p.Err() != nil {
		return ""
	}
	var lines []string
	for l := range strings.Lines(output) {
		if l = strings.TrimSpace(l); denied().MatchString(l) && !strings.HasPrefix(l, "[sandbox") {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return ""
	}
	r, err := p.rules(0)
	if err != nil {
		r = &rules{}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n[sandbox %s] the OS sandbox refused what these lines report:\n", mode)
	for i, l := range lines {
		if i == maxExplained {
			fmt.Fprintf(&b, "- … and %d more such lines\n", len(lines)-i)
			break
		}
		fmt.Fprintf(&b, "- %s — %s\n", clip(l, 200), p.why(r, l, dir))
	}
	if mode == WorkspaceWrite {
		fmt.Fprintf(&b, "Writable here: %s. ", strings.Join(p.writableList(r), ", "))
	}
	b.WriteString("Reading is allowed everywhere; there is no network (no IPv4 or IPv6 socket). ")
	b.WriteString("Do not retry the same way: tell the person. To allow more, they can add a directory to agents.sandbox_writable in the configuration, or run yagent with --sandbox off (no confinement).\n")
	return b.String()
}

// why classifies one refused line.
func (p *Policy) why(r *rules, line, dir string) string {
	target, network := refusedTarget(line)
	if target == "" {
		if network {
			return whyNetwork
		}
		return "a write outside the writable roots, or a connection (" + whyNetwork + ")"
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(dir, target)
	}
	target = resolveExisting(filepath.Clean(target))
	for _, prot := range r.Protected {
		if within(prot, target) {
			if strings.EqualFold(filepath.Base(prot), ".yagent") {
				return target + " " + fmt.Sprintf(whyYagent, prot)
			}
			return target + " " + fmt.Sprintf(whyGit, prot)
		}
	}
	if p.InForce() == ReadOnly {
		return target + ": " + whyRO
	}
	for _, s := range r.Split {
		if filepath.Dir(target) == s {
			return target + ": " + fmt.Sprintf(whySplit, s)
		}
	}
	for _, d := range r.Dirs {
		if within(d, target) {
			return target + " " + whyInside
		}
	}
	for _, f := range r.Files {
		if f == target {
			return target + " " + whyInside
		}
	}
	return target + " " + whyOutside
}

var (
	quoted   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("'([^']+)'|\"([^\"]+)\"|‘([^’]+)’|`([^`']+)'") })
	netWords = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(connect|bind|listen|socket|dial|tcp|port|network)\b`)
	})
	phrase = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i):?\s*(permission denied|operation not permitted)`)
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
func (p *Policy) writableList(r *rules) []string {
	var out []string
	add := func(root, label string) {
		var split []string
		for _, s := range r.Split {
			if within(root, s) {
				split = append(split, s)
			}
		}
		for _, prot := range r.Protected {
			if within(root, prot) {
				label += fmt.Sprintf(" (except %s; nothing created or removed directly in %s)", prot, strings.Join(split, " or "))
			}
		}
		out = append(out, root+label)
	}
	add(p.Workspace, "")
	if p.TempDir != "" {
		add(p.TempDir, " (the commands' private temp dir, $TMPDIR)")
	}
	for _, w := range p.Writable {
		add(w, "")
	}
	return out
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
