package config

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// WorkspaceGatedKeys are the keys of a workspace's own .yagent/config.yaml
// that apply only once the person trusts the directory: what starts
// programs (mcp_servers), widens what agents may do without asking
// (agents.allow_shell, approval, shell_allow, sandbox, sandbox_writable),
// routes the person's credentials or requests (a model's base_url,
// api_key_env, extra_headers, extra_body) and decides whose knowledge base
// is used and how (kb: the person, the project, user memory sharing, the
// database path, the agents' KB tools) or where delegations, their tasks
// and notes go (queue: the database of a distributed batch; telemetry:
// the collector that gets traces, with prompts under log_content). "*"
// stands for any model name.
var WorkspaceGatedKeys = []string{
	"mcp_servers",
	"agents.allow_shell", "agents.approval", "agents.shell_allow", "agents.sandbox", "agents.sandbox_writable",
	"agents.sandbox_visible", "agents.sandbox_env",
	"models.*.base_url", "models.*.api_key_env", "models.*.extra_headers", "models.*.extra_body",
	"kb", "queue", "telemetry",
}

// Workspace says how the working directory's own configuration file was
// applied.
type Workspace struct {
	// File is the workspace's .yagent/config.yaml ("" = there is none, or
	// it is the person's own file: yagent runs in the directory holding
	// $YAGENT_HOME).
	File string `json:"file"`
	// Dir is the directory trust is recorded for (absolute, symlinks
	// resolved).
	Dir     string `json:"dir"`
	Trusted bool   `json:"trusted"`
	// Ignored are the dotted keys of File that were not applied because
	// Dir is not trusted (sorted).
	Ignored []string `json:"ignored"`
	// TrustProblem says why the trust list could not be read ("" = it
	// could); nothing is trusted then.
	TrustProblem string `json:"trust_problem,omitempty"`
}

// Warning is the one line telling the person which workspace settings were
// ignored and how to apply them ("" when none were).
func (w Workspace) Warning() string {
	if len(w.Ignored) == 0 {
		return ""
	}
	msg := fmt.Sprintf("ignoring %s of %s: this directory is not trusted (its settings could run programs, widen permissions or send your keys elsewhere); if you trust it, run `yagent trust %s`",
		strings.Join(w.Ignored, ", "), w.File, w.Dir)
	if w.TrustProblem != "" {
		msg += " — " + w.TrustProblem
	}
	return msg
}

// secretVar is what a workspace file may name as a variable sent to a
// server: a key or a token, never any variable of the environment.
var secretVar = regexp.MustCompile(`^[A-Za-z0-9_]+_(API_KEY|TOKEN)$`)

// applyTrust removes the gated keys from an untrusted workspace layer and
// returns them; for a trusted one it checks the variables the layer sends
// to servers (secretVar).
func applyTrust(file string, root *yaml.Node, trusted bool) ([]string, error) {
	if !trusted {
		var ignored []string
		for _, key := range WorkspaceGatedKeys {
			ignored = append(ignored, strip(root, strings.Split(key, "."), nil)...)
		}
		slices.Sort(ignored)
		return ignored, nil
	}
	var errs Errors
	bad := func(n *yaml.Node, key, name string) {
		errs = append(errs, &Error{File: file, Line: n.Line, Key: key,
			Msg: fmt.Sprintf("%q: a workspace file may name only a variable ending in _API_KEY or _TOKEN; name this one in your own configuration ($YAGENT_HOME/config.yaml)", name)})
	}
	eachEntry(lookup(root, "models"), func(name string, m *yaml.Node) {
		if v := lookup(m, "api_key_env"); v != nil && v.Kind == yaml.ScalarNode && v.Value != "" && !secretVar.MatchString(v.Value) {
			bad(v, "models."+name+".api_key_env", v.Value)
		}
		eachEntry(lookup(m, "extra_headers"), func(h string, v *yaml.Node) {
			if ref, ok := strings.CutPrefix(v.Value, "${"); ok && strings.HasSuffix(ref, "}") && !secretVar.MatchString(strings.TrimSuffix(ref, "}")) {
				bad(v, "models."+name+".extra_headers."+h, strings.TrimSuffix(ref, "}"))
			}
		})
	})
	eachEntry(lookup(root, "mcp_servers"), func(name string, s *yaml.Node) {
		if v := lookup(s, "token_env"); v != nil && v.Kind == yaml.ScalarNode && v.Value != "" && !secretVar.MatchString(v.Value) {
			bad(v, "mcp_servers."+name+".token_env", v.Value)
		}
	})
	if len(errs) > 0 {
		return nil, errs
	}
	return nil, nil
}

// strip removes the keys matching path (with "*" for any key but
// models.aliases) under n and returns their dotted names; a whole section
// (mcp_servers, kb) is reported key by key.
func strip(n *yaml.Node, path, at []string) []string {
	if n == nil || n.Kind != yaml.MappingNode || len(path) == 0 {
		return nil
	}
	var out []string
	for i := 0; i+1 < len(n.Content); {
		k, v := n.Content[i], n.Content[i+1]
		here := append(slices.Clone(at), k.Value)
		switch {
		case path[0] == "*" && k.Value != ModelAliasesKey && len(path) > 1:
			out = append(out, strip(v, path[1:], here)...)
		case path[0] == k.Value && len(path) > 1:
			out = append(out, strip(v, path[1:], here)...)
		case path[0] == k.Value:
			n.Content = slices.Delete(n.Content, i, i+2)
			out = append(out, sectionKeys(v, here)...)
			continue
		}
		i += 2
	}
	return out
}

// sectionKeys names what a removed value set: the keys of a non-empty
// section, else the key itself; an empty mapping or list set nothing.
func sectionKeys(v *yaml.Node, at []string) []string {
	key := strings.Join(at, ".")
	if len(at) != 1 || v.Kind != yaml.MappingNode {
		if (v.Kind == yaml.MappingNode || v.Kind == yaml.SequenceNode) && len(v.Content) == 0 {
			return nil
		}
		return []string{key}
	}
	var out []string
	for i := 0; i+1 < len(v.Content); i += 2 {
		out = append(out, key+"."+v.Content[i].Value)
	}
	return out
}

// eachEntry calls f for each key of a mapping node.
func eachEntry(n *yaml.Node, f func(key string, v *yaml.Node)) {
	if n == nil || n.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		f(n.Content[i].Value, n.Content[i+1])
	}
}

// workspaceLayer decides how the working directory's file applies: its
// real directory, whether it is the person's own file, and whether the
// directory is trusted.
func workspaceLayer(home, wd, file, userFile string) (ws Workspace, own bool) {
	if a, err := os.Stat(file); err == nil {
		if b, err := os.Stat(userFile); err == nil && os.SameFile(a, b) {
			return Workspace{}, true
		}
	}
	ws = Workspace{File: file, Dir: wd}
	if real, err := filepath.EvalSymlinks(wd); err == nil {
		ws.Dir = real
	}
	if abs, err := filepath.Abs(ws.Dir); err == nil {
		ws.Dir = abs
	}
	list, err := ReadTrust(home)
	if err != nil {
		ws.TrustProblem = err.Error()
		return ws, false
	}
	ws.Trusted = list.Has(ws.Dir)
	return ws, false
}
