package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/yagent/yagent/sandbox/helper"
)

// plan is what one command gets: built from the disk as it is when the
// command starts.
type plan struct {
	mech Mechanism
	abi  int
	// tmp is the private temp dir (host path); cache the per-workspace
	// cache (host path, "" under read-only).
	tmp, cache string
	// writable are the host paths commands may write under.
	writable []string
	// protected are paths inside the writable roots kept read-only;
	// placeholders those of them that did not exist and were made, empty,
	// for the command (view only).
	protected, placeholders []string
	// hidden are paths a view masks (existing or not).
	hidden []string
	ops    []helper.Op
	rules  *rules // the Landlock mechanism's grants
}

// credentialStores are the directories and files under the person's home
// a view hides: keys, tokens and the agents that hold them.
var credentialStores = []string{
	".ssh", ".gnupg", ".aws", ".azure", ".config/gcloud", ".docker", ".kube",
	".config/gh", ".netrc", ".git-credentials", ".npmrc", ".pypirc",
	".password-store", ".local/share/keyrings",
}

// hiddenPaths are what a view masks (agents.sandbox_visible aside):
// $YAGENT_HOME (sessions, tokens, configuration), the credential stores,
// the runtime directories where daemons listen (the D-Bus session bus runs
// anything unconfined; /run holds docker.sock and systemd's private
// socket), and the ssh-agent socket: a Unix socket stays reachable through
// a read-only bind and a new network namespace, so it must not be seen.
func (p *Policy) hiddenPaths() []string {
	f := p.paths()
	var out []string
	if f.home != "" {
		out = append(out, f.home)
	}
	if f.userHome != "" && f.userHome != "/" {
		for _, c := range credentialStores {
			out = append(out, filepath.Join(f.userHome, c))
		}
	}
	out = append(out, "/run", "/var/run")
	for _, v := range []string{"XDG_RUNTIME_DIR", "SSH_AUTH_SOCK"} {
		if s := os.Getenv(v); filepath.IsAbs(s) {
			out = append(out, resolved(s))
		}
	}
	return out
}

// plan builds the plan of a command whose private temp dir is tmp.
func (p *Policy) plan(tmp string) (*plan, error) {
	mech, _ := p.Mechanism()
	pl := &plan{mech: mech, abi: p.abi(), tmp: tmp}
	pl.writable = []string{tmp}
	if p.mode() == WorkspaceWrite {
		cache, err := p.cacheDir()
		if err != nil {
			return nil, err
		}
		pl.cache = cache
		pl.writable = append([]string{p.Workspace}, p.Writable...)
		pl.writable = append(pl.writable, tmp, cache)
	}
	inWritable := func(path string) bool {
		return slices.ContainsFunc(pl.writable, func(w string) bool { return within(w, path) })
	}
	if p.mode() == WorkspaceWrite {
		for _, prot := range Protected(p.Workspace) {
			if inWritable(prot) {
				pl.protected = append(pl.protected, prot)
			}
		}
		if exe := p.paths().exe; exe != "" && inWritable(exe) {
			pl.protected = append(pl.protected, exe)
		}
	}
	var missingHooks []string
	if p.mode() == WorkspaceWrite {
		for _, h := range HooksPaths(p.Workspace) {
			switch m := firstMissing(h); {
			case !inWritable(h):
			case m == "":
				pl.protected = append(pl.protected, h)
			case !slices.Contains(missingHooks, m):
				missingHooks = append(missingHooks, m)
			}
		}
	}
	switch mech {
	case View:
		if p.mode() == WorkspaceWrite {
			missing := append(missingProtected(p.Workspace), missingHooks...)
			// A placeholder of an earlier command, lingering, exists but
			// is held again: else its removal could come between this
			// plan and the view's bind, and the command create the name.
			pl.placeholders = append(slices.Clone(missing), ownPlaceholders(pl.protected)...)
			pl.protected = append(pl.protected, missing...)
		}
		pl.hidden = p.hiddenPaths()
		pl.ops = p.viewOps(pl)
	case LandlockOnly:
		protect := slices.Clone(pl.protected)
		if h := p.paths().home; h != "" && inWritable(h) {
			protect = append(protect, h)
		}
		r, err := grantRules(pl.writable, protect)
		if err != nil {
			return nil, err
		}
		pl.rules = r
	}
	return pl, nil
}

