package kb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// ProjectRef names a project the caller can use. Handle is what every
// `project` argument takes, verbatim.
type ProjectRef struct {
	Handle string `json:"handle" jsonschema:"pass this verbatim as the project argument"`
	Name   string `json:"name" jsonschema:"human name of the project"`
	Space  string `json:"space" jsonschema:"the space the project belongs to"`
	Access string `json:"access" jsonschema:"read or write: what this token may do here"`
}

type project struct {
	ID       int64
	Handle   string
	Name     string
	Space    string
	DomainID int64
}

var handleSegment = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,62}$`) })

// parseHandle splits "space" or "space/slug"; slug is "" for a root project.
func parseHandle(h string) (space, slug string, err error) {
	parts := strings.Split(h, "/")
	if len(parts) > 2 {
		return "", "", invalidf("project handle %q has more than two segments; a handle is \"space\" or \"space/slug\"", h)
	}
	for _, p := range parts {
		if !handleSegment().MatchString(p) {
			return "", "", invalidf("project handle %q is not valid: each segment is 1-63 lowercase letters, digits, '.', '_' or '-', starting with a letter or digit", h)
		}
	}
	if len(parts) == 1 {
		return parts[0], "", nil
	}
	return parts[0], parts[1], nil
}

func joinHandle(space, slug string) string {
	if slug == "" {
		return space
	}
	return space + "/" + slug
}

const projectSelect = `SELECT p.id, p.handle, p.name, s.slug, d.id
	FROM projects p JOIN spaces s ON s.id = p.space_id JOIN domains d ON d.project_id = p.id`

func scanProject(row *sql.Row) (project, error) {
	var p project
	err := row.Scan(&p.ID, &p.Handle, &p.Name, &p.Space, &p.DomainID)
	return p, err
}

// lookupProject finds a project by its handle or a former handle, without
// checking access. ok is false when there is none.
func lookupProject(ctx context.Context, q querier, handle string) (p project, ok bool, err error) {
	p, err = scanProject(q.QueryRowContext(ctx, projectSelect+" WHERE p.handle = ?", handle))
	if errors.Is(err, sql.ErrNoRows) {
		p, err = scanProject(q.QueryRowContext(ctx, projectSelect+
			" JOIN project_aliases a ON a.project_id = p.id WHERE a.handle = ?", handle))
	}
	if errors.Is(err, sql.ErrNoRows) {
		return project{}, false, nil
	}
	if err != nil {
		return project{}, false, fmt.Errorf("look up project %s: %w", handle, err)
	}
	return p, true, nil
}

func projectByID(ctx context.Context, q querier, id int64) (project, error) {
	p, err := scanProject(q.QueryRowContext(ctx, projectSelect+" WHERE p.id = ?", id))
	if err != nil {
		return project{}, fmt.Errorf("project %d: %w", id, err)
	}
	return p, nil
}

func isMember(ctx context.Context, q querier, projectID, principal int64) (bool, error) {
	var n int
	err := q.QueryRowContext(ctx, "SELECT count(*) FROM members WHERE project_id = ? AND principal_id = ?", projectID, principal).Scan(&n)
	return n > 0, err
}

// canAccess reports whether c may touch project p at all.
func canAccess(ctx context.Context, q querier, c Caller, p project) (bool, error) {
	if !c.ceilingAllows(p.ID) {
		return false, nil
	}
	return isMember(ctx, q, p.ID, c.PrincipalID)
}

// resolveProject turns a handle from a tool argument into a project the
// caller may use. Unknown and inaccessible projects get the same answer.
func resolveProject(ctx context.Context, q querier, c Caller, handle string) (project, error) {
	h := strings.ToLower(strings.TrimSpace(handle))
	if h == "" {
		return project{}, withCLI(invalidf("project is required: pass a handle from get_my_projects"),
			"a project is required: pass --project HANDLE (yagent kb projects lists yours)")
	}
	p, ok, err := lookupProject(ctx, q, h)
	if err != nil {
		return project{}, err
	}
	if ok {
		ok, err = canAccess(ctx, q, c, p)
		if err != nil {
			return project{}, fmt.Errorf("check access to %s: %w", h, err)
		}
	}
	if !ok {
		return project{}, withCLI(notFoundf("no project %q among yours; call get_my_projects and pass one of its handles verbatim", handle),
			"no project %q among yours: yagent kb projects lists them", handle)
	}
	return p, nil
}

// accessibleProjects lists the projects c may use, ordered by handle.
func accessibleProjects(ctx context.Context, q querier, c Caller) ([]project, error) {
	rows, err := q.QueryContext(ctx, projectSelect+
		" JOIN members m ON m.project_id = p.id WHERE m.principal_id = ? ORDER BY p.handle", c.PrincipalID)
	if err != nil {
		return nil, fmt.Errorf("list projects: %w", err)
	}
	defer rows.Close()
	var out []project
	for rows.Next() {
		var p project
		if err := rows.Scan(&p.ID, &p.Handle, &p.Name, &p.Space, &p.DomainID); err != nil {
			return nil, fmt.Errorf("list projects: %w", err)
		}
		if c.ceilingAllows(p.ID) {
			out = append(out, p)
		}
	}
	return out, rows.Err()
}

func (p project) ref(c Caller) ProjectRef {
	return ProjectRef{Handle: p.Handle, Name: p.Name, Space: p.Space, Access: c.access()}
}

// handleTaken reports whether h is a current or former handle of a project
// other than except.
func handleTaken(ctx context.Context, q querier, h string, except int64) (bool, error) {
	var n int
	err := q.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM projects WHERE handle = ?1 AND id <> ?2)
		+ (SELECT count(*) FROM project_aliases WHERE handle = ?1 AND project_id <> ?2)`, h, except).Scan(&n)
	return n > 0, err
}

