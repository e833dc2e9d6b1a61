package hooks

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/yagent/yagent/internal/shellquote"
)

// claudeNames maps yagent's built-in tools to the Claude Code tools they
// stand for, so a matcher written for Claude Code ("Bash", "Edit|Write")
// matches the same calls here.
var claudeNames = map[string]string{
	"shell":      "Bash",
	"read_file":  "Read",
	"write_file": "Write",
	"edit_file":  "Edit",
	"list_dir":   "LS",
	"glob":       "Glob",
	"grep":       "Grep",
	"delegate":   "Task",
}

// renamed is, per yagent tool, its arguments under Claude Code's names.
var renamed = map[string]map[string]string{
	"read_file":  {"path": "file_path"},
	"write_file": {"path": "file_path"},
	"edit_file":  {"path": "file_path", "old": "old_string", "new": "new_string"},
	"grep":       {"ignore_case": "-i"},
	"delegate":   {"agent": "subagent_type", "task": "prompt"},
}

// ClaudeToolName is the Claude Code name of a yagent tool: Bash for shell,
// mcp__server__tool for an MCP server's tool (yagent's mcp_server__tool),
// else the name itself.
func ClaudeToolName(tool string) string {
	if n, ok := claudeNames[tool]; ok {
		return n
	}
	if rest, ok := strings.CutPrefix(tool, "mcp_"); ok && strings.Contains(rest, "__") {
		return "mcp__" + rest
	}
	return tool
}

// ToolInput is a yagent tool call's arguments as a Claude Code hook reads
// them in tool_input: the arguments under Claude Code's names (file_path,
// old_string, new_string, command), paths made absolute against dir, and
// yagent's other arguments as they are. Arguments that are not a JSON
// object pass unchanged.
func ToolInput(tool string, args json.RawMessage, dir string) json.RawMessage {
	var in map[string]any
	if json.Unmarshal(args, &in) != nil || in == nil {
		return args
	}
	for from, to := range renamed[tool] {
		if v, ok := in[from]; ok {
			delete(in, from)
			in[to] = v
		}
	}
	for _, k := range []string{"file_path", "path"} {
		if p, ok := in[k].(string); ok && p != "" && !filepath.IsAbs(p) && tool != "glob" {
			in[k] = filepath.Join(dir, p)
		}
	}
	if tool == "shell" {
		if _, ok := in["command"]; !ok {
			if argv, ok := in["argv"].([]any); ok {
				words := make([]string, 0, len(argv))
				for _, a := range argv {
					s, _ := a.(string)
					words = append(words, s)
				}
				in["command"] = shellquote.Join(words...)
			}
		}
		if sec, ok := in["timeout_sec"].(float64); ok {
			in["timeout"] = sec * 1000 // Claude Code's Bash takes milliseconds
		}
	}
	if tool == "delegate" {
		if task, ok := in["prompt"].(string); ok {
			in["description"] = firstLine(task)
		}
	}
	out, err := json.Marshal(in)
	if err != nil {
		return args
	}
	return out
}

// FromToolInput turns a hook's updatedInput (Claude Code's names) back
// into tool's arguments: each renamed argument under yagent's name again;
// paths stay as the hook gave them (absolute paths are taken by every
// file tool).
func FromToolInput(tool string, updated json.RawMessage) json.RawMessage {
	var in map[string]any
	if json.Unmarshal(updated, &in) != nil || in == nil {
		return updated
	}
	for from, to := range renamed[tool] {
		if v, ok := in[to]; ok {
			delete(in, to)
			in[from] = v
		}
	}
	switch tool {
	case "shell":
		if _, ok := in["command"]; ok {
			delete(in, "argv") // the hook's command is the one that runs
		}
		delete(in, "timeout")
	case "delegate":
		delete(in, "description")
	}
	out, err := json.Marshal(in)
	if err != nil {
		return updated
	}
	return out
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 80 {
		s = s[:80]
	}
	return s
}
