package app

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/skills"
)

// SkillSources are the places the skills of a run in workspace are read
// from: the person's always, the workspace's only when it is trusted
// (`yagent trust`). problem says why trust could not be read ("" when it
// could); the workspace's skills are then not read.
func SkillSources(cfg *config.Config, workspace string) (src skills.Sources, problem string) {
	src = skills.Sources{Workspace: workspace, Home: cfg.Home, UserHome: cfg.UserHome}
	if dir, err := config.TrustDir(workspace); err == nil {
		list, err := config.ReadTrust(cfg.Home)
		if err != nil {
			problem = err.Error()
		} else {
			src.Trusted = list.Has(dir)
		}
	}
	return src, problem
}

// LoadSkills loads the skills of a run in workspace. What does not load —
// a broken SKILL.md, an untrusted workspace's skills — is said in
// warnings; the run goes on with the rest.
func LoadSkills(cfg *config.Config, workspace string) (*skills.Catalog, []string) {
	src, problem := SkillSources(cfg, workspace)
	cat := skills.Load(src)
	warnings := cat.Notices(workspace)
	if problem != "" {
		warnings = append(warnings, "warning: not reading the workspace's skills: "+problem)
	}
	return cat, warnings
}

type skillIn struct {
	Name string `json:"name"`
	Path string `json:"path,omitempty"`
}

// SkillTool is the skill tool over cat: a skill's instructions and the
// list of its files, or one of its files (never outside its directory).
// Every mistake is a result the model reads.
func SkillTool(cat *skills.Catalog) *agents.Tool {
	return agents.NewTool("skill", "skills", 0, func(_ context.Context, _ *agents.Call, in skillIn) (agents.Result, error) {
		s, ok := cat.Get(in.Name)
		if !ok {
			var names []string
			for _, s := range cat.All() {
				names = append(names, s.Name)
			}
			return agents.ErrorResult("no skill is named %q; the skills are: %s", in.Name, strings.Join(names, ", ")), nil
		}
		if in.Path == "" {
			text, err := skills.Loaded(s)
			if err != nil {
				return agents.ErrorResult("%v", err), nil
			}
			return agents.Result{Content: text, Summary: "skill " + s.Name}, nil
		}
		text, err := skills.ReadFile(s, in.Path)
		if err != nil {
			return agents.ErrorResult("%v; give a path relative to the skill's directory, as its file list shows", err), nil
		}
		return agents.Result{Content: text, Summary: fmt.Sprintf("%s of skill %s", in.Path, s.Name)}, nil
	})
}

// preloadSkill is a skill's text as an agent definition's skills: puts it
// into the sub-agent's prompt.
func preloadSkill(cat *skills.Catalog) func(string) (string, error) {
	return func(name string) (string, error) {
		s, ok := cat.Get(name)
		if !ok {
			return "", fmt.Errorf("no skill is named %q", name)
		}
		body, err := skills.Body(s)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("Skill %s (preloaded; base directory %s):\n%s", s.Name, s.Dir, body), nil
	}
}

// WriteSkills is `yagent skills ls`: the skills a run here would load
// (skills.Catalog.WriteTable), or as JSON.
func (p *Process) WriteSkills(out, errOut io.Writer, asJSON bool) error {
	cat, dir, err := p.skills(errOut)
	if err != nil {
		return err
	}
	if !asJSON {
		return cat.WriteTable(out, errOut, dir)
	}
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		Skills  []*skills.Skill  `json:"skills"`
		Errors  []skills.Problem `json:"errors"`
		Skipped []string         `json:"skipped"`
	}{append([]*skills.Skill{}, cat.All()...), append([]skills.Problem{}, cat.Problems()...), append([]string{}, cat.Skipped()...)})
}

// ShowSkill is `yagent skills show NAME`: what the skill tool returns for
// it. An unknown name is bad input.
func (p *Process) ShowSkill(out, errOut io.Writer, name string) error {
	cat, _, err := p.skills(errOut)
	if err != nil {
		return err
	}
	s, ok := cat.Get(name)
	if !ok {
		return &BadInputError{fmt.Errorf("no skill is named %q: yagent skills ls lists them, and the ones that were skipped", name)}
	}
	text, err := skills.Loaded(s)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(out, text)
	return err
}

func (p *Process) skills(errOut io.Writer) (*skills.Catalog, string, error) {
	cfg, err := p.Config()
	if err != nil {
		return nil, "", err
	}
	dir, err := WorkspaceDir(p.Dir)
	if err != nil {
		return nil, "", err
	}
	src, problem := SkillSources(cfg, dir)
	if problem != "" {
		fmt.Fprintf(errOut, "warning: the trust list could not be read (the workspace's skills are not read): %s\n", problem)
	}
	return skills.Load(src), dir, nil
}
