package config

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
)

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
	msg := fmt.Sprintf("ignoring %s of %s: this directory is not trusted (its settings could run programs, widen permissions, send your keys elsewhere or use up and delete more); if you trust it, run `yagent trust %s`",
		strings.Join(w.Ignored, ", "), w.File, w.Dir)
	if w.TrustProblem != "" {
		msg += " — " + w.TrustProblem
	}
	return msg
}

// secretVar is what a workspace file may name as a variable sent to a
// server: a key or a token, never any variable of the environment.
var secretVar = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_]+_(API_KEY|TOKEN)$`) })

// applyTrust removes from an untrusted workspace layer what KeyClasses
// keeps from an untrusted directory (base is the merged tree of the
// layers below, which Exhausts keys are compared with) and returns the
// dotted keys removed; for a trusted one it checks the variables the
// layer sends to servers (secretVar).
func applyTrust(file string, root, base *yaml.Node, trusted bool) ([]string, error) {
	if !trusted {
		ignored := gate(root, base, classTree, nil)
		slices.Sort(ignored)
		return ignored, nil
	}
	var errs Errors
	bad := func(n *yaml.Node, key, name string) {
		errs = append(errs, &Error{File: file, Line: n.Line, Key: key,
			Msg: fmt.Sprintf("%q: a workspace file may name only a variable ending in _API_KEY or _TOKEN; name this one in your own configuration ($YAGENT_HOME/config.yaml)", name)})
	}
	headers := func(n *yaml.Node, key string) {
		eachEntry(n, func(h string, v *yaml.Node) {
			if ref, ok := strings.CutPrefix(v.Value, "${"); ok && strings.HasSuffix(ref, "}") && !secretVar().MatchString(strings.TrimSuffix(ref, "}")) {
				bad(v, key+"."+h, strings.TrimSuffix(ref, "}"))
			}
		})
	}
	eachEntry(lookup(root, "models"), func(name string, m *yaml.Node) {
		if v := lookup(m, "api_key_env"); v != nil && v.Kind == yaml.ScalarNode && v.Value != "" && !secretVar().MatchString(v.Value) {
			bad(v, "models."+name+".api_key_env", v.Value)
		}
		headers(lookup(m, "extra_headers"), "models."+name+".extra_headers")
	})
	headers(lookup(root, "telemetry", "headers"), "telemetry.headers")
	eachEntry(lookup(root, "mcp_servers"), func(name string, s *yaml.Node) {
		for _, key := range []string{"token_env", "oauth_client_secret_env"} {
			if v := lookup(s, key); v != nil && v.Kind == yaml.ScalarNode && v.Value != "" && !secretVar().MatchString(v.Value) {
				bad(v, "mcp_servers."+name+"."+key, v.Value)
			}
		}
	})
	if len(errs) > 0 {
		return nil, errs
	}
	return nil, nil
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

// SecretVar reports whether a workspace's file may name the variable
// name as one whose value is sent to a server: it ends in _API_KEY or
// _TOKEN (secretVar; a workspace's .mcp.json headers and urls too).
func SecretVar(name string) bool { return secretVar().MatchString(name) }
