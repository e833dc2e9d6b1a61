package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/yagent/yagent/config"
)

// MCPJSONFile is the workspace file Claude Code keeps its project's MCP
// servers in.
const MCPJSONFile = ".mcp.json"

// mcpJSON is .mcp.json as Claude Code writes it.
type mcpJSON struct {
	MCPServers map[string]mcpJSONServer `json:"mcpServers"`
}

type mcpJSONServer struct {
	Type    string            `json:"type"` // stdio (the default with command), http, sse
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
}

// DefaultCallTimeout is a server's timeout unless set: defaults.yaml's
// mcp_servers."*".timeout, which a .mcp.json server has no way to set.
const DefaultCallTimeout = 60 * time.Second

// envRef is ${VAR} or ${VAR:-default}, Claude Code's expansion in .mcp.json.
var envRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}`)

// ParseMCPJSON reads a workspace's .mcp.json (path names it in errors) as
// Claude Code does: each entry of mcpServers is a stdio server (command,
// args, env) or a streamable HTTP one (type http: url, headers), with
// ${VAR} and ${VAR:-default} expanded in all of them through getenv.
// A server yagent cannot run is left out with a problem naming it: type
// sse (deprecated in MCP; yagent speaks streamable HTTP), an unknown
// type, neither or both of command and url, a variable that is unset
// without a default — and, in a url or a header (sent to a server), a
// variable not ending in _API_KEY or _TOKEN, the rule of every workspace
// file (a stdio server inherits yagent's environment anyway). A file
// that is not JSON of that shape is an error naming it and its line.
func ParseMCPJSON(path string, data []byte, getenv func(string) string) (map[string]config.MCPServer, []string, error) {
	var doc mcpJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", jsonPlace(path, data, err), err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, nil, fmt.Errorf("%s: more than one JSON value; the file holds one object with mcpServers", path)
	}
	servers := map[string]config.MCPServer{}
	var problems []string
	for _, name := range slices.Sorted(maps.Keys(doc.MCPServers)) {
		s, err := doc.MCPServers[name].server(getenv)
		if err == nil && strings.TrimSpace(name) == "" {
			err = errors.New("an empty name")
		}
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: mcpServers.%s left out: %v", path, name, err))
			continue
		}
		s.Source = path
		servers[name] = s
	}
	return servers, problems, nil
}

func (j mcpJSONServer) server(getenv func(string) string) (config.MCPServer, error) {
	var missing, unsent []string
	expand := func(v string, sent bool) string {
		return envRef.ReplaceAllStringFunc(v, func(ref string) string {
			m := envRef.FindStringSubmatch(ref)
			if sent && !config.SecretVar(m[1]) {
				unsent = append(unsent, m[1])
				return ""
			}
			if val := getenv(m[1]); val != "" {
				return val
			}
			if m[2] != "" {
				return m[3]
			}
			missing = append(missing, m[1])
			return ""
		})
	}
	typ := j.Type
	if typ == "" && j.Command != "" {
		typ = "stdio"
	}
	if typ == "" && j.URL != "" {
		typ = "http"
	}
	s := config.MCPServer{Enabled: true, Timeout: config.Duration(DefaultCallTimeout)}
	switch typ {
	case "stdio":
		if j.Command == "" || j.URL != "" {
			return s, errors.New("a stdio server names a command and no url")
		}
		s.Command = expand(j.Command, false)
		for _, a := range j.Args {
			s.Args = append(s.Args, expand(a, false))
		}
		if len(j.Env) > 0 {
			s.Env = map[string]string{}
			for k, v := range j.Env {
				s.Env[k] = expand(v, false)
			}
		}
	case "http":
		if j.URL == "" || j.Command != "" {
			return s, errors.New("an http server names a url and no command")
		}
		s.URL = expand(j.URL, true)
		if len(j.Headers) > 0 {
			s.Headers = map[string]string{}
			for k, v := range j.Headers {
				s.Headers[k] = expand(v, true)
			}
		}
	case "sse":
		return s, errors.New("type sse (HTTP+SSE, deprecated in MCP) is not supported: yagent speaks streamable HTTP; use the server's streamable endpoint with type http")
	case "":
		return s, errors.New("neither command nor url")
	default:
		return s, fmt.Errorf("type %q: want stdio or http", j.Type)
	}
	if len(unsent) > 0 {
		slices.Sort(unsent)
		return s, fmt.Errorf("its url or headers name %s: a workspace file may send only variables ending in _API_KEY or _TOKEN to a server; rename the variable, or configure the server in your own $YAGENT_HOME/config.yaml", strings.Join(slices.Compact(unsent), ", "))
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return s, fmt.Errorf("%s not set (and no ${VAR:-default}); export it and start yagent again", strings.Join(slices.Compact(missing), ", "))
	}
	return s, nil
}

// jsonPlace is path:line of a JSON decoding error, or path.
func jsonPlace(path string, data []byte, err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	off := int64(-1)
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if off < 0 || off > int64(len(data)) {
		return path
	}
	return fmt.Sprintf("%s:%d", path, bytes.Count(data[:off], []byte("\n"))+1)
}

// ReadMCPJSON reads dir's .mcp.json (ParseMCPJSON); none is no servers.
// It is read only when it is a regular file of at most
// config.MaxFileBytes.
func ReadMCPJSON(dir string, getenv func(string) string) (map[string]config.MCPServer, []string, error) {
	path := dir + string(os.PathSeparator) + MCPJSONFile
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() || fi.Size() > config.MaxFileBytes {
		return nil, nil, fmt.Errorf("%s: not a regular file of at most 1 MiB; replace it or remove it", path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", path, err)
	}
	return ParseMCPJSON(path, data, getenv)
}
