package kb

import (
	"context"
	"fmt"
	"strings"
)

// RenameProjectInput is the input of rename_project.
type RenameProjectInput struct {
	Project   string `json:"project" jsonschema:"the project's current (or a former) handle"`
	NewHandle string `json:"newHandle,omitempty" jsonschema:"new handle, \"space\" or \"space/slug\" in lowercase; the old one keeps resolving"`
	NewName   string `json:"newName,omitempty" jsonschema:"new human name"`
}

// RenameProjectOutput is the output of rename_project.
type RenameProjectOutput struct {
	Handle         string   `json:"handle" jsonschema:"the handle to use from now on"`
	Name           string   `json:"name"`
	FormerHandles  []string `json:"formerHandles,omitempty" jsonschema:"handles that keep resolving to this project"`
	HandleChanged  bool     `json:"handleChanged"`
	NameChanged    bool     `json:"nameChanged"`
	PreviousHandle string   `json:"previousHandle,omitempty"`
}

// RenameProject changes a project's handle and/or name; former handles
// keep resolving. See tooldesc/rename_project.md.
func (s *Store) RenameProject(ctx context.Context, c Caller, in RenameProjectInput) (RenameProjectOutput, error) {
	var out RenameProjectOutput
	err := s.write(ctx, c, "rename_project", func(w *wtx) error {
		p, err := resolveProject(ctx, w, c, in.Project)
		if err != nil {
			return err
		}
		newHandle := strings.ToLower(strings.TrimSpace(in.NewHandle))
		newName := strings.TrimSpace(in.NewName)
		if newHandle == "" && newName == "" {
			return invalidf("give newHandle, newName or both")
		}
		out = RenameProjectOutput{Handle: p.Handle, Name: p.Name}
		if newHandle != "" && newHandle != p.Handle {
			if err := w.rehandle(p, newHandle); err != nil {
				return err
			}
			out.Handle, out.HandleChanged, out.PreviousHandle = newHandle, true, p.Handle
		}
		if newName != "" && newName != p.Name {
			if _, err := w.ExecContext(ctx, "UPDATE projects SET name = ? WHERE id = ?", newName, p.ID); err != nil {
				return fmt.Errorf("rename project %s: %w", p.Handle, err)
			}
			out.Name, out.NameChanged = newName, true
		}
		if out.HandleChanged || out.NameChanged {
			if err := w.activity(p.DomainID, 0, "rename_project", p.Handle+" -> "+out.Handle+" ("+out.Name+")"); err != nil {
				return err
			}
		}
		out.FormerHandles, err = stringsQuery(ctx, w, "SELECT handle FROM project_aliases WHERE project_id = ? ORDER BY created_at, handle", p.ID)
		return err
	})
	if err != nil {
		return RenameProjectOutput{}, fmt.Errorf("rename_project: %w", err)
	}
	return out, nil
}

// rehandle gives p a new handle and keeps the old one as an alias.
func (w *wtx) rehandle(p project, handle string) error {
	space, slug, err := parseHandle(handle)
	if err != nil {
		return err
	}
	taken, err := handleTaken(w.ctx, w, handle, p.ID)
	if err != nil {
		return err
	}
	if taken {
		return conflictf("handle %q is in use by another project (now or formerly); pick another", handle)
	}
	spaceID, err := ensureSpace(w.ctx, w.txn, space, w.at)
	if err != nil {
		return err
	}
	if _, err := w.ExecContext(w.ctx, "UPDATE projects SET handle = ?, space_id = ?, slug = ? WHERE id = ?", handle, spaceID, slug, p.ID); err != nil {
		return fmt.Errorf("rename project %s to %s: %w", p.Handle, handle, err)
	}
	if _, err := w.ExecContext(w.ctx, "DELETE FROM project_aliases WHERE handle = ?", handle); err != nil {
		return err
	}
	_, err = w.ExecContext(w.ctx, `INSERT INTO project_aliases(handle, project_id, created_at) VALUES (?, ?, ?)
		ON CONFLICT(handle) DO UPDATE SET project_id = excluded.project_id`, p.Handle, p.ID, w.at)
	return err
}
