package kb

import (
	"context"
	"fmt"
)

// WhoamiInput is the (empty) input of whoami.
type WhoamiInput struct{}

// WhoamiOutput is the output of whoami.
type WhoamiOutput struct {
	Principal    string       `json:"principal" jsonschema:"your principal id"`
	Name         string       `json:"name" jsonschema:"the person you act for"`
	Kind         Kind         `json:"kind" jsonschema:"person or agent"`
	Access       string       `json:"access" jsonschema:"read or write: the ceiling of this token"`
	Projects     []ProjectRef `json:"projects" jsonschema:"projects you can use"`
	Capabilities Capabilities `json:"capabilities"`
}

// Capabilities says which engine features exist, so nothing is tried blind.
type Capabilities struct {
	Vector    bool `json:"vector" jsonschema:"vector (semantic) search is configured; otherwise search is full-text only"`
	Trash     bool `json:"trash" jsonschema:"delete_note moves notes to a trash a person can restore from"`
	Revisions bool `json:"revisions" jsonschema:"every version of a note is kept"`
}

// GetMyProjectsInput is the (empty) input of get_my_projects.
type GetMyProjectsInput struct{}

// GetMyProjectsOutput is the output of get_my_projects.
type GetMyProjectsOutput struct {
	Projects []ProjectRef `json:"projects" jsonschema:"pass a handle verbatim as the project argument; your personal notes need no project"`
}

// Whoami says who the caller is and what it may do. See tooldesc/whoami.md.
func (s *Store) Whoami(ctx context.Context, c Caller, _ WhoamiInput) (WhoamiOutput, error) {
	if err := c.check(); err != nil {
		return WhoamiOutput{}, err
	}
	name, err := s.principalName(ctx, s.db, c.PrincipalID)
	if err != nil {
		return WhoamiOutput{}, fmt.Errorf("whoami: %w", err)
	}
	projects, err := s.GetMyProjects(ctx, c, GetMyProjectsInput{})
	if err != nil {
		return WhoamiOutput{}, err
	}
	return WhoamiOutput{
		Principal: principalRef(c.PrincipalID), Name: name, Kind: c.Kind, Access: c.access(),
		Projects:     projects.Projects,
		Capabilities: Capabilities{Vector: s.emb != nil, Trash: true, Revisions: true},
	}, nil
}

// GetMyProjects lists the projects the caller can use. See
// tooldesc/get_my_projects.md.
func (s *Store) GetMyProjects(ctx context.Context, c Caller, _ GetMyProjectsInput) (GetMyProjectsOutput, error) {
	if err := c.check(); err != nil {
		return GetMyProjectsOutput{}, err
	}
	ps, err := accessibleProjects(ctx, s.db, c)
	if err != nil {
		return GetMyProjectsOutput{}, fmt.Errorf("get_my_projects: %w", err)
	}
	out := GetMyProjectsOutput{Projects: make([]ProjectRef, 0, len(ps))}
	for _, p := range ps {
		out.Projects = append(out.Projects, p.ref(c))
	}
	return out, nil
}
