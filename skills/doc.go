// Package skills reads Agent Skills (the open SKILL.md format Claude Code,
// Codex and Gemini CLI share): a skill is a directory holding SKILL.md —
// YAML front matter with name and description, then the instructions —
// and any resource files the instructions point to. Load finds them in
// the workspace's .agents/skills and .claude/skills (only once the
// workspace is trusted) and the person's ~/.agents/skills,
// $YAGENT_HOME/skills and ~/.claude/skills; a skill that cannot be used is
// listed as a problem, never a failure. A resource is read through an
// os.Root of the skill's directory, so no path or link leaves it.
//
// The package reads files only; it writes nothing and keeps no state
// between calls.
package skills