// viewCache is where a view shows the workspace's cache (XDG_CACHE_HOME):
// inside the private /tmp, wherever $YAGENT_HOME is.
const viewCache = "/tmp/.cache"

// cacheDir is the workspace's cache for its commands (XDG_CACHE_HOME: Go's
// build cache, pip's …): one per workspace, under $YAGENT_HOME, so a
// command can fill it but never poison the person's own caches, which an
// unconfined build would read next.
func (p *Policy) cacheDir() (string, error) {
	root := p.paths().home
	if root == "" {
		root = filepath.Join(os.TempDir(), fmt.Sprintf("yagent-%d", os.Getuid()))
	}
	sum := sha256.Sum256([]byte(p.Workspace))
	dir := filepath.Join(root, "cache", "sandbox", filepath.Base(p.Workspace)+"-"+hex.EncodeToString(sum[:6]))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("sandbox: make the commands' cache %s: %w", dir, err)
	}
	return realPath(dir)
}

// viewOps orders the view's steps: shallower paths first, so a deeper one
// lands on what covers its parent (a protected .git on the writable
// workspace, the cache inside the masked $YAGENT_HOME); at one path a
// mask comes first and a grant over it wins (a writable root the person
// named inside a hidden one), and a read-only bind last.
func (p *Policy) viewOps(pl *plan) []helper.Op {
	ops := []helper.Op{{Kind: helper.Tmp, Path: pl.tmp}}
	visible := make([]string, 0, len(p.Visible))
	for _, v := range p.Visible {
		visible = append(visible, resolved(v))
	}
	for _, h := range pl.hidden {
		if slices.ContainsFunc(visible, func(v string) bool { return within(v, h) }) {
			continue // the person made it visible
		}
		ops = append(ops, helper.Op{Kind: helper.Hide, Path: h})
	}
	for _, v := range visible {
		if slices.ContainsFunc(pl.hidden, func(h string) bool { return within(h, v) && h != v }) {
			ops = append(ops, helper.Op{Kind: helper.RO, Path: v})
		}
	}
	for _, w := range pl.writable {
		switch w {
		case pl.tmp:
		case pl.cache:
			ops = append(ops, helper.Op{Kind: helper.Bind, Path: w, At: viewCache})
		default:
			ops = append(ops, helper.Op{Kind: helper.RW, Path: w})
		}
	}
	for _, prot := range pl.protected {
		ops = append(ops, helper.Op{Kind: helper.RO, Path: prot})
	}
	order := map[helper.OpKind]int{helper.Tmp: 0, helper.Hide: 1, helper.RW: 2, helper.Bind: 2, helper.RO: 3}
	target := func(op helper.Op) string {
		switch op.Kind {
		case helper.Tmp:
			return "/tmp"
		case helper.Bind:
			return op.At
		}
		return op.Path
	}
	slices.SortStableFunc(ops, func(a, b helper.Op) int {
		if d := depth(target(a)) - depth(target(b)); d != 0 {
			return d
		}
		return order[a.Kind] - order[b.Kind]
	})
	return ops
}

func depth(p string) int {
	if p == "/" {
		return 0
	}
	return strings.Count(p, "/")
}

// within reports whether p is root or beneath it.
func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// spec is the helper's spec of the plan for argv in dir.
func (pl *plan) spec(dir string, argv []string) *helper.Spec {
	s := &helper.Spec{Dir: dir, Argv: argv, ABI: pl.abi}
	switch pl.mech {
	case View:
		s.Mechanism = helper.View
		s.Ops = pl.ops
	case LandlockOnly:
		s.Mechanism = helper.Landlock
		for _, d := range pl.rules.Dirs {
			s.Ops = append(s.Ops, helper.Op{Kind: helper.RW, Path: d})
		}
		for _, f := range pl.rules.Files {
			s.Ops = append(s.Ops, helper.Op{Kind: helper.RWFile, Path: f})
		}
	}
	return s
}