func ensureSpace(ctx context.Context, tx *txn, slug string, at int64) (int64, error) {
	if _, err := tx.ExecContext(ctx, "INSERT INTO spaces(slug, created_at) VALUES (?, ?) ON CONFLICT(slug) DO NOTHING", slug, at); err != nil {
		return 0, err
	}
	var id int64
	err := tx.QueryRowContext(ctx, "SELECT id FROM spaces WHERE slug = ?", slug).Scan(&id)
	return id, err
}

// CreateProject creates a project (and its space when new) with the person
// as its first member. Agents cannot create projects. handle is "space" for
// the space's root project or "space/slug"; name defaults to the handle.
func (s *Store) CreateProject(ctx context.Context, person Caller, handle, name string) (ProjectRef, error) {
	if err := person.requirePerson("creating a project"); err != nil {
		return ProjectRef{}, err
	}
	handle = strings.TrimSpace(handle)
	space, slug, err := parseHandle(handle)
	if err != nil {
		return ProjectRef{}, err
	}
	if name = strings.TrimSpace(name); name == "" {
		name = handle
	}
	err = s.inTx(ctx, func(tx *txn) error {
		taken, err := handleTaken(ctx, tx, handle, 0)
		if err != nil {
			return err
		}
		if taken {
			return conflictf("project handle %q is already in use (by a project or as a former handle); pick another", handle)
		}
		at := s.nowMicro()
		spaceID, err := ensureSpace(ctx, tx, space, at)
		if err != nil {
			return err
		}
		var id, domain int64
		err = tx.QueryRowContext(ctx, `INSERT INTO projects(space_id, slug, handle, name, created_at, created_by)
			VALUES (?, ?, ?, ?, ?, ?) RETURNING id`, spaceID, slug, handle, name, at, person.PrincipalID).Scan(&id)
		if err != nil {
			return err
		}
		if err := tx.QueryRowContext(ctx, "INSERT INTO domains(project_id) VALUES (?) RETURNING id", id).Scan(&domain); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "INSERT INTO members(project_id, principal_id, created_at) VALUES (?, ?, ?)", id, person.PrincipalID, at); err != nil {
			return err
		}
		w := &wtx{txn: tx, ctx: ctx, c: person, tool: "create_project", at: at}
		return w.activity(domain, 0, "create_project", handle)
	})
	if err != nil {
		return ProjectRef{}, fmt.Errorf("create project %s: %w", handle, err)
	}
	return ProjectRef{Handle: handle, Name: name, Space: space, Access: "write"}, nil
}

// AddMember lets principal use the project; the person must be a member.
func (s *Store) AddMember(ctx context.Context, person Caller, handle string, principal int64) error {
	if err := person.requirePerson("adding a member"); err != nil {
		return err
	}
	return s.inTx(ctx, func(tx *txn) error {
		p, err := resolveProject(ctx, tx, person, handle)
		if err != nil {
			return err
		}
		if _, err := s.principalName(ctx, tx, principal); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO members(project_id, principal_id, created_at) VALUES (?, ?, ?)
			ON CONFLICT DO NOTHING`, p.ID, principal, s.nowMicro())
		return err
	})
}

// ReachesProject reports whether c may use the project a handle (current or
// former) names: a member's project within the token's ceiling. An unknown
// or malformed handle is simply not reached. The MCP gateway asks it before
// showing a board recorded with that project.
func (s *Store) ReachesProject(ctx context.Context, c Caller, handle string) (bool, error) {
	if err := c.check(); err != nil {
		return false, err
	}
	_, err := resolveProject(ctx, s.db, c, handle)
	switch ErrorCode(err) {
	case CodeNotFound, CodeInvalidArgument:
		return false, nil
	}
	return err == nil, err
}
